#!/usr/bin/env bash
# Object storage benchmarks (issue 43), on S3Proxy (scripts/s3.sh) on
# loopback, with the floor measured in the same run:
#   ingest: `weir run` of a streaming table reading ROWS rows of JSON in
#           OBJECTS objects of one prefix (STREAM read_files, a given
#           schema) vs stock DuckDB 1.4.4 (the pinned Python package of
#           scripts/pyenv.sh) running read_json over the same objects
#           through the same httpfs extension into a table (the floor);
#   list:   a prefix of LIST objects of which 10 are new since the last
#           update: `weir run` of a streaming table that reads them (the
#           whole prefix is listed) vs DuckDB's own listing of the prefix
#           (SELECT count(*) FROM glob(...)).
#   bench/objstore.sh [ROWS [OBJECTS [LIST]]]   (default 1,000,000 rows in
#                                                100 objects; 10,000)
#   WEIR=path/to/weir bench/objstore.sh          (build nothing)
# Medians of 3. Objects are written straight into the server's folder
# (its filesystem backend serves them). Writes bench/work/objstore-latest.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-1000000}
objects=${2:-100}
list=${3:-10000}
cd "$root"
if [ -z "${WEIR:-}" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$(nproc)" --target weir >/dev/null
    WEIR=$root/build/weir
fi
py=$(scripts/pyenv.sh)
work=$root/bench/work/objstore
rm -rf "$work"
mkdir -p "$work"
srv=$work/s3
endpoint=$(scripts/s3.sh start "$srv")
trap 'scripts/s3.sh stop "$srv"' EXIT
scripts/s3.sh mb "$srv" bench
data=$srv/data/bench

python3 - "$data/ingest" "$rows" "$objects" <<'PY'
import os, sys
d, rows, objs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
per = rows // objs
for o in range(objs):
    with open(f"{d}/part-{o:05d}.json", "w") as f:
        base = o * per
        f.write("".join(f'{{"id":{base + i},"name":"n{(base + i) % 997}","amount":{(base + i) % 1000}.5}}\n'
                        for i in range(per)))
PY
mkdir -p "$data/list"
for i in $(seq 1 "$list"); do printf '{"id":%d}\n' "$i" > "$data/list/o$i.json"; done

proj=$work/project
mkdir -p "$proj/t"
cat > "$proj/spark-pipeline.yml" <<YML
name: objbench
storage: storage
libraries:
  - glob:
      include: t/**
configuration:
  spark.hadoop.fs.s3a.endpoint: $endpoint
  spark.hadoop.fs.s3a.path.style.access: "true"
  spark.hadoop.fs.s3a.access.key: weir-test
  spark.hadoop.fs.s3a.secret.key: weir-test-secret
YML

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }

weir_ingest() {
    cat > "$proj/t/p.sql" <<'SQL'
CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_files('s3://bench/ingest',
  format => 'json', schema => 'id BIGINT, name STRING, amount DOUBLE');
SQL
    rm -rf "$proj/storage"
    local t0 t1
    t0=$(now)
    (cd "$proj" && "$WEIR" run --quiet >/dev/null)
    t1=$(now)
    echo "$t1 - $t0" | bc
}

duck_ingest() {
    "$py" - "$endpoint" "$root/.deps/duckdb/lib/duckdb_extensions" <<'PY'
import duckdb, sys, time
ep, ext = sys.argv[1], sys.argv[2]
c = duckdb.connect(config={"extension_directory": ext, "autoinstall_known_extensions": False})
c.execute("LOAD httpfs")
c.execute(f"CREATE SECRET (TYPE s3, KEY_ID 'weir-test', SECRET 'weir-test-secret', "
          f"ENDPOINT '{ep[len('http://'):]}', USE_SSL false, URL_STYLE 'path')")
t0 = time.time()
c.execute("CREATE TABLE t AS SELECT * FROM read_json('s3://bench/ingest/*', "
          "columns = {'id': 'BIGINT', 'name': 'VARCHAR', 'amount': 'DOUBLE'})")
print(round(time.time() - t0, 3))
PY
}

weir_list() {
    cat > "$proj/t/p.sql" <<'SQL'
CREATE STREAMING TABLE l AS SELECT * FROM STREAM read_files('s3://bench/list',
  format => 'json', schema => 'id BIGINT');
SQL
    rm -rf "$proj/storage"
    (cd "$proj" && "$WEIR" run --quiet >/dev/null)
    local out=()
    for r in 1 2 3; do
        for i in $(seq 1 10); do
            printf '{"id":%d}\n' "$i" > "$data/list/new-$r-$i.json"
        done
        local t0 t1
        t0=$(now)
        (cd "$proj" && "$WEIR" run --quiet >/dev/null)
        t1=$(now)
        echo "$t1 - $t0" | bc
    done
}

duck_list() {
    "$py" - "$endpoint" "$root/.deps/duckdb/lib/duckdb_extensions" <<'PY'
import duckdb, sys, time
ep, ext = sys.argv[1], sys.argv[2]
c = duckdb.connect(config={"extension_directory": ext, "autoinstall_known_extensions": False})
c.execute("LOAD httpfs")
c.execute(f"CREATE SECRET (TYPE s3, KEY_ID 'weir-test', SECRET 'weir-test-secret', "
          f"ENDPOINT '{ep[len('http://'):]}', USE_SSL false, URL_STYLE 'path')")
t0 = time.time()
c.execute("SELECT count(*) FROM glob('s3://bench/list/*')").fetchall()
print(round(time.time() - t0, 3))
PY
}

wi=$(for _ in 1 2 3; do weir_ingest; done | median)
di=$(for _ in 1 2 3; do duck_ingest; done | median)
wl=$(weir_list | median)
dl=$(for _ in 1 2 3; do duck_list; done | median)
ratio=$(echo "scale=2; $wi / $di" | bc)
{
    echo "| benchmark | weir (s) | DuckDB floor (s) | ratio |"
    echo "|---|---|---|---|"
    echo "| ingest $rows rows in $objects objects | $wi | $di | $ratio |"
    echo "| update with 10 new of $list objects (weir run) vs listing them (glob) | $wl | $dl | $(echo "scale=2; $wl / $dl" | bc) |"
} | tee bench/work/objstore-latest.md
