#!/usr/bin/env bash
# Build the libFuzzer targets with clang (preset "fuzz") and fuzz each one.
#   scripts/fuzz.sh --short     a bounded run for CI (part of scripts/test.sh):
#                               the targets share a 60 s budget, run in
#                               parallel on the available cores
#   scripts/fuzz.sh [SECONDS]   longer runs (default 300 s per target)
# New inputs that libFuzzer finds go to build-fuzz/corpus/<target> (not
# committed). A crash, leak or timeout fails the script; its input is saved
# as fuzz/corpus/<target>/crash-<sha1>, so that the seed replay (ctest
# fuzz-replay/*) keeps it as a regression test once committed with the fix.
# WEIR_FUZZ_DIR builds somewhere else than build-fuzz (same settings).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
short=
secs=300
case "${1:-}" in
--short) short=1 ;;
"") ;;
*[!0-9]*) echo "usage: scripts/fuzz.sh [--short | SECONDS]" >&2; exit 2 ;;
*) secs=$1 ;;
esac

dir=${WEIR_FUZZ_DIR:-build-fuzz}
mkdir -p "$dir"
if ! command -v clang-14 >/dev/null; then
    echo "fuzz: clang-14 is missing (scripts/bootstrap.sh installs it)" >&2
    exit 1
fi
if [ -n "${WEIR_FUZZ_DIR:-}" ]; then
    configure=(cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug
               -DCMAKE_C_COMPILER=clang-14 -DWEIR_FUZZ=ON -DWEIR_TESTS=OFF)
else
    configure=(cmake --preset fuzz)
fi
# Only the fuzz targets and the modules they link (not the engine or CLI).
names=()
for src in fuzz/fuzz_*.c; do
    names+=("$(basename "$src" .c)")
done
if ! "${configure[@]}" >"$dir/configure.log" 2>&1 ||
    ! cmake --build "$dir" -j "$(nproc)" --target "${names[@]}" >"$dir/build.log" 2>&1; then
    echo "fuzz: building the targets failed:" >&2
    tail -n 30 "$dir/configure.log" "$dir/build.log" >&2
    exit 1
fi

targets=()
for name in "${names[@]}"; do
    [ -x "$dir/fuzz/$name" ] && targets+=("$dir/fuzz/$name")
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets built" >&2; exit 1; }
jobs=$(nproc)
[ "$jobs" -ge 1 ] || jobs=1
[ "$jobs" -le ${#targets[@]} ] || jobs=${#targets[@]}
if [ -n "$short" ]; then
    # A total budget of 60 s: rounds of $jobs targets at a time.
    rounds=$(((${#targets[@]} + jobs - 1) / jobs))
    secs=$((60 / rounds))
fi

mkdir -p "$dir/crashes"
fuzz_one() { # binary
    local name work
    name=$(basename "$1")
    work="$dir/corpus/$name"
    mkdir -p "$work"
    "$1" -max_total_time="$secs" ${short:+-seed=1} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/$name-" "$work" "fuzz/corpus/$name" \
        >"$dir/$name.log" 2>&1
}

echo "fuzz: ${#targets[@]} targets, ${secs}s each, $jobs at a time"
status=0
pids=()
names=()
for bin in "${targets[@]}"; do
    fuzz_one "$bin" &
    pids+=($!)
    names+=("$(basename "$bin")")
    if [ ${#pids[@]} -ge "$jobs" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do
    wait "$p" || status=1
done

for name in "${names[@]}"; do
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$name.log" | tail -n 1)
    echo "fuzz: $name: ${runs:-?} runs"
done
for crash in "$dir"/crashes/*; do
    [ -f "$crash" ] || continue
    base=$(basename "$crash")
    target=${base%%-*}
    sum=$(sha1sum "$crash" | cut -c1-16)
    dest="fuzz/corpus/$target/crash-$sum"
    cp "$crash" "$dest"
    echo "fuzz: $target found a failing input, saved as $dest:" >&2
    grep -m 3 -E "ERROR|SUMMARY|runtime error|Timeout" "$dir/$target.log" >&2 || true
    rm -f "$crash"
    status=1
done
if [ "$status" != 0 ]; then
    echo "fuzz: FAILED; logs in $dir/<target>.log. Fix the bug and commit the saved input." >&2
fi
exit $status
