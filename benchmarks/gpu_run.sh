#!/usr/bin/env bash
# Issue 13's GPU checks in one bounded call on a CUDA machine whose python3 has torch,
# numpy, Cython, pytest and pytest-benchmark (sgfmill, if missing, may travel as a wheel
# in .whl/). From the repository root:
#
#     benchmarks/gpu_run.sh OUTDIR [SECONDS]
#
# Builds goboard in place, runs the tests that exercise CUDA (batch norm, precision,
# devices, the training CLI on --device auto, the folded network), bench_gpu.py's
# folded-against-autocast group, self-play games/hour folded and not (15 x 128),
# the inference and training groups, the other self-play layouts, a profile of one
# self-play process on the GPU, then as much of the whole suite as time allows
# (pytest-xdist if present).
# Each stage has its own time limit inside SECONDS (default 540) and writes its log
# and JSON under OUTDIR as it goes, so a cut run still reports what it finished.
set -uo pipefail
out=${1:?usage: benchmarks/gpu_run.sh OUTDIR [SECONDS]}
budget=${2:-540}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 HYPOTHESIS_PROFILE=ci
left() { echo $((budget - SECONDS)); }
stage() { printf '\n=== %s (%ss, %ss left)\n' "$*" "$SECONDS" "$(left)"; }
# run LIMIT LOG CMD...: CMD under min(LIMIT, time left - 5), output to LOG and the tail
run() {
    local limit=$1 log=$2
    shift 2
    local cap=$(($(left) - 5))
    ((cap < limit)) && limit=$cap
    if ((limit < 10)); then
        echo "skipped: no time left"
        return 0
    fi
    timeout -k 5 "$limit" "$@" >"$out/$log" 2>&1
    local rc=$?
    tail -n "${TAIL:-12}" "$out/$log"
    echo "rc=$rc"
}

stage "environment"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-cache-dir \
        --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__,
    torch.version.cuda, torch.cuda.get_device_name(0), torch.cuda.is_bf16_supported())'
nproc

# GPU use and memory once a second, for the whole run
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 1 \
    >"$out/gpu-use.csv" 2>&1 &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT

stage "build goboard"
run 150 build.log python3 setup.py build_ext --inplace -j 8 || exit 1
python3 -c 'import goboard, search, alphago.nets' || exit 1

stage "CUDA tests"
TAIL=25 run 150 cuda-tests.log python3 -m pytest -q -p no:cacheprovider \
    --durations=5 tests/test_nets_batchnorm.py tests/test_nets_precision.py \
    tests/test_nets_graphs.py tests/test_nets_fused.py tests/test_train_graphs.py \
    tests/test_train_devices.py \
    tests/test_cli_train.py

stage "bench_gpu: folded and fused against autocast, side by side"
TAIL=40 run 120 bench-fused.log python3 -m pytest benchmarks/bench_gpu.py -q \
    -p no:cacheprovider -k "fused and not selfplay" --benchmark-max-time=0.3 \
    --benchmark-min-rounds=3 --benchmark-columns=median,rounds \
    --benchmark-json="$out/bench-fused.json"

# run_selfplay LAYOUT: one bench_gpu self-play layout (workers-games[-fused])
run_selfplay() {
    stage "bench_gpu: self-play, workers-games $1"
    local k="selfplay and $1"
    [[ $1 == *fused ]] || k="$k and not fused"
    TAIL=8 run 180 "bench-sp-$1.log" python3 -m pytest benchmarks/bench_gpu.py -q \
        -p no:cacheprovider -k "$k" --benchmark-json="$out/bench-sp-$1.json"
}
# The folded workers and their unfused pair first, one game per slot (1,920 games
# each: about 70 s at 100k games/hour), so that a short run still compares them.
export ALPHAGO_BENCH_ROUNDS=1
run_selfplay 15-128-fused
run_selfplay 15-128
unset ALPHAGO_BENCH_ROUNDS

stage "bench_gpu: inference and training"
TAIL=70 run 170 bench-nets.log python3 -m pytest benchmarks/bench_gpu.py -q \
    -p no:cacheprovider -k "not selfplay and not fused" --benchmark-max-time=0.3 \
    --benchmark-min-rounds=3 --benchmark-columns=median,rounds \
    --benchmark-json="$out/bench-nets.json"

run_selfplay 15-64

stage "profile: one self-play process on the GPU"
TAIL=20 run 60 profile.log python3 scripts/profile_selfplay.py --device cuda \
    --parallel-games 64 --moves 30 --top 15

run_selfplay 8-64

stage "the whole suite"
xdist=()
python3 -c 'import xdist' 2>/dev/null && xdist=(-n 12)
TAIL=25 run 600 suite.log python3 -m pytest -q -p no:cacheprovider "${xdist[@]}" \
    --maxfail=20 --ignore=tests/test_fuzz_harnesses.py tests
stage "done"
