#!/bin/bash
# Seed 1 of global pooling and the score target alone (ownership off, as in seed 0's
# runs and seed 1's base), two at a time as before, then the script's matches.
cd /work/main
OUT=/work/runs/kata-ablation/seed1
train() {  # train one variant with exactly ablation.py's command
  .venv/bin/python - "$1" "$2" <<'PY'
import sys, argparse, subprocess, shlex
sys.path.insert(0, "scripts")
import ablation
name, flags = sys.argv[1], sys.argv[2]
args = argparse.Namespace(size=9, init=None, blocks=4, filters=32, seed=1, max_iterations=10_000,
    games=64, simulations=64, updates=50, cpu_hours=0.3)
from pathlib import Path
subprocess.run(ablation.train_command(args, Path("/work/runs/kata-ablation/seed1") / name, shlex.split(flags)), check=True)
PY
}
( train pool "--global-pooling --ownership-weight 0" > $OUT/lane3.log 2>&1 ) &
( train score "--score-weight 0.25 --ownership-weight 0" > $OUT/lane4.log 2>&1 ) &
wait
date > $OUT/trained2
.venv/bin/python scripts/ablation.py --out $OUT --cpu-hours 0.3 --seed 1 \
  --variant base="--ownership-weight 0" --variant own="--ownership-weight 1.5" \
  --variant pool="--global-pooling --ownership-weight 0" \
  --variant score="--score-weight 0.25 --ownership-weight 0" > $OUT/ablation2.log 2>&1
date > $OUT/done2
