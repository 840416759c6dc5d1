#!/usr/bin/env bash
# Run one harness on the sanitizer build: fuzz/run.sh VENV SURFACE [libFuzzer flags...]
# e.g. fuzz/run.sh .venv-fuzz gtp -max_total_time=600 /tmp/gtp-corpus
# The committed seed corpus fuzz/corpus/SURFACE is read after the folder you name, or
# after $TMPDIR/fuzz-corpus-SURFACE (libFuzzer adds new inputs to the first folder);
# name files instead (a crash-* file) and they are replayed once each.
set -euo pipefail
venv="$1" surface="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
py="$venv/bin/python"
site="$("$py" -c 'import atheris, os; print(os.path.dirname(os.path.dirname(atheris.__file__)))')"
pkg="$("$py" -c 'import importlib.util as u; print(u.find_spec("goboard").origin)')"
so="$(ls "$(dirname "$pkg")"/_board*.so)"  # importing it here would need the preload
symbols="$(nm -D "$so")"  # not piped into grep -q: pipefail would see nm's SIGPIPE
if grep -q __sanitizer_cov_8bit_counters_init <<<"$symbols"; then
    preload="$site/asan_with_fuzzer.so"  # clang's ASan runtime with libFuzzer inside
else
    preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
# New inputs go to the first folder named, else to a scratch folder, never into the
# committed seeds.
corpus=("${TMPDIR:-/tmp}/fuzz-corpus-$surface" "$here/corpus/$surface")
for arg in "$@"; do
    [ -d "$arg" ] && corpus=("$here/corpus/$surface")
done
for arg in "$@"; do
    [ -f "$arg" ] && corpus=()
done
mkdir -p "${TMPDIR:-/tmp}/fuzz-corpus-$surface"
# detect_leaks=0: CPython and torch keep allocations alive to exit by design.
LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    exec "$py" "$here/fuzz_$surface.py" "$@" "${corpus[@]}"
