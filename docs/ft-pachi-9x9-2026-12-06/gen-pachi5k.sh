#!/bin/bash
# Pachi 5,000-simulation self-play games as teacher data (issue 15), ending by
# resignation (below 5% by Pachi's search); resumable.
P=/root/.cache/pachi-b69e353/pachi
[ -x $P ] || P=$(bash /work/shared/pachi/build.sh)
# Usage: gen-pachi5k.sh [DIR SEED_PREFIX_A SEED_PREFIX_B]; the first batch ran with the
# defaults, the second as `gen-pachi5k.sh games5k-b 5 6`.
D=${1:-games5k}
A="$P -r chinese -t =5000 -s ${2:-7}{game} threads=1,pass_all_alive,resign_threshold=0.05"
B="$P -r chinese -t =5000 -s ${3:-8}{game} threads=1,pass_all_alive,resign_threshold=0.05"
R=""; [ -f $D/match.json ] && R="--resume"
exec /work/main/.venv/bin/alphago eval "$A" "$B" --games 3000 --parallel ${PAR:-1} \
    --sgf-dir $D $R --no-progress
