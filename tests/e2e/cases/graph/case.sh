# weir graph in its three formats.

run_weir init demo
cd demo

run_weir graph
expect_exit 0
expect_stderr_empty
expect_stdout_contains "spark_catalog.default.orders_bronze (streaming table)"
expect_stdout_contains "spark_catalog.default.orders_silver (streaming table)
    <- spark_catalog.default.orders_bronze (streaming)"
expect_stdout_contains "spark_catalog.default.daily_revenue (materialized view)
    <- spark_catalog.default.orders_silver"
expect_stdout_contains "(external, streaming)"

run_weir graph --format dot
expect_exit 0
expect_stdout_contains 'digraph "'
expect_stdout_contains 'label="orders_silver\nstreaming table"'
expect_stdout_contains 'label="daily_revenue\nmaterialized view"'
expect_stdout_contains '[style=dashed]'
if command -v dot >/dev/null; then
    dot -Tsvg "$WEIR_STDOUT" >graph.svg 2>"$E2E_OUT/dot.err" ||
        e2e_fail "dot rejects the graph: $(cat "$E2E_OUT/dot.err")"
    expect_file_contains graph.svg "<svg"
fi

run_weir graph --format mermaid
expect_exit 0
expect_equal "first line" "$(head -n 1 "$WEIR_STDOUT")" "flowchart LR"
expect_stdout_contains '[("orders_bronze<br/><small>streaming table</small>")]:::st'
expect_stdout_contains '[["daily_revenue<br/><small>materialized view</small>"]]:::mv'
expect_stdout_matches '^  n[0-9]+ -\.-> n[0-9]+$'
expect_stdout_matches '^  n[0-9]+ --> n[0-9]+$'
