# weir init --language python scaffolds the medallion as pyspark.pipelines
# files; weir runs them with the real pyspark-client 4.2.0 (through its
# Spark Connect endpoint) to the same tables as the SQL scaffold, and a
# second run processes nothing new.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

run_weir init --language python demo
expect_exit 0
expect_file_exists demo/transformations/orders_bronze.py
expect_file_contains demo/transformations/orders_silver.py "from pyspark import pipelines as dp"
expect_no_file demo/transformations/orders_bronze.sql
cd demo

run_weir run
expect_exit 0
expect_stdout_contains "transformations/orders_bronze.py..."
expect_stdout_matches "Importing .*/demo/transformations/daily_revenue.py\.\.\.$"
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
expect_query "SELECT order_date, orders, revenue FROM daily_revenue ORDER BY order_date" \
"order_date,orders,revenue
2026-01-05,9,572.13
2026-01-06,9,460.93
2026-01-07,10,735.57"

# Again: every file was read already.
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"

# dry-run and graph see the Python datasets; query and events need no Python.
run_weir dry-run
expect_exit 0
expect_stdout_contains "orders_silver"
run_weir graph
expect_exit 0
expect_stdout_contains "daily_revenue"
WEIR_PYTHON=/nonexistent run_weir query "SELECT count(*) AS n FROM daily_revenue"
expect_exit 0
