# Once flows (backfills) run a single time per full refresh of their target.

run_weir query "CREATE TABLE live_orders AS SELECT id FROM range(3)"
expect_exit 0

run_weir run
expect_exit 0
expect_query "SELECT origin, count(*) AS n FROM orders GROUP BY origin ORDER BY origin" "origin,n
history,5
late,2
live,3"

# Second run: the backfills are IDLE, only new live rows arrive.
run_weir query "INSERT INTO live_orders VALUES (3), (4)"
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.backfill' is IDLE, waiting for new data."
expect_stdout_contains "Flow 'spark_catalog.default.backfill_late' is IDLE, waiting for new data."
expect_query "SELECT origin, count(*) AS n FROM orders GROUP BY origin ORDER BY origin" "origin,n
history,5
late,2
live,5"

# A full refresh of the target runs them again, exactly once.
run_weir run --full-refresh orders
expect_exit 0
expect_stdout_not_contains "IDLE"
expect_query "SELECT origin, count(*) AS n FROM orders GROUP BY origin ORDER BY origin" "origin,n
history,5
late,2
live,5"
run_weir run
expect_stdout_contains "Flow 'spark_catalog.default.backfill' is IDLE, waiting for new data."
expect_query "SELECT count(*) AS n FROM orders" "n
12"

# A once flow must be a batch query.
cat > transformations/bad.sql <<'SQL'
CREATE FLOW bad_once AS INSERT INTO ONCE orders BY NAME
SELECT id, 'x' AS origin FROM STREAM(live_orders);
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.sql:1:1: error: [INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_ONCE_FLOW]"
