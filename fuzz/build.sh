#!/usr/bin/env bash
# Make a virtual environment for the fuzz harnesses: the project with its fuzz extra
# (atheris, torch, sgfmill), goboard rebuilt with AddressSanitizer + UBSan, and, with
# clang, libFuzzer's coverage counters in the C core so that atheris is guided by C
# branches as well as Python lines. Usage: fuzz/build.sh [VENV] (default .venv-fuzz).
# Needs clang and its runtime (Debian: apt-get install clang libclang-rt-14-dev); with
# gcc only, the build still runs but libFuzzer sees no coverage (atheris says so).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv-fuzz}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q ".[fuzz]"
if command -v clang >/dev/null; then
    export CC=clang GOBOARD_FUZZ=1
else
    echo "fuzz/build.sh: no clang, so no C coverage for libFuzzer" >&2
fi
GOBOARD_SANITIZE=1 "$venv/bin/pip" install -q --no-cache-dir --force-reinstall --no-deps .
