#!/usr/bin/env bash
# A long fuzz run of one harness as a series of fresh libFuzzer processes:
#
#     fuzz/chunks.sh SURFACE TOTAL CHUNK CORPUS [VENV]
#
# runs fuzz_SURFACE.py for CHUNK inputs at a time until TOTAL inputs ran, new inputs
# going to the folder CORPUS (read again by each chunk, with the committed seeds).
# Why chunks: inside atheris's libFuzzer the process grows by about 25 MB per 1,000 GTP
# inputs (the same harness replayed in plain Python stays flat), so one process cannot
# run 10^6 inputs in memory; a new process per chunk starts from the corpus instead.
#
# With VENV, each chunk goes through fuzz/run.sh on that venv (the sanitizer build,
# fuzz/build.sh); without, it runs on python3 with src/ on PYTHONPATH (the plain build
# in place: no C coverage counters, about 5x the inputs per second). One line per chunk
# goes to CORPUS.chunks.tsv: end time, exit status, inputs, running total, coverage;
# a chunk that fails keeps its log as CORPUS.fail-TIME.log, findings go to
# CORPUS.artifacts/. The series stops at a chunk that reports no inputs run (a set-up
# error, or a finding libFuzzer ended without its statistics). Exit status 1 if any
# chunk failed or the series stopped early.
set -uo pipefail
surface=${1:?usage: fuzz/chunks.sh SURFACE TOTAL CHUNK CORPUS [VENV]}
total=${2:?} chunk=${3:?} corpus=${4:?} venv=${5:-}
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$(mkdir -p "$corpus" && cd "$corpus" && pwd)"
mkdir -p "$corpus.artifacts"
flags=(-runs="$chunk" -print_final_stats=1 -rss_limit_mb=8000
    -artifact_prefix="$corpus.artifacts/")
done_=0
status=0
while [ "$done_" -lt "$total" ]; do
    log="$corpus.chunk.log"
    if [ -n "$venv" ]; then
        "$here/run.sh" "$venv" "$surface" "${flags[@]}" "$corpus" >"$log" 2>&1
    else
        PYTHONPATH="$here/../src:$here${PYTHONPATH:+:$PYTHONPATH}" python3 \
            "$here/fuzz_$surface.py" "${flags[@]}" "$corpus" "$here/corpus/$surface" \
            >"$log" 2>&1
    fi
    rc=$?
    n=$(grep -a "stat::number_of_executed_units" "$log" | awk '{print $2}')
    cov=$(grep -aE "^#[0-9]+" "$log" | tail -1 | grep -oE "cov: [0-9]+ ft: [0-9]+")
    done_=$((done_ + ${n:-0}))
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$rc" "${n:-0}" "$done_" \
        "$cov" >>"$corpus.chunks.tsv"
    if [ "$rc" -ne 0 ]; then
        status=1
        cp "$log" "$corpus.fail-$(date +%s).log"
    fi
    if [ "${n:-0}" -eq 0 ]; then
        status=1
        break
    fi
done
exit "$status"
