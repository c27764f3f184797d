# weir init --language python scaffolds the medallion as pyspark.pipelines
# files; weir runs them with the real pyspark-client 4.2.0 (through its
# Spark Connect endpoint) to the same tables as the SQL scaffold, and a
# second run processes nothing new.
expect_python_scaffold_runs 4.2.0

# The scaffold's test passes on its fixture rows.
expect_file_exists tests/daily_revenue.yml
run_weir test
expect_exit 0
expect_stdout_matches "^1 tests?: 1 passed, 0 failed"

# dry-run and graph see the Python datasets; query and events need no Python.
run_weir dry-run
expect_exit 0
expect_stdout_contains "orders_silver"
run_weir graph
expect_exit 0
expect_stdout_contains "daily_revenue"
WEIR_PYTHON=/nonexistent run_weir query "SELECT count(*) AS n FROM daily_revenue"
expect_exit 0
