# A flow whose rows were deleted from both _weir.checkpoints and
# _weir.flow_state (with stock DuckDB) must not read its sources from the
# start again: what it wrote is still visible (the streaming table's rows,
# the sink's batch log), so the update stops with CHECKPOINT_MISSING until
# the target is fully refreshed (docs/reliability.md, "Checkpoints deleted
# from both tables").
#
# Before the fix the flow looked like one that never ran: silver held 200
# rows for 100 inputs, the once backfill ran twice, the sink received every
# row again.

py=$(weir_python)
stock_duckdb() { # SQL on storage/spark_catalog.duckdb
    "$py" -c 'import duckdb, sys; duckdb.connect("storage/spark_catalog.duckdb").execute(sys.argv[1])' "$1"
}
forget() { # FLOW: delete its rows from both tables
    stock_duckdb "DELETE FROM _weir.checkpoints WHERE flow LIKE '%$1'; DELETE FROM _weir.flow_state WHERE flow LIKE '%$1'"
}
sink_rows() {
    "$py" -c 'import duckdb; print(duckdb.sql("SELECT count(*) FROM read_parquet(\"out/silver/*.parquet\")").fetchone()[0])'
}

run_weir query "CREATE TABLE src AS SELECT id FROM range(100) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT origin, count(*) AS n FROM silver GROUP BY origin ORDER BY origin" "origin,n
history,10
live,100"
expect_equal "sink rows" "$(sink_rows)" 100

# A streaming flow.
forget silver
run_weir run
expect_exit 1
expect_stdout_contains "[CHECKPOINT_MISSING]"
expect_stdout_contains "Flow 'spark_catalog.default.silver' has FAILED."
# Not retried, so not "FAILED more than N times".
expect_stdout_contains "Run is FAILED since flow 'spark_catalog.default.silver' has failed."
expect_stdout_not_contains "more than"
expect_query "SELECT count(*) AS n FROM silver" "n
110"
run_weir run --full-refresh silver
expect_exit 0
expect_query "SELECT origin, count(*) AS n FROM silver GROUP BY origin ORDER BY origin" "origin,n
history,10
live,100"

# A once flow.
forget history
run_weir run
expect_exit 1
expect_stdout_contains "[CHECKPOINT_MISSING]"
expect_query "SELECT count(*) AS n FROM silver" "n
110"
run_weir run --full-refresh silver
expect_exit 0

# A sink flow: its batch log says what it published.
forget to_out
run_weir run
expect_exit 1
expect_stdout_contains "[CHECKPOINT_MISSING]"
expect_stdout_contains "_weir.sink_batches"
expect_equal "sink rows after the refused update" "$(sink_rows)" 100

# Not a false alarm: a new append flow into a table that other flows
# filled starts from the beginning of its own source.
run_weir run --full-refresh out
expect_exit 0
cat >>transformations/pipeline.sql <<'SQL'
CREATE FLOW more AS INSERT INTO silver BY NAME
SELECT id + 500 AS id, 'more' AS origin FROM STREAM src;
SQL
run_weir run
expect_exit 0
expect_query "SELECT origin, count(*) AS n FROM silver GROUP BY origin ORDER BY origin" "origin,n
history,10
live,100
more,100"

# The error names the file that holds the flow's state: catalog Main lives
# in main_catalog.duckdb (before: "<storage>/Main.duckdb", no such file).
cat >>transformations/pipeline.sql <<'SQL'
CREATE STREAMING TABLE Main.default.copy AS SELECT id FROM STREAM spark_catalog.default.src;
SQL
run_weir run
expect_exit 0
"$py" -c 'import duckdb, sys; duckdb.connect("storage/main_catalog.duckdb").execute(sys.argv[1])' \
    "DELETE FROM _weir.checkpoints WHERE flow LIKE '%copy'; DELETE FROM _weir.flow_state WHERE flow LIKE '%copy'"
run_weir run
expect_exit 1
expect_stdout_contains "[CHECKPOINT_MISSING]"
expect_stdout_contains "/storage/main_catalog.duckdb (schema _weir) is missing rows"
