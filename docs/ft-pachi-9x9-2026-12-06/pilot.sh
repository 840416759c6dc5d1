#!/bin/bash
# Pilot: the 2026-11-28 Pachi-fine-tuned agz17 net against Pachi 2,000 (README's seeds).
cd /work/main
P=/root/.cache/pachi-b69e353/pachi
R=""; [ -f /work/runs/pachi-ft/pilot/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 800 --threads 1 --seed {game} --weights docs/ft-pachi-9x9-2026-11-28/candidate-4x48.pt --mix-lambda 0.5" \
  "$P -r chinese -t =2000 -s 1{game} threads=1,pass_all_alive,resign_threshold=0" \
  --games 40 --size 9 --parallel 1 --sgf-dir /work/runs/pachi-ft/pilot $R --no-progress
