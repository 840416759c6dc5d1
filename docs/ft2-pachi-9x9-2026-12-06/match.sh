#!/bin/bash
# A 9x9 net as the default engine plays it (800 simulations, rollouts mixed at 0.5, one
# torch thread) against one of the first round's opponents, on the same seeds and colours
# as the first round's matches (docs/ft-pachi-9x9-2026-12-06), so that
# scripts/paired_matches.py pairs them game by game; resumable.
# Usage: match.sh NET OPPONENT DIR, OPPONENT one of pachi2000, pachi5000, pachi20000,
# gnugo10, uct4000 (there the net plays 400 simulations against plain UCT's 4,000).
NET=${1:?usage: match.sh NET OPPONENT DIR}
OPP=${2:?usage: match.sh NET OPPONENT DIR}
D=${3:?usage: match.sh NET OPPONENT DIR}
P=/root/.cache/pachi-b69e353/pachi
A=/work/main/.venv/bin/alphago
SIMS=800
SEED="{game}"
case $OPP in
pachi*)
    [ -x $P ] || P=$(bash /work/shared/pachi/build.sh)
    B="$P -r chinese -t =${OPP#pachi} -s 1{game} threads=1,pass_all_alive,resign_threshold=0" ;;
gnugo10)
    SEED="100{game}"
    B="/usr/games/gnugo --mode gtp --chinese-rules --capture-all-dead --level 10 --seed 100{game}" ;;
uct4000)
    SIMS=400
    B="$A gtp --size 9 --uct --simulations 4000 --threads 1 --seed {game}" ;;
*) echo "unknown opponent $OPP" >&2; exit 2 ;;
esac
R=""; [ -f $D/match.json ] && R="--resume"
exec $A eval "$A gtp --size 9 --simulations $SIMS --threads 1 --seed $SEED --weights $NET --mix-lambda 0.5" \
  "$B" --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
