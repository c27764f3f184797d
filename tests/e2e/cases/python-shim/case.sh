# weir's Databricks shim: dp.expect / expect_or_drop / expect_all /
# expect_or_quarantine (metrics in `weir events --quality`, drop and
# quarantine like SQL), expect_or_fail fails the update, append_flow
# once=True runs once (import_checkpoint=: the import-checkpoint case).
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
# positive drops -5 and NULL; has_tag only warns.
expect_query "SELECT id FROM checked ORDER BY id" "id
1
4"
# has_amount quarantines the NULL row; small and known_id warn.
expect_query "SELECT id FROM kept ORDER BY id" "id
1
2
4"
expect_query "SELECT id FROM kept_quarantine" "id
3"
run_weir events --quality --format csv
expect_exit 0
expect_stdout_contains "spark_catalog.default.checked,positive,2,2"
expect_stdout_contains "spark_catalog.default.checked,has_tag,"
expect_stdout_contains "spark_catalog.default.kept,small,"
expect_stdout_contains "spark_catalog.default.kept,has_amount,3,1"

# The once-flow wrote src's 4 ids, the streaming flow one more; a second
# update runs neither again.
expect_query "SELECT count(*) AS n FROM history" "n
5"
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM history" "n
5"

# expect_or_fail stops the update, naming the expectation.
cat > transformations/strict.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
@dp.expect_or_fail("no_big", "amount < 1000")
def strict():
    return spark.read.table("src")
PY
run_weir run
expect_exit 1
expect_stdout_contains "EXPECTATION_VIOLATION"
expect_stdout_contains "Expectation 'no_big' of spark_catalog.default.strict failed"
