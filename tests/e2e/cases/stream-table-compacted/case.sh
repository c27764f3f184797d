# DuckDB renumbers row ids when it compacts deleted rows. A row deleted
# before the reader ever read the table (nothing the reader read changes)
# moves the rows appended later below the reader's old position; the
# reader still gets each of them exactly once, and no error.
write_spec compacted
echo "CREATE STREAMING TABLE dst AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir query "CREATE TABLE src AS SELECT CAST(id AS INT) AS id FROM range(5)"
expect_exit 0
py=$(weir_python)
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("DELETE FROM \"default\".src WHERE id = 0")'
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, sum(id) AS s FROM dst" "n,s
4,10"
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("INSERT INTO \"default\".src SELECT CAST(range + 100 AS INT) FROM range(10)")'
run_weir run
expect_exit 0
expect_stdout_contains "wrote 10 rows"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, sum(id) AS s FROM dst" "n,d,s
14,14,1055"
# And appends after it take the fast path again.
run_weir query "INSERT INTO src VALUES (7)"
run_weir run
expect_exit 0
expect_stdout_contains "wrote 1 rows"
expect_query "SELECT count(*) AS n FROM dst" "n
15"
