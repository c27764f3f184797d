#!/usr/bin/env bash
# Stateful streaming benchmark (issue 41; goal: an update of 1% new events
# costs at most 5% of the initial load): 10M events, a window aggregation
# and two deduplications (bench/stateful_bench.py; stateful-RESULTS.md).
#   bench/stateful.sh [ARGS]             (builds the release binary)
#   WEIR=path/to/weir bench/stateful.sh  (use that binary, build nothing)
# ARGS go to stateful_bench.py (--events, --updates, --work).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ -z "${WEIR:-}" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target weir >/dev/null
fi
weir=$(realpath "${WEIR:-$root/build/weir}")
py="${WEIR_BENCH_PYTHON:-$root/build-pyenv/bin/python3}"
client=$("$root/scripts/pyclient.sh" 4.2.0)
"$py" "$root/bench/stateful_bench.py" --weir "$weir" --python "$client" "$@"
