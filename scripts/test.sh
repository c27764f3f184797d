#!/usr/bin/env bash
# The whole test suite, from a fresh machine: install dependencies, build
# with AddressSanitizer + UBSan, run every unit and end-to-end test, then
# replay the fuzz corpora and fuzz each target briefly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

./scripts/bootstrap.sh

jobs=$(nproc)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j "$jobs" -LE heavy "$@"

if [ -f fuzz/CMakeLists.txt ] && [ -z "${WEIR_SKIP_FUZZ:-}" ]; then
    ./scripts/fuzz.sh --short
fi
echo "test.sh: all tests passed"
