#!/usr/bin/env bash
# Heavy check (not part of scripts/test.sh; run it by hand or with
# `ctest -L heavy`): the benchmark's medallion pipeline (bronze from 10
# million JSON-lines orders, customers, silver with a join and three
# expectations, gold) completes its first update under a 2 GB DuckDB memory
# limit, spilling to <storage>/tmp, with every row accounted for.
#   tests/heavy/medallion-10m.sh PATH/TO/weir [ROWS [LIMIT]]   (LIMIT: 2GB)
# Reuses bench/data/orders-10m and customers when bench/run.sh --full
# generated them.
set -euo pipefail
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rows=${2:-10000000}
limit=${3:-2GB}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/weir-heavy.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$root/bench/projects/medallion/." "$work/"
cd "$work"
printf 'configuration:\n  weir.duckdb.memory_limit: "%s"\n' "$limit" >>spark-pipeline.yml
mkdir -p data
if [ "$rows" = 10000000 ] && [ -f "$root/bench/data/orders-10m.done" ]; then
    ln -s "$root/bench/data/orders-10m" data/orders
else
    python3 "$root/bench/gen.py" orders data/orders "$rows" --files 100
fi
if [ -f "$root/bench/data/customers.done" ]; then
    ln -s "$root/bench/data/customers" data/customers
else
    python3 "$root/bench/gen.py" customers data/customers 10000
fi
/usr/bin/time -f "%e s elapsed, peak RSS %M KB" -o time.txt "$weir" run --quiet
counts=$("$weir" query --format csv "SELECT (SELECT count(*) FROM orders_bronze) AS b, (SELECT count(*) FROM orders_silver) AS s, (SELECT count(*) FROM orders_bronze WHERE coalesce(amount >= 0, false)) AS pass, (SELECT sum(orders) FROM revenue_by_day) AS g" | tail -1)
echo "medallion $rows rows under a $limit limit: $(cat time.txt); bronze,silver,passing,gold = $counts"
IFS=, read -r b s pass g <<<"$counts"
[ "$b" = "$rows" ] && [ "$s" = "$pass" ] && [ "$g" = "$s" ]
