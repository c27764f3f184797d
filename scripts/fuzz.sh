#!/usr/bin/env bash
# Build the libFuzzer targets with clang and fuzz each one.
#   scripts/fuzz.sh --short     ~20 s per target (part of scripts/test.sh)
#   scripts/fuzz.sh [SECONDS]   longer runs (default 300 s per target)
# New inputs that libFuzzer finds go to build-fuzz/corpus/<target>; crashes
# are written to build-fuzz/crashes/ and fail the script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=300
[ "${1:-}" = "--short" ] && secs=20
[ -n "${1:-}" ] && [ "${1:-}" != "--short" ] && secs=$1

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" >/dev/null
mkdir -p build-fuzz/crashes
status=0
for bin in build-fuzz/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    work="build-fuzz/corpus/$name"
    mkdir -p "$work"
    echo "fuzz: $name for ${secs}s"
    if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="build-fuzz/crashes/$name-" \
            "$work" "fuzz/corpus/$name" >"build-fuzz/$name.log" 2>&1; then
        echo "fuzz: $name FAILED; see build-fuzz/$name.log" >&2
        tail -40 "build-fuzz/$name.log" >&2
        status=1
    fi
done
exit $status
