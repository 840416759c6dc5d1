#!/bin/bash
# KataGo switches at equal CPU: default self-play (gumbel + playout cap) vs + global pooling, + ownership, + score.
cd /work/main
OUT=/work/runs/kata-ablation/out
H=0.3
V=(--variant base="" --variant pool="--global-pooling" --variant own="--ownership-weight 1.5" --variant score="--score-weight 0.25")
train() {  # train one variant with exactly ablation.py's command
  .venv/bin/python - "$1" "$2" <<'PY'
import sys, argparse, subprocess, shlex
sys.path.insert(0, "scripts")
import ablation
name, flags = sys.argv[1], sys.argv[2]
args = argparse.Namespace(size=9, init=None, blocks=4, filters=32, seed=0, max_iterations=10_000,
    games=64, simulations=64, updates=50, cpu_hours=0.3)
from pathlib import Path
subprocess.run(ablation.train_command(args, Path("/work/runs/kata-ablation/out") / name, shlex.split(flags)), check=True)
PY
}
mkdir -p $OUT
( train base "" > $OUT/lane1.log 2>&1; train own "--ownership-weight 1.5" >> $OUT/lane1.log 2>&1 ) &
( train pool "--global-pooling" > $OUT/lane2.log 2>&1; train score "--score-weight 0.25" >> $OUT/lane2.log 2>&1 ) &
wait
date > $OUT/trained
.venv/bin/python scripts/ablation.py --out $OUT --cpu-hours $H "${V[@]}" > $OUT/ablation.log 2>&1
date > $OUT/done
