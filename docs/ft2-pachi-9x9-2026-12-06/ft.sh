#!/bin/bash
# Second round of the Pachi fine-tune (issue 15): the net shipped on 2026-12-06 (the first
# round, docs/ft-pachi-9x9-2026-12-06) trained further on the same data plus the second
# batch of 185 Pachi 5,000 games, which it has not seen. Same recipe as the first round.
# ft49.pt is that net (sha256 133da9f1...). The last 5% of the examples, held out, are
# the last games of that new batch.
set -e
cd /work/runs/pachi-ft
A=/work/main/.venv/bin/alphago
T=/work/runs/pachi-teacher
# The data of the first round: GNU Go level 10 with --capture-all-dead (ownership and score
# targets; games seed 3000000 + i, made by two processes: 0-121 and 122-242), Pachi 2,000
# (docs/ft-pachi-9x9-2026-11-28/pachi-games.tar.xz) and Pachi 5,000 (pachi5k-games.tar.xz).
[ -d data/shards-l10 ] || $A shards /work/runs/anchor9/data/l10cad /work/runs/anchor9/data/l10cad-2 \
    --out data/shards-l10 --planes alphago49 --no-progress
[ -d data/shards-pachi2k ] || $A shards pachi2k --out data/shards-pachi2k --planes alphago49 --no-progress
[ -d data/shards-pachi5k ] || $A shards $T/games5k --out data/shards-pachi5k --planes alphago49 --no-progress
[ -d data/shards-pachi5k-b ] || $A shards $T/games5k-b --out data/shards-pachi5k-b --planes alphago49 --no-progress
$A train sl runs/ft2 --data data/shards-l10 data/shards-pachi2k data/shards-pachi5k data/shards-pachi5k-b \
    --init /work/runs/pachi-ft/ft49.pt \
    --lr 3e-4 --batch 256 --steps 2000 --value-weight 0.25 --ownership-weight 1.5 \
    --score-weight 0.25 --val-every 100 --checkpoint-every 100 --threads 2 --no-progress
