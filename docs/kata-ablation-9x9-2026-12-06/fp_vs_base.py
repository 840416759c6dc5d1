"""The forced-playouts net (PUCT self-play, seed 0) against seed 0's base net (the
default Gumbel self-play with the playout cap, ownership off): scripts/ablation.py's
own match, engines and scoring."""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, "scripts")
import ablation

args = argparse.Namespace(size=9, komi=7.5, eval_simulations=64, eval_games=100,
                          parallel=2, scoring="auto")
root = Path("/work/runs/kata-ablation")
out = root / "fp-vs-gumbel"
(out / "fp").mkdir(parents=True, exist_ok=True)
a = ablation.engine(args, root / "fp-seed0/fp/best.pt")
b = ablation.engine(args, root / "out/base/best.pt")
score = ablation.play(args, out, "fp", "gumbel-base", a, b)
print(score, score.score(), score.elo())
