#!/usr/bin/env bash
# Machine instructions per placed stone in the C playout loop, counted by callgrind
# (repeatable, unlike seconds on a shared machine). Builds the core with the flags the
# extension gets (-O3 -fwrapv -fPIC) into a throwaway driver.
#
#   usage: benchmarks/callgrind_playouts.sh [PLAYOUTS_19x19] [PLAYOUTS_9x9]
#
# Two runs per size (n and 2n playouts); the difference divided by the difference in
# stones is the marginal cost per stone, free of process start-up. It includes move
# choice, the eye test, exact liberties, captures, Zobrist updates and the final
# Tromp-Taylor count.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../src/goboard"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -std=c11 -O3 -fwrapv -fPIC -DNDEBUG -I"$src" -o "$out/driver" "$here/c/playout_driver.c" \
    "$src/board.c" "$src/check.c" "$src/keyset.c" "$src/zobrist.c" "$src/playout.c"

measure() {  # size playouts -> "instructions stones"
    local log="$out/cg.$1.$2"
    valgrind --tool=callgrind --callgrind-out-file="$log.out" "$out/driver" "$1" "$2" \
        >"$log.stdout" 2>"$log.stderr"
    local ir stones
    ir=$(grep -E '^summary:|^totals:' "$log.out" | tail -1 | awk '{print $2}')
    stones=$(awk '{print $6}' "$log.stdout")
    echo "$ir $stones"
}

for spec in "19 ${1:-200}" "9 ${2:-1000}"; do
    set -- $spec
    read -r ir1 st1 < <(measure "$1" "$2")
    read -r ir2 st2 < <(measure "$1" $(( 2 * $2 )))
    awk -v s="$1" -v a="$ir1" -v b="$ir2" -v x="$st1" -v y="$st2" 'BEGIN {
        printf "%dx%d: %.0f instructions per placed stone (%d stones per playout)\n",
               s, s, (b - a) / (y - x), (y - x) / 1
    }' | sed "s/([0-9]* stones per playout)/($(( (st2 - st1) / $2 )) stones per playout)/"
done
