#!/bin/bash
# The fine-tuned net (rollouts mixed at 0.5, as the default engine) against Pachi 2,000,
# on the seeds of README's match of the shipped net.
cd /work/main
P=/root/.cache/pachi-b69e353/pachi
D=/work/runs/pachi-ft/match-ft49
R=""; [ -f $D/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 800 --threads 1 --seed {game} --weights /work/runs/pachi-ft/ft49.pt --mix-lambda 0.5" \
  "$P -r chinese -t =2000 -s 1{game} threads=1,pass_all_alive,resign_threshold=0" \
  --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
