# Delta sink: a streaming append flow writes a real Delta Lake table (JSON
# log, Parquet data partitioned by k, a txn action per batch), checked by
# an independent reader (the deltalake package): rows exactly once, schema,
# partition columns, version history and txn versions. An additive schema
# change updates the table's metaData; an incompatible one fails the flow
# without writing. `weir query` reads the table through its log, so files
# another writer removed (deltalake's DELETE) are not read, and weir keeps
# appending after that writer's commit. Full refresh sends every row again
# under a new txn generation and warns.

py=$(weir_python)
check() { # check.py args: see ../sink-common/check.py
    "$py" "$E2E_CASE/../sink-common/check.py" delta out/lake --partitions k "$@" \
        >"$E2E_OUT/check.txt" 2>"$E2E_OUT/check.err" ||
        e2e_fail "$(cat "$E2E_OUT/check.txt" "$E2E_OUT/check.err")"
    e2e_pass
}
schema="id:long,k:string,s:string,amount:decimal(12,2),ts:timestamp"
insert() { # FROM TO
    run_weir query "INSERT INTO src SELECT id, CASE id % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b c/d=%' END, concat('s', id) FROM range($1, $2) AS t(id)"
    expect_exit 0
}

run_weir query "CREATE TABLE src (id BIGINT, k STRING, s STRING)"
insert 0 1000
run_weir run
expect_exit 0
check --ids 1000 --schema "$schema" --version 0 --txn to_delta=0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, count(k) AS k, max(ts) AS ts FROM delta.\`out/lake\`" "n,d,k,ts
1000,1000,667,2024-01-01 00:16:39"
expect_query "SELECT k, count(*) AS n FROM delta_scan('out/lake') GROUP BY k ORDER BY k" "k,n
,333
a,334
b c/d=%,333"
expect_equal "log" "$(ls out/lake/_delta_log)" "00000000000000000000.json"
expect_file_contains out/lake/_delta_log/00000000000000000000.json '{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}'
expect_file_contains out/lake/_delta_log/00000000000000000000.json '"partitionColumns":["k"]'
expect_file_contains out/lake/_delta_log/00000000000000000000.json '"path":"k=b%2520c%252Fd%253D%2525/part-'
expect_dir_exists out/lake/k=__HIVE_DEFAULT_PARTITION__

# More rows: version 1, txn 1. No new rows: no new version.
insert 1000 2500
run_weir run
expect_exit 0
run_weir run
expect_exit 0
check --ids 2500 --schema "$schema" --version 1 --txn to_delta=1

# An additive schema change: the next commit carries the wider metaData;
# older rows read NULL for the new column.
sed -i 's/^FROM STREAM src;/, upper(s) AS extra FROM STREAM src;/' transformations/pipeline.sql
insert 2500 3000
run_weir run
expect_exit 0
check --ids 3000 --schema "$schema,extra:string" --version 2 --null-column extra=2500
expect_query "SELECT count(extra) AS n FROM read_delta('out/lake')" "n
500"

# An incompatible change fails the flow before anything is written.
cp transformations/pipeline.sql "$E2E_OUT/good.sql"
sed -i 's/CAST(id AS DECIMAL(12, 2)) AS amount/concat(id, '"'"'!'"'"') AS amount/' transformations/pipeline.sql
insert 3000 3100
run_weir run
expect_exit 1
expect_stdout_contains "DELTA_FAILED_TO_MERGE_FIELDS"
expect_stdout_contains 'column amount has type "decimal(12,2)" in the Delta table but "string" in the batch'
check --ids 3000 --version 2
cp "$E2E_OUT/good.sql" transformations/pipeline.sql
run_weir run
expect_exit 0
check --ids 3100 --version 3 --txn to_delta=3

# Full refresh: a new generation of batches, a larger txn version.
run_weir run --full-refresh lake
expect_exit 0
expect_stdout_contains "Full refresh of sink lake resets its flows' checkpoints but does not delete data already written: the sink will receive all source data again."
check --ids 3100 --copies 2 --version 4 --txn to_delta=4294967296

# Another writer deletes rows (remove + add actions); weir reads only the
# active files and appends after that commit.
"$py" - <<'PY' >"$E2E_OUT/delete.txt" 2>"$E2E_OUT/delete.err"
import os, sys
from deltalake import DeltaTable
dt = DeltaTable("out/lake")
dt.delete("id < 100")
print(DeltaTable("out/lake").version())
sys.stdout.flush()
os._exit(0)
PY
expect_file_contains "$E2E_OUT/delete.txt" "5"
expect_query "SELECT count(*) AS n, min(id) AS lo FROM delta.\`out/lake\`" "n,lo
6000,100"
insert 3100 3200
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM delta.\`out/lake\`" "n,d
6100,3100"
"$py" - <<'PY' >"$E2E_OUT/after.txt" 2>"$E2E_OUT/after.err"
import os, sys
from deltalake import DeltaTable
dt = DeltaTable("out/lake")
t = dt.to_pyarrow_table()
print(dt.version(), t.num_rows, dt.transaction_version("to_delta"))
sys.stdout.flush()
os._exit(0)
PY
expect_file_contains "$E2E_OUT/after.txt" "6 6100 4294967297"

# A path that is not a Delta table.
run_weir query "SELECT * FROM delta.\`out/nothing\`"
expect_exit 2
expect_stderr_contains "DELTA_TABLE_NOT_FOUND"
run_weir query "SELECT * FROM delta_scan('out/nothing')"
expect_exit 2
expect_stderr_contains "DELTA_TABLE_NOT_FOUND"

# A pipeline query reads the table by path too (delta.`path`).
cd reader
run_weir run
expect_exit 0
expect_query "SELECT * FROM lake_summary" "n,d,lo
6100,3100,100"
