#!/bin/bash
# Seed 1: global pooling and the score target each on top of the ownership target (the
# default since 2026-12-06), against seed 1's own run; two at a time, then the matches.
while [ ! -f /work/runs/kata-ablation/seed1/done2 ]; do sleep 20; done
cd /work/main
OUT=/work/runs/kata-ablation/seed1-own
train() {  # train one variant with exactly ablation.py's command
  .venv/bin/python - "$1" "$2" <<'PY'
import sys, argparse, subprocess, shlex
sys.path.insert(0, "scripts")
import ablation
name, flags = sys.argv[1], sys.argv[2]
args = argparse.Namespace(size=9, init=None, blocks=4, filters=32, seed=1, max_iterations=10_000,
    games=64, simulations=64, updates=50, cpu_hours=0.3)
from pathlib import Path
subprocess.run(ablation.train_command(args, Path("/work/runs/kata-ablation/seed1-own") / name, shlex.split(flags)), check=True)
PY
}
( train ownpool "--ownership-weight 1.5 --global-pooling" > $OUT/lane1.log 2>&1 ) &
( train ownscore "--ownership-weight 1.5 --score-weight 0.25" > $OUT/lane2.log 2>&1 ) &
wait
date > $OUT/trained
.venv/bin/python scripts/ablation.py --out $OUT --cpu-hours 0.3 --seed 1 \
  --variant own="--ownership-weight 1.5" \
  --variant ownpool="--ownership-weight 1.5 --global-pooling" \
  --variant ownscore="--ownership-weight 1.5 --score-weight 0.25" > $OUT/ablation.log 2>&1
date > $OUT/done
