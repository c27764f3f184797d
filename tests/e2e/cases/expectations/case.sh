# Warn, drop, fail and quarantine expectations; their metrics in the event
# log; a FAIL UPDATE violation leaves the table and its checkpoint as they
# were; expectations declared in the spec.

run_weir run --json
expect_exit 0
if command -v jq >/dev/null; then
    dq=$(jq -c 'select(.flow_name == "spark_catalog.default.orders_silver" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.data_quality' "$WEIR_STDOUT")
    expect_equal "dropped" "$(jq '.dropped_records' <<<"$dq")" 3
    expect_equal "warn counts" "$(jq -c '.expectations[] | select(.name == "valid_customer") | [.passed_records, .failed_records]' <<<"$dq")" "[5,1]"
    expect_equal "drop counts" "$(jq -c '.expectations[] | select(.name == "valid_amount") | [.passed_records, .failed_records]' <<<"$dq")" "[4,2]"
    expect_equal "quarantine counts" "$(jq -c '.expectations[] | select(.name == "known_status") | [.passed_records, .failed_records]' <<<"$dq")" "[5,1]"
    expect_equal "dataset" "$(jq -r '.expectations[0].dataset' <<<"$dq")" "spark_catalog.default.orders_silver"
fi
# 6 rows: 2 dropped (amounts), 1 quarantined (status), 3 written (one warns).
expect_query "SELECT order_id FROM orders_silver ORDER BY order_id" "order_id
1
2
6"
expect_query "SELECT order_id, _failed_expectations FROM orders_silver_quarantine" "order_id,_failed_expectations
5,[known_status]"
run_weir events --quality --format csv
expect_stdout_contains "spark_catalog.default.orders_silver,valid_customer,5,1"
expect_stdout_contains "spark_catalog.default.orders_gold,positive_revenue,2,0"

# A row without an id breaks the FAIL UPDATE rule: the update fails with
# the expectation, dataset, flow and the offending record.
printf '{"order_id": 7, "customer_id": 1, "amount": 1.0, "status": "placed"}\n{"order_id": null, "customer_id": 2, "amount": 2.0, "status": "placed"}\n' > landing/b.json
run_weir run
expect_exit 1
expect_stdout_contains "EXPECTATION_VIOLATION"
expect_stdout_contains "Expectation 'valid_id' of spark_catalog.default.orders_silver failed for 1 record(s) of flow 'spark_catalog.default.orders_silver'"
expect_stdout_contains '"customer_id": 2'
expect_query "SELECT count(*) AS n FROM orders_silver" "n
3"
# ...and nothing moved: fixing the data is not enough, the file is still
# new to silver's checkpoint, so it fails again until the row is fixed.
expect_query "SELECT count(*) AS n FROM _weir.checkpoints WHERE flow = 'spark_catalog.default.orders_silver'" "n
1"
printf '{"order_id": 7, "customer_id": 1, "amount": 1.0, "status": "placed"}\n{"order_id": 8, "customer_id": 2, "amount": 2.0, "status": "placed"}\n' > landing/c.json
rm landing/b.json
run_weir run --full-refresh orders_bronze,orders_silver
expect_exit 0
expect_query "SELECT count(*) AS n FROM orders_silver" "n
5"

# Expectations are checked at dry run.
cat > transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW bad (
  CONSTRAINT uses_subquery EXPECT (x IN (SELECT 1)),
  CONSTRAINT unknown_col EXPECT (nope > 0)
) AS SELECT 1 AS x;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.sql:2:3: error: [INVALID_EXPECTATION] Expectation 'uses_subquery'"
expect_stderr_contains "transformations/bad.sql:3:3: error: [UNRESOLVED_COLUMN"

# The table-property form (the names of Python's @dp.expect* decorators).
rm transformations/bad.sql
cat > transformations/props.sql <<'SQL'
CREATE MATERIALIZED VIEW by_props
TBLPROPERTIES ('pipelines.expect_or_drop.positive' = 'n > 0',
               'pipelines.expect.small' = 'n < 3')
AS SELECT id AS n FROM range(-1, 5);
SQL
run_weir run --refresh by_props
expect_exit 0
expect_query "SELECT count(*) AS n FROM by_props" "n
4"
run_weir events --quality --format csv
expect_stdout_contains "spark_catalog.default.by_props,positive,4,2"
expect_stdout_contains "spark_catalog.default.by_props,small,4,2"
