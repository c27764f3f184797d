# Rows deleted from a streaming source behind the reader's back stop the
# reader with STREAMING_SOURCE_CHANGED, and the message counts the rows
# read that are left (4 of 10), not row ids. (`weir query`
# refuses to delete from a pipeline table, so stock DuckDB does it.)
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM dst" "n
10"
py=$(weir_python)
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("DELETE FROM \"default\".src WHERE id < 5 OR id = 9")'
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_SOURCE_CHANGED] The streaming source spark_catalog.default.src changed rows that flow 'spark_catalog.default.dst' already processed (4 of the 10 row(s) it read are left unchanged)."
expect_query "SELECT count(*) AS n FROM dst" "n
10"
