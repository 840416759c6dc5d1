#!/bin/bash
# Fine-tune the shipped 9x9 net on Pachi's games (2,000 and 5,000 simulations) with
# GNU Go level-10 games (ownership targets) mixed in; then its match against Pachi 2,000.
set -e
# --init named the file shipped then, now docs/sl-9x9-2026-11-29/alphago-9x9-alphago49.pt.
cd /work/runs/pachi-ft
A=/work/main/.venv/bin/alphago
[ -d data/shards-pachi5k ] || $A shards /work/runs/pachi-teacher/games5k --out data/shards-pachi5k --planes alphago49 --no-progress
[ -d data/shards-l10 ] || $A shards /work/runs/anchor9/data/l10cad --out data/shards-l10 --planes alphago49 --no-progress
$A train sl runs/ft49 --data data/shards-l10 data/shards-pachi2k data/shards-pachi5k \
    --init /work/main/src/alphago/nets/shipped/alphago-9x9.pt --lr 3e-4 --batch 256 --steps 2000 \
    --value-weight 0.25 --ownership-weight 1.5 --score-weight 0.25 --val-every 100 \
    --checkpoint-every 100 --threads 2 --no-progress
date > trained
