#!/usr/bin/env bash
# The demo, from a fresh machine: install dependencies, build weir (the CLI
# lands at build/weir), create the example medallion project in
# build/demo, run it twice (the second run finds nothing new), add a
# landing file, run again, and show the tables and the data-quality
# metrics.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

./scripts/bootstrap.sh
echo "== building weir (a few minutes the first time; the log is build/build.log)"
mkdir -p build
if ! { cmake --preset release && cmake --build --preset release -j "$(nproc)"; } \
        >build/build.log 2>&1; then
    tail -n 30 build/build.log >&2
    echo "demo.sh: the build failed; its whole log is build/build.log" >&2
    exit 1
fi
weir="$root/build/weir"

rm -rf build/demo
cd build
"$weir" init demo
cd demo

echo; echo "== weir dry-run"; "$weir" dry-run
echo; echo "== weir run"; "$weir" run
echo; echo "== weir run (again: nothing new)"; "$weir" run
echo; echo "== a new landing file, weir run"
cat > data/landing/orders/orders-0004.json <<'JSON'
{"order_id": 1031, "customer_id": 7, "amount": 42.50, "order_ts": "2026-01-08 09:15:00", "status": "placed"}
{"order_id": 1032, "customer_id": 3, "amount": 17.25, "order_ts": "2026-01-08 11:40:00", "status": "placed"}
JSON
"$weir" run
echo; echo "== weir query"
"$weir" query "SELECT * FROM daily_revenue ORDER BY order_date"
echo; echo "== weir events --quality"
"$weir" events --quality
echo; echo "== weir graph --format mermaid"
"$weir" graph --format mermaid
echo
echo "The project is in build/demo; its storage opens in a stock DuckDB with:"
echo "  duckdb -init build/demo/pipeline-storage/open.sql"
