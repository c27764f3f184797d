#!/usr/bin/env bash
# weir serve against Apache Spark Connect (issue 14): round-trip latency of
# spark.sql("SELECT 1").collect() and rows/s of toPandas() over 1M rows
# (a stored table, and a generated range), the same PySpark client against
# `weir serve --spec` (release build) and against a local Spark Connect
# server (pyspark from PyPI on Java 17), side by side in one run. See
# RESULTS.md, "weir serve".
#
#   bench/connect.sh                 build the release binary, defaults
#   bench/connect.sh --weir PATH     that binary instead
#   bench/connect.sh --rows N --pings N --runs N
#
# Work goes to bench/work/connect/, the figures to
# bench/work/results/connect-latest.json.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
weir="" args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --weir) weir=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
    esac
done
if [ -z "$weir" ]; then
    echo "[connect-bench] building the release binary (cmake --preset release)" >&2
    (cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release >/dev/null)
    mkdir -p "$bench/work/bin-connect"
    rm -f "$bench/work/bin-connect/"*
    cp "$root/build/weir" "$bench/work/bin-connect/weir"
    cp -P "$root"/build/libweir.so* "$bench/work/bin-connect/"
    weir=$bench/work/bin-connect/weir
    export LD_LIBRARY_PATH="$bench/work/bin-connect${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# The client and the Spark server: the differential tier's pinned pyspark
# (full, with the JVM side), created by tests/spark/run.sh's recipe.
venv=${SPARK_VENV:-$root/build-spark-venv}
if ! "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '4.1.4')" 2>/dev/null; then
    echo "[connect-bench] installing pyspark 4.1.4 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "pyspark[connect]==4.1.4" pyyaml
fi
mkdir -p "$bench/work/results"
echo "[connect-bench] $("$weir" --version), pyspark 4.1.4, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
export TZ=UTC SPARK_LOCAL_IP=127.0.0.1
"$venv/bin/python" "$bench/connect_bench.py" --weir "$weir" \
    --work "$bench/work/connect" \
    --json "$bench/work/results/connect-latest.json" ${args[@]+"${args[@]}"}
