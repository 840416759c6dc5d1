#!/bin/bash
# Forced playouts, seed 1: PUCT self-play with them against seed 1's base net (the
# default Gumbel self-play, ownership off), the same budget; the script's own training
# command and match code.
cd /work/main
.venv/bin/python - <<'PY'
import argparse, shlex, subprocess, sys
from pathlib import Path
sys.path.insert(0, "scripts")
import ablation
root = Path("/work/runs/kata-ablation")
args = argparse.Namespace(size=9, init=None, blocks=4, filters=32, seed=1, max_iterations=10_000,
    games=64, simulations=64, updates=50, cpu_hours=0.3, komi=7.5, eval_simulations=64,
    eval_games=100, parallel=2, scoring="auto")
flags = shlex.split("--search puct --forced-playouts --ownership-weight 0")
subprocess.run(ablation.train_command(args, root / "fp-seed1/fp", flags), check=True)
a = ablation.engine(args, root / "fp-seed1/fp/best.pt")
b = ablation.engine(args, root / "seed1/base/best.pt")
score = ablation.play(args, root / "fp-seed1", "fp", "gumbel-base", a, b)
print(score, score.score(), score.elo(), ablation.run_stats(root / "fp-seed1/fp"))
PY
date > /work/runs/kata-ablation/fp-seed1/done
