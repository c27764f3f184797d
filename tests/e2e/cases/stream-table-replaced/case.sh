# A table read with STREAM that is replaced as a whole (INSERT OVERWRITE,
# CREATE OR REPLACE, by weir or by a stock DuckDB process) reaches its
# streaming reader as new data: all of its new rows, none lost to the old
# row position. Appends after a replacement are read as before.
write_spec replaced
echo "CREATE STREAMING TABLE dst AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir query "CREATE TABLE src AS SELECT 1 AS id"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT id FROM dst ORDER BY id" "id
1"
# Overwritten from (1) to (2), (3): the reader gets both new rows.
run_weir query "INSERT OVERWRITE src VALUES (2), (3)"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT id FROM dst ORDER BY id" "id
1
2
3"
run_weir events --format csv
expect_stdout_contains "The streaming source spark_catalog.default.src was replaced (none of the 1 row(s) flow 'spark_catalog.default.dst' read is left): its rows are read as new data."
# Nothing new: nothing read.
run_weir run
expect_exit 0
expect_stdout_contains "(1 streaming flows had no new data)"
# Replaced by another process with 150 rows: 150 rows reach the reader.
py=$(weir_python)
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("CREATE OR REPLACE TABLE \"default\".src AS SELECT CAST(range + 100 AS INT) AS id FROM range(150)")'
run_weir run
expect_exit 0
expect_stdout_contains "wrote 150 rows"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, min(id) AS lo, max(id) AS hi FROM dst WHERE id >= 100" "n,d,lo,hi
150,150,100,249"
# Then appended to: only the new row.
run_weir query "INSERT INTO src VALUES (7)"
expect_exit 0
run_weir run
expect_exit 0
expect_stdout_contains "wrote 1 rows"
expect_query "SELECT count(*) AS n FROM dst" "n
154"
