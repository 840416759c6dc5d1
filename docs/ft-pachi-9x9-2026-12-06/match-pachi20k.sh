#!/bin/bash
# The moonshot: the default engine (this net shipped) against Pachi at 20,000 simulations,
# seeds 0-99 as the other Pachi matches; resumable.
cd /work/main
P=/root/.cache/pachi-b69e353/pachi
[ -x $P ] || P=$(bash /work/shared/pachi/build.sh)
D=/work/runs/pachi-ft/match-pachi20k
R=""; [ -f $D/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 800 --threads 1 --seed {game}" \
  "$P -r chinese -t =20000 -s 1{game} threads=1,pass_all_alive,resign_threshold=0" \
  --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
