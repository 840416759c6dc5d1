#!/bin/bash
# Third round of the Pachi fine-tune (issue 15): the net shipped on 2026-12-06 evening (the
# second round; ft2.pt, sha256 38daf0d7..., is docs/ft2-pachi-9x9-2026-12-06/alphago-9x9-ft2.pt)
# trained further on the same data plus a third batch of Pachi 5,000 self-play games that it has not seen
# (games5k-c: gen-pachi5k.sh games5k-c 3 4). Same recipe as the first two rounds. The last
# 5% of the examples, held out, are the last games of the new batch.
set -e
cd /work/runs/pachi-ft
A=/work/main/.venv/bin/alphago
T=/work/runs/pachi-teacher
# The shards of the first two rounds (their ft.sh made them) and the new batch's.
[ -d data/shards-pachi5k-c ] || $A shards $T/games5k-c --out data/shards-pachi5k-c --planes alphago49 --no-progress
$A train sl runs/ft3 --data data/shards-l10 data/shards-pachi2k data/shards-pachi5k \
    data/shards-pachi5k-b data/shards-pachi5k-c --init /work/runs/pachi-ft/ft2.pt \
    --lr 3e-4 --batch 256 --steps 2000 --value-weight 0.25 --ownership-weight 1.5 \
    --score-weight 0.25 --val-every 100 --checkpoint-every 100 --threads 2 --no-progress
