# weir init NAME scaffolds a runnable project and says how to run it: as
# weir when weir is on PATH, else by the binary's own path.

mkdir on-path
ln -s "$(command -v "$WEIR" || echo "$WEIR")" on-path/weir
PATH="$PWD/on-path:$PATH" run_weir init demo
expect_exit 0
expect_stdout_equals "Pipeline project 'demo' created successfully. To run your pipeline:
  cd 'demo'
  weir run"
expect_stderr_empty
PATH=/usr/bin:/bin run_weir init elsewhere
expect_exit 0
expect_stdout_equals "Pipeline project 'elsewhere' created successfully. To run your pipeline:
  cd 'elsewhere'
  '$(readlink -f "$WEIR")' run
(weir is not on your PATH: add its folder to PATH, or install it with cmake --install, to run it as weir)"
rm -rf elsewhere

# The spec: relative storage so the project can move, every SQL file.
expect_file_contains demo/spark-pipeline.yml "name: demo"
expect_file_contains demo/spark-pipeline.yml "storage: pipeline-storage"
expect_file_contains demo/spark-pipeline.yml "include: transformations/**"
expect_file_exists demo/README.md

# The medallion example.
expect_file_contains demo/transformations/orders_bronze.sql \
    "CREATE STREAMING TABLE orders_bronze"
expect_file_contains demo/transformations/orders_bronze.sql \
    "FROM STREAM read_files('data/landing/orders', format => 'json');"
expect_file_contains demo/transformations/orders_silver.sql \
    "CONSTRAINT valid_amount EXPECT (amount >= 0) ON VIOLATION DROP ROW"
expect_file_contains demo/transformations/orders_silver.sql \
    "CAST(amount AS DECIMAL(12,2)) AS amount"
expect_file_contains demo/transformations/orders_silver.sql \
    "FROM STREAM(orders_bronze)"
expect_file_contains demo/transformations/daily_revenue.sql \
    "CREATE MATERIALIZED VIEW daily_revenue"
for f in demo/transformations/*.sql; do
    expect_equal "first line of $f" "$(head -c 3 "$f")" "-- "
done

# The sample data: three JSON-lines files of ten orders, two dirty rows.
expect_equal "landing files" "$(ls demo/data/landing/orders | tr '\n' ' ')" \
    "orders-0001.json orders-0002.json orders-0003.json "
expect_equal "orders" "$(cat demo/data/landing/orders/*.json | wc -l)" 30
expect_equal "orders without an amount" \
    "$(grep -c '"amount": null' demo/data/landing/orders/*.json | paste -sd' ')" \
    "demo/data/landing/orders/orders-0001.json:1 demo/data/landing/orders/orders-0002.json:0 demo/data/landing/orders/orders-0003.json:0"
expect_file_contains demo/data/landing/orders/orders-0002.json '"amount": -15.00'
if command -v jq >/dev/null; then
    expect_equal "JSON lines" \
        "$(jq -c . demo/data/landing/orders/*.json | wc -l)" 30
fi

# Nothing else: storage is created by the first run.
expect_no_file demo/pipeline-storage
expect_equal "files created" "$(find demo -type f | wc -l)" 9

# One passing test of the example, run by `weir test`.
expect_file_contains demo/tests/daily_revenue.yml "daily_revenue_counts_valid_orders:"
expect_file_contains demo/README.md "weir test"
cd demo
run_weir test
expect_exit 0
expect_stdout_contains "PASS daily_revenue_counts_valid_orders ("
expect_stdout_matches "^1 test: 1 passed, 0 failed"
expect_no_file pipeline-storage
cd ..

# --name works too, and names that need quoting in YAML are quoted.
run_weir init --name "sales 2026"
expect_exit 0
expect_stdout_contains "  cd 'sales 2026'"
expect_file_contains "sales 2026/spark-pipeline.yml" 'name: "sales 2026"'
run_weir init true
expect_exit 0
expect_file_contains true/spark-pipeline.yml 'name: "true"'
