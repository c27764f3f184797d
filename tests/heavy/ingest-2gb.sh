#!/usr/bin/env bash
# Heavy check (not part of scripts/test.sh; run it by hand or with
# `ctest -L heavy`): a streaming table ingests a 2.3 GB JSON-lines file
# under a 1 GB DuckDB memory limit, and every row arrives.
#   tests/heavy/ingest-2gb.sh PATH/TO/weir
set -euo pipefail
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=$("$root/scripts/pyenv.sh")
work=$(mktemp -d "${TMPDIR:-/tmp}/weir-heavy.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p landing transformations
cat > spark-pipeline.yml <<'YAML'
name: big
storage: storage
configuration:
  weir.duckdb.memory_limit: "1GB"
libraries:
  - glob:
      include: transformations/**
YAML
echo "CREATE STREAMING TABLE raw AS SELECT * FROM STREAM read_files('landing', format => 'json');" > transformations/raw.sql
rows=15000000
"$py" -c "
import duckdb
duckdb.sql(\"COPY (SELECT range AS id, 'customer ' || (range % 1000) AS name, range * 1.5 AS amount, 'status-' || (range % 7) AS status, '2025-01-01T00:00:00' AS ts, repeat('x', 40) AS pad FROM range($rows)) TO 'landing/big.json' (FORMAT json)\")"
size=$(stat -c %s landing/big.json)
/usr/bin/time -f "%e s elapsed, peak RSS %M KB" -o time.txt "$weir" run --quiet
got=$("$weir" query --format csv "SELECT count(*) AS n FROM raw" | tail -1)
echo "ingested $got rows from $size bytes: $(cat time.txt)"
[ "$got" = "$rows" ]
