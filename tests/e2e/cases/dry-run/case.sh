# weir dry-run validates without touching data and shows the resolved graph.

run_weir init demo
cd demo
run_weir dry-run
expect_exit 0
expect_stdout_contains "Starting run..."
expect_stdout_contains "Run is COMPLETED."
expect_stdout_contains "Datasets (3, in dependency order):"
expect_stdout_contains "streaming table spark_catalog.default.orders_bronze  (transformations/orders_bronze.sql:"
expect_stdout_contains "streaming table spark_catalog.default.orders_silver  (transformations/orders_silver.sql:"
expect_stdout_contains "materialized view spark_catalog.default.daily_revenue  (transformations/daily_revenue.sql:"
expect_stdout_contains "    expectations: 1"
expect_stdout_matches '^    amount +decimal\(12,2\)'
expect_stdout_matches '^    order_ts +timestamp'
# sum() of a decimal(12,2) is Spark's decimal(22,2) (p + 10), not DuckDB's
# decimal(38,2).
expect_stdout_matches '^    revenue +decimal\(22,2\)'
expect_stdout_contains "Flows (3):"
expect_stdout_matches '^  spark_catalog\.default\.orders_silver +-> spark_catalog\.default\.orders_silver +streaming$'
expect_stdout_contains "      inputs: spark_catalog.default.orders_bronze"
expect_stdout_matches '^  spark_catalog\.default\.daily_revenue +-> spark_catalog\.default\.daily_revenue +batch$'

# Nothing was materialized.
run_weir query "SELECT count(*) FROM orders_bronze"
expect_failure

run_weir dry-run --json
expect_exit 0
expect_json_lines
expect_stderr_contains "Loading pipeline spec from"
if command -v jq >/dev/null; then
    expect_equal "datasets" \
        "$(jq -r 'select(.graph) | .graph.datasets[].name' "$WEIR_STDOUT" | paste -sd' ')" \
        "spark_catalog.default.orders_bronze spark_catalog.default.orders_silver spark_catalog.default.daily_revenue"
    expect_equal "silver reads bronze" \
        "$(jq -r 'select(.graph) | .graph.flows[] | select(.target | endswith("orders_silver")) | .inputs[0]' "$WEIR_STDOUT")" \
        "spark_catalog.default.orders_bronze"
fi
