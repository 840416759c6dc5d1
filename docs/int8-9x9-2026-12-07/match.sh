#!/bin/bash
# The default 9x9 engine with int8 inference against the same engine in bf16 (this
# CPU's default), 800 simulations each, one torch thread, the same seed per game on
# both sides; resumable. Usage: match.sh DIR
D=${1:?usage: match.sh DIR}
A=/work/main/.venv/bin/alphago
E="$A gtp --size 9 --simulations 800 --threads 1 --seed {game} --precision"
R=""; [ -f $D/match.json ] && R="--resume"
exec $A eval "$E int8" "$E bf16" --games 100 --size 9 --parallel ${PAR:-2} --sgf-dir $D $R --no-progress
