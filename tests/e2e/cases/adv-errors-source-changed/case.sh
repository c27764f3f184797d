# Rows deleted from a streaming source behind the reader's back stop the
# reader with STREAMING_SOURCE_CHANGED, and the message quotes the rows
# the source has left (4 here), not its last row id + 1 (9). (`weir query`
# refuses to delete from a pipeline table, so stock DuckDB does it.)
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM dst" "n
10"
py=$(weir_python)
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("DELETE FROM \"default\".src WHERE id < 5 OR id = 9")'
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_SOURCE_CHANGED] The streaming source spark_catalog.default.src has fewer rows (4) than flow 'spark_catalog.default.dst' already processed (10)"
expect_query "SELECT count(*) AS n FROM dst" "n
10"
