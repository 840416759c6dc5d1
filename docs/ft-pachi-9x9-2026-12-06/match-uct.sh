#!/bin/bash
# The fine-tuned net (rollouts at 0.5, 400 simulations) against plain UCT with 4,000,
# seeds 0-99 as README's row of the net shipped before it (99/100).
cd /work/main
D=/work/runs/pachi-ft/match-uct
R=""; [ -f $D/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 400 --threads 1 --seed {game} --weights /work/runs/pachi-ft/ft49.pt --mix-lambda 0.5" \
  "/work/main/.venv/bin/alphago gtp --size 9 --uct --simulations 4000 --threads 1 --seed {game}" \
  --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
