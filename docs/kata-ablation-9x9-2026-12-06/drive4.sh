#!/bin/bash
# Forced playouts and policy target pruning (PUCT only): PUCT self-play with and without
# them, seed 0, ownership off as in the other single-switch runs; two at a time, then
# the matches. Starts once the seed-1 runs on top of ownership are done.
while [ ! -f /work/runs/kata-ablation/seed1-own/done ]; do sleep 20; done
cd /work/main
OUT=/work/runs/kata-ablation/fp-seed0
train() {  # train one variant with exactly ablation.py's command
  .venv/bin/python - "$1" "$2" <<'PY'
import sys, argparse, subprocess, shlex
sys.path.insert(0, "scripts")
import ablation
name, flags = sys.argv[1], sys.argv[2]
args = argparse.Namespace(size=9, init=None, blocks=4, filters=32, seed=0, max_iterations=10_000,
    games=64, simulations=64, updates=50, cpu_hours=0.3)
from pathlib import Path
subprocess.run(ablation.train_command(args, Path("/work/runs/kata-ablation/fp-seed0") / name, shlex.split(flags)), check=True)
PY
}
( train puct "--search puct --ownership-weight 0" > $OUT/lane1.log 2>&1 ) &
( train fp "--search puct --forced-playouts --ownership-weight 0" > $OUT/lane2.log 2>&1 ) &
wait
date > $OUT/trained
.venv/bin/python scripts/ablation.py --out $OUT --cpu-hours 0.3 --seed 0 \
  --variant puct="--search puct --ownership-weight 0" \
  --variant fp="--search puct --forced-playouts --ownership-weight 0" > $OUT/ablation.log 2>&1
date > $OUT/done
