# The workflow of issue 21 on the `weir init` project: its test passes; a
# new test of a rule the SQL lacks fails with a diff; fixing the SQL makes
# it pass; the test runs against an environment (--env) too.

run_weir init demo
expect_exit 0
cd demo
run_weir test
expect_exit 0
expect_stdout_contains "PASS daily_revenue_counts_valid_orders ("

# A new rule: cancelled orders are not revenue.
cat >tests/cancelled.yml <<'YAML'
cancelled_orders_are_not_revenue:
  given:
    - files: data/landing/orders
      rows:
        - {order_id: 1, customer_id: 7, amount: 10.00, order_ts: "2026-02-01 08:00:00", status: placed}
        - {order_id: 2, customer_id: 8, amount: 99.00, order_ts: "2026-02-01 09:00:00", status: cancelled}
  expect:
    - dataset: daily_revenue
      rows:
        - {order_date: 2026-02-01, orders: 1, revenue: 10.00}
YAML
run_weir test cancelled
expect_exit 1
expect_stdout_contains "FAIL cancelled_orders_are_not_revenue ("
expect_stdout_contains "[ROWS_DIFFER] tests/cancelled.yml:8: rows of daily_revenue differ: 1 of them (expected 1 row, got 1)"
expect_stdout_contains "~ changed:    {order_date: 2026-02-01} orders: expected 1, got 2; revenue: expected 10.00, got 109.00"

# Fix the SQL; both tests pass.
sed -i "s/^WHERE amount IS NOT NULL;/WHERE amount IS NOT NULL AND status <> 'cancelled';/" \
    transformations/orders_silver.sql
expect_file_contains transformations/orders_silver.sql "status <> 'cancelled'"
run_weir test
expect_exit 0
expect_stdout_matches "^2 tests: 2 passed, 0 failed"

# Environments apply to tests (their storage is replaced by each test's own).
cat >weir-environments.yml <<'YAML'
ci:
  storage: ci-storage
  configuration:
    unused: "1"
YAML
run_weir test --env ci
expect_exit 0
expect_stdout_matches "^2 tests: 2 passed, 0 failed"
expect_no_file ci-storage
expect_no_file pipeline-storage
run_weir test --env prod
expect_exit 2
expect_stderr_contains "[UNKNOWN_ENVIRONMENT]"
