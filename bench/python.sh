#!/usr/bin/env bash
# The price of Python pipelines (issue 13): the Python medallion
# (`weir init --language python`) against the SQL one (`weir init`) on the
# same data, side by side, on the release build, with the interpreter's and
# pyspark-client's own start-up measured separately. See RESULTS.md,
# "Python pipelines".
#
#   bench/python.sh                  build the release binary, 10 runs each
#   bench/python.sh --weir PATH      that binary instead
#   bench/python.sh --python PATH    that Python (default: scripts/pyclient.sh)
#   bench/python.sh --runs N --wide N
#
# Projects go to bench/work/python/, the figures to
# bench/work/results/python-latest.json.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
weir="" python="" args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --weir) weir=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
    esac
done
if [ -z "$weir" ]; then
    echo "[python-bench] building the release binary (cmake --preset release)" >&2
    (cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release >/dev/null)
    mkdir -p "$bench/work/bin-python"
    rm -f "$bench/work/bin-python/"*
    cp "$root/build/weir" "$bench/work/bin-python/weir"
    cp -P "$root"/build/libweir.so* "$bench/work/bin-python/"
    weir=$bench/work/bin-python/weir
    export LD_LIBRARY_PATH="$bench/work/bin-python${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -n "$python" ] || python=$("$root/scripts/pyclient.sh" 4.2.0)
mkdir -p "$bench/work/results"
echo "[python-bench] $("$weir" --version), $("$python" --version 2>&1), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 "$bench/python_bench.py" --weir "$weir" --python "$python" \
    --json "$bench/work/results/python-latest.json" ${args[@]+"${args[@]}"}
