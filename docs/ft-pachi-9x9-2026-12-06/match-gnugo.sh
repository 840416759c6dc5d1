#!/bin/bash
# The fine-tuned net (rollouts at 0.5) against GNU Go level 10, seeds 1000-10099 as README's
# first row of the shipped net (91/100).
cd /work/main
D=/work/runs/pachi-ft/match-gnugo
R=""; [ -f $D/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 800 --threads 1 --seed 100{game} --weights /work/runs/pachi-ft/ft49.pt --mix-lambda 0.5" \
  "/usr/games/gnugo --mode gtp --chinese-rules --capture-all-dead --level 10 --seed 100{game}" \
  --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
