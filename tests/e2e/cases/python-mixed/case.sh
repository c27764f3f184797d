# SQL and Python definition files in one project, referring to each other
# in both directions and in any file order; SQL files keep weir's own
# file:line:col errors; the spec's configuration reaches spark.conf.get.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

run_weir run
expect_exit 0
expect_stdout_contains "Found 4 files matching glob 'transformations/**/*'"
expect_stdout_contains "Registering SQL file $E2E_WORK/transformations/b_orders.sql..."
expect_stdout_contains "Importing $E2E_WORK/transformations/a_totals.py..."
expect_stdout_contains "Importing $E2E_WORK/transformations/c_big.py..."
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT customer, orders, revenue FROM totals ORDER BY customer" "customer,orders,revenue
ada,2,52.5
cy,1,7.25"
expect_query "SELECT customer, revenue FROM report" "customer,revenue
ada,52.5"

# A new file: only its rows are read.
printf '{"id": 5, "customer": "cy", "amount": 9.0}\n' > data/more.json
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM big_orders" "n
4"
expect_query "SELECT customer, revenue FROM report ORDER BY customer" "customer,revenue
ada,52.5
cy,16.25"

# An error in a SQL file is still weir's, with line and column.
printf 'CREATE MATERIALIZED VIEW broken AS\nSELECT nope FROM totals;\n' > transformations/e_broken.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/e_broken.sql:1:1: error: [UNRESOLVED_COLUMN"
