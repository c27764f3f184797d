#!/usr/bin/env bash
# AUTO CDC benchmark (issue 17; goal: within 1.3x of the floor): 1M changes
# over 100K keys in 10 batches, SCD 1 and SCD 2, `weir run` per batch
# against a hand-written DuckDB MERGE script (bench/cdc_bench.py).
#   bench/cdc.sh [ARGS]             (builds the release binary)
#   WEIR=path/to/weir bench/cdc.sh  (use that binary, build nothing)
# ARGS go to cdc_bench.py (--changes, --keys, --batches, --work).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ -z "${WEIR:-}" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target weir >/dev/null
fi
weir=$(realpath "${WEIR:-$root/build/weir}")
py="${WEIR_BENCH_PYTHON:-$root/build-pyenv/bin/python3}"
# The floor's script runner, on the libduckdb weir links.
duck="$root/.deps/duckdb"
mkdir -p "$root/bench/work"
cc -O2 -std=c11 -o "$root/bench/work/duckscript" "$root/bench/tools/duckscript.c" \
    -I"$duck/include" -L"$duck/lib" -lduckdb -Wl,-rpath,"$duck/lib"
"$py" "$root/bench/cdc_bench.py" --weir "$weir" \
    --duckscript "$root/bench/work/duckscript" "$@"
