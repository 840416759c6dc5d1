#!/bin/bash
# The moonshot: the default engine (this net shipped) against Pachi at N simulations
# (5000 or 20000), seeds 0-99 as the match against Pachi 2,000; resumable.
# Usage: match-pachi.sh N
N=${1:?usage: match-pachi.sh SIMULATIONS}
cd /work/main
P=/root/.cache/pachi-b69e353/pachi
[ -x $P ] || P=$(bash /work/shared/pachi/build.sh)
D=/work/runs/pachi-ft/match-pachi$((N / 1000))k
R=""; [ -f $D/match.json ] && R="--resume"
exec .venv/bin/alphago eval "/work/main/.venv/bin/alphago gtp --size 9 --simulations 800 --threads 1 --seed {game}" \
  "$P -r chinese -t =$N -s 1{game} threads=1,pass_all_alive,resign_threshold=0" \
  --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
