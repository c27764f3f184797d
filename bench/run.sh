#!/usr/bin/env bash
# weir's benchmarks, one command (issue 9).
#
#   bench/run.sh                 quick set, under 5 minutes: medallion at 100K
#                                (weir, raw DuckDB, dbt-duckdb) and 1M (weir vs
#                                DuckDB, cost of expectations), increment, wide
#                                graph, dry-run and start latency
#   bench/run.sh --full          full set, about 30 minutes: medallion and
#                                increment at 100K, 1M and 10M rows, with Apache
#                                Spark's spark-pipelines (when Java is present)
#   bench/run.sh --weir PATH     benchmark that binary instead of building one
#   bench/run.sh [...] --only medallion,wide,latency --sizes 1m --runs 3
#                --no-spark --no-dbt
#
# Builds the release binary (cmake preset `release`, build/weir) unless
# --weir is given, then snapshots it into bench/work/bin so a rebuild by
# someone else during the run does not change the binary under test.
# Generated data goes to bench/data/, projects and venvs to bench/work/
# (both gitignored). Prints a table of medians and ratios; the raw figures
# are saved in bench/work/results/. See bench/README.md.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
args=()
weir=""
while [ $# -gt 0 ]; do
    case "$1" in
    --weir) weir=$2; shift 2 ;;
    --weir=*) weir=${1#--weir=}; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
    esac
done
start=$(date +%s)
if [ -z "$weir" ]; then
    echo "[bench] building the release binary (cmake --preset release)" >&2
    (cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release >/dev/null)
    # A private copy of the binary and the library it loads; bench.py puts
    # that folder first on LD_LIBRARY_PATH (searched before weir's RUNPATH).
    mkdir -p "$bench/work/bin"
    rm -f "$bench/work/bin/"*
    cp "$root/build/weir" "$bench/work/bin/weir"
    cp -P "$root"/build/libweir.so* "$bench/work/bin/"
    weir=$bench/work/bin/weir
fi
python3 "$bench/bench.py" --weir "$weir" ${args[@]+"${args[@]}"}
echo "[bench] done in $(( $(date +%s) - start )) s" >&2
