# A dataset of the pipeline is read-only to weir query: DROP TABLE bronze
# used to succeed, the next run recreated bronze empty, and its streaming
# readers never got the new rows ("no new data"). A table dropped behind
# weir's back anyway (stock DuckDB) stops the update with
# STREAMING_TABLE_MISSING instead of silently starting over.

run_weir init demo
cd demo
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM orders_bronze) AS b, (SELECT count(*) FROM orders_silver) AS s" "b,s
30,28"

refused() { # SQL
    run_weir query "$1"
    expect_exit 2
    expect_stderr_contains "[PIPELINE_DATASET_READ_ONLY]"
    expect_stderr_contains "weir run --full-refresh"
}
refused "DROP TABLE orders_bronze"
refused "DROP TABLE IF EXISTS spark_catalog.default.Orders_Bronze"
refused "USE spark_catalog.default; DROP TABLE \`orders_bronze\`"
refused "CREATE OR REPLACE TABLE orders_bronze AS SELECT 1 AS x"
refused "TRUNCATE TABLE orders_silver"
refused "DELETE FROM orders_silver WHERE amount > 100"
refused "UPDATE orders_silver SET amount = 0"
refused "INSERT INTO orders_bronze SELECT * FROM orders_bronze"
refused "INSERT OVERWRITE orders_silver SELECT * FROM orders_silver"
refused "ALTER TABLE orders_bronze ADD COLUMNS (x INT)"
refused "DROP TABLE daily_revenue"
refused "CREATE OR REPLACE VIEW default.daily_revenue AS SELECT 1 AS x"
run_weir query "DROP SCHEMA default CASCADE"
expect_exit 2
expect_stderr_contains "[PIPELINE_DATASET_READ_ONLY] schema default holds datasets of the pipeline"
# Reads, and creating tables of one's own, are fine.
expect_query "CREATE TABLE IF NOT EXISTS orders_bronze (x INT); CREATE TABLE mine AS SELECT * FROM orders_silver; SELECT count(*) AS n FROM mine" "n
28"

# Nothing was lost: a new file reaches bronze and silver.
cp data/landing/orders/orders-0001.json data/landing/orders/orders-0004.json
sed -i 's/"order_id": 10/"order_id": 40/' data/landing/orders/orders-0004.json
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM orders_bronze) AS b, (SELECT count(*) FROM orders_silver) AS s" "b,s
40,37"

# Dropped with stock DuckDB: the update stops, naming the table.
py=$(weir_python)
"$py" -c 'import duckdb; duckdb.connect("pipeline-storage/spark_catalog.duckdb").execute("DROP TABLE \"default\".orders_bronze")'
cp data/landing/orders/orders-0002.json data/landing/orders/orders-0005.json
sed -i 's/"order_id": 10/"order_id": 50/' data/landing/orders/orders-0005.json
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_TABLE_MISSING]"
expect_stdout_contains "weir run --full-refresh orders_bronze"
expect_query "SELECT count(*) AS s FROM orders_silver" "s
37"
# The full refresh it asks for rebuilds bronze; silver then must be
# refreshed too (STREAMING_SOURCE_RESET), and ends with every row.
run_weir run --full-refresh orders_bronze,orders_silver
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM orders_bronze) AS b, (SELECT count(*) FROM orders_silver) AS s" "b,s
50,46"
