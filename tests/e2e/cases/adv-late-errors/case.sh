# Errors found where they are made, not later (issue 39, item 9): a value
# weir cannot use for a configuration key it reads (pipelines.*,
# spark.sql.pipelines.*, ...) fails `weir dry-run` with exit 2 at its
# file:line (before: `pipelines.incremental.minInputRows=-5` passed the
# dry run, and the run failed after 3 tries); a `weir test` table fixture
# named like a dataset of the pipeline is a definition error at its line
# (before: CHECKPOINT_MISSING when the test ran); a fixture's `schema:` is
# parsed as a column list (before: pasted into a CREATE TABLE, so a `)`
# ended the column list and the rest became SQL).
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
spec() { # spec LINES...: spark-pipeline.yml with these configuration lines
    { printf 'name: shop\nstorage: storage\nconfiguration:\n'
      printf '  %s\n' "$@"
      printf 'libraries:\n  - glob:\n      include: transformations/**\n'; } >spark-pipeline.yml
}

# --- Configuration keys, in the spec ------------------------------------------
spec 'pipelines.incremental.minInputRows: "-5"'
run_weir dry-run
expect_exit 2
expect_stderr_contains "spark-pipeline.yml:4:39: error: [PIPELINE_SPEC_INVALID_FIELD_VALUE] Pipeline spec field \`configuration\`: pipelines.incremental.minInputRows must be a whole number of rows from 0 to 1000000000000000000, got '-5'."
expect_no_file storage
spec 'spark.sql.pipelines.execution.maxConcurrentFlows: "0"' \
     'spark.sql.pipelines.maxFlowRetryAttempts: "two"' \
     'spark.sql.pipelines.execution.watchdog.minRetryTime: "5 parsecs"' \
     'pipelines.incremental: "maybe"' \
     'spark.sql.ansi.enabled: "yes"'
run_weir dry-run
expect_exit 2
expect_stderr_contains "spark-pipeline.yml:4:53: error: [PIPELINE_SPEC_INVALID_FIELD_VALUE] Pipeline spec field \`configuration\`: spark.sql.pipelines.execution.maxConcurrentFlows must be a whole number of flows from 1 to 999999, got '0'."
expect_stderr_contains "spark-pipeline.yml:5:"
expect_stderr_contains "spark.sql.pipelines.maxFlowRetryAttempts must be a whole number of retries from 0 to 999999, got 'two'."
expect_stderr_contains "spark-pipeline.yml:6:"
expect_stderr_contains "spark.sql.pipelines.execution.watchdog.minRetryTime must be a duration: a number of seconds, or with a unit ms, s, m or h (e.g. '500ms', '5s'), got '5 parsecs'."
expect_stderr_contains "spark-pipeline.yml:7:"
expect_stderr_contains "pipelines.incremental must be true or false, got 'maybe'."
expect_stderr_contains "spark-pipeline.yml:8:"
expect_stderr_contains "spark.sql.ansi.enabled must be true or false, got 'yes'."
# Values weir can use pass; keys weir does not read are Spark's.
spec 'pipelines.incremental.minInputRows: "0"' \
     'spark.sql.pipelines.execution.watchdog.maxRetryTime: "2m"' \
     'spark.sql.shuffle.partitions: "whatever"'
run_weir query "CREATE TABLE raw_orders (id BIGINT, amount DECIMAL(10,2))"
expect_exit 0
run_weir dry-run
expect_exit 0

# --- on the command line and in a SQL file's SET ------------------------------
run_weir dry-run --conf pipelines.incremental.minInputRows=-5
expect_exit 2
expect_stderr_contains "--conf pipelines.incremental.minInputRows=-5: pipelines.incremental.minInputRows must be a whole number of rows"
printf 'SET spark.sql.pipelines.maxFlowRetryAttempts = 1;\nSET pipelines.incremental.minInputRows = -5;\nCREATE MATERIALIZED VIEW more AS SELECT * FROM totals;\n' \
    >transformations/more.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/more.sql:2:1: error: [INVALID_CONF_VALUE] SET pipelines.incremental.minInputRows: pipelines.incremental.minInputRows must be a whole number of rows from 0 to 1000000000000000000, got '-5'."
rm transformations/more.sql

# --- a Python flow's own conf ---------------------------------------------------
cat >transformations/more.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view(spark_conf={"pipelines.incremental.minInputRows": "-5"})
def more():
    return spark.read.table("totals")
PY
WEIR_PYTHON=$py run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/more.py:4"
expect_stderr_contains "[INVALID_CONF_VALUE] pipelines.incremental.minInputRows must be a whole number of rows from 0 to 1000000000000000000, got '-5'."
rm transformations/more.py

# --- weir test: a fixture named like a dataset ---------------------------------
cat >tests/bad.yml <<'YAML'
fixture_is_dataset:
  given:
    - table: raw_orders
      rows: [{id: 1, amount: 1}]
    - table: orders
      rows: [{id: 9, amount: 9}]
  expect:
    - dataset: totals
      rows: [{n: 1, total: 1}]
YAML
run_weir test
expect_exit 2
expect_stderr_contains "tests/bad.yml:5:14: error: [TEST_FIXTURE_IS_DATASET] Fixture table \`orders\` is a dataset of the pipeline"
expect_stdout_not_contains "CHECKPOINT_MISSING"
expect_stdout_not_contains "PASS"
# Qualified the way the pipeline's default catalog and database qualify it.
sed -i 's/- table: orders$/- table: spark_catalog.default.ORDERS/' tests/bad.yml
run_weir test
expect_exit 2
expect_stderr_contains "tests/bad.yml:5:14: error: [TEST_FIXTURE_IS_DATASET] Fixture table \`spark_catalog.default.ORDERS\`"
rm tests/bad.yml

# --- weir test: a fixture's schema is parsed --------------------------------------
run_weir test
expect_exit 0
expect_stdout_contains "PASS schema_parsed ("
cat >tests/bad.yml <<'YAML'
schema_injected:
  given:
    - table: raw_orders
      schema: "id BIGINT, amount DOUBLE); CREATE TABLE injected (x INT"
      rows: [{id: 1, amount: 1}]
  expect:
    - dataset: totals
      rows: [{n: 1, total: 1}]
YAML
run_weir test
expect_exit 2
expect_stderr_contains "tests/bad.yml:4:15: error: [TEST_DEFINITION_INVALID] \`schema\` should be the columns of a table as Spark DDL writes them (\`id BIGINT, name STRING\`):"
expect_stdout_not_contains "PASS"
