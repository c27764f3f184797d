# Parquet sink: a streaming append flow writes a partitioned,
# zstd-compressed folder of Parquet files. Each run appends only the new
# rows, exactly once; a run without new data writes nothing; full refresh
# sends every row again (the sink keeps what it has, as in Spark) and
# warns about it. Read back with stock DuckDB.

py=$(weir_python)
check() { # check.py args: see ../sink-common/check.py
    "$py" "$E2E_CASE/../sink-common/check.py" "$@" >"$E2E_OUT/check.txt" \
        2>"$E2E_OUT/check.err" || e2e_fail "$(cat "$E2E_OUT/check.txt" "$E2E_OUT/check.err")"
    e2e_pass
}

run_weir query "CREATE TABLE src (id BIGINT, k INT, s STRING)"
expect_exit 0
run_weir query "INSERT INTO src SELECT id, CAST(id % 4 AS INT), concat('s', id) FROM range(0, 1000) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
check parquet out/orders --ids 1000
expect_equal "partition folders" "$(ls out/orders | tr '\n' ' ')" "k=0 k=1 k=2 k=3 "
expect_equal "staged files left" "$(find storage/sinks -type f | wc -l)" 0

# New rows: only they are appended.
run_weir query "INSERT INTO src SELECT id, CAST(id % 4 AS INT), concat('s', id) FROM range(1000, 2500) AS t(id)"
run_weir run
expect_exit 0
check parquet out/orders --ids 2500
expect_equal "files" "$(find out/orders -type f | wc -l)" 8

# Nothing new: nothing written.
run_weir run
expect_exit 0
expect_equal "files after an idle run" "$(find out/orders -type f | wc -l)" 8
expect_query "SELECT state, count(*) AS n, sum(rows) AS r FROM spark_catalog._weir.sink_batches GROUP BY state" "state,n,r
published,2,2500"

# zstd inside, partition values in the folder names only.
"$py" - <<'PY' >"$E2E_OUT/meta.txt"
import duckdb
print(duckdb.sql("SELECT DISTINCT compression FROM parquet_metadata('out/orders/*/*.parquet')").fetchall())
print(duckdb.sql("SELECT DISTINCT path_in_schema FROM parquet_metadata('out/orders/*/*.parquet') ORDER BY 1").fetchall())
PY
expect_file_contains "$E2E_OUT/meta.txt" "[('ZSTD',)]
[('id',), ('s',)]"

# Full refresh of the sink: its checkpoint starts over, the rows come again.
run_weir run --full-refresh orders_out
expect_exit 0
expect_stdout_contains "Full refresh of sink orders_out resets its flows' checkpoints but does not delete data already written: the sink will receive all source data again."
check parquet out/orders --ids 2500 --copies 2
expect_equal "files of generation 1" "$(find out/orders -name 'part-*-g1-b0-*' | wc -l)" 4
