# weir test: tests/NAME.yml of fixture inputs (tables inline, from CSV and
# SQL; files from rows and a JSON file) and expectations (rows, queries that
# return nothing, expectation metrics, expected failures), incremental steps
# with refresh options, failures of each kind with their diff, JUnit XML and
# JSON reports, name filters, --conf, isolation from the project's storage,
# and invalid definitions (exit 2 at file:line:col).

# The project's own storage, made by a real run, must not change.
run_weir query "CREATE TABLE customers (id BIGINT, name STRING); INSERT INTO customers VALUES (1, 'real')"
expect_exit 0
run_weir run --quiet
expect_exit 0
storage_sum() { find storage landing -type f | sort | xargs md5sum; }
before=$(storage_sum)
# Temporary folders go under $TMPDIR, and are removed afterwards.
export TMPDIR="$E2E_WORK/tmp"
mkdir -p "$TMPDIR"

# --- Passing tests (a file name as the filter) ------------------------------
run_weir test pass --junit pass.xml
expect_exit 0
expect_stdout_contains "PASS totals_from_inline_rows ("
expect_stdout_contains "PASS totals_from_files_beside_test ("
expect_stdout_contains "PASS customers_from_sql_values ("
expect_stdout_contains "PASS incremental_steps ("
expect_stdout_contains "PASS failed_update_is_expected ("
expect_stdout_matches "^5 tests: 5 passed, 0 failed \([0-9.]+ s\)$"
expect_stderr_empty
expect_equal "storage after weir test" "$(storage_sum)" "$before"
expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""

# --- Failing tests: one line each, the reason and the diff ------------------
run_weir test failing
expect_exit 1
expect_stdout_matches "^6 tests: 0 passed, 6 failed"
expect_stdout_contains "FAIL rows_differ ("
expect_stdout_contains "     tests/failing.yml:2: test rows_differ
     [ROWS_DIFFER] tests/failing.yml:11: rows of customer_totals differ: 2 of them (expected 3 rows, got 3)"
expect_stdout_contains "       ~ changed:    {name: bob, orders: 1} total: expected 6, got 5.00"
expect_stdout_contains "       ~ changed:    {orders: 0, total: null} name: expected dan, got cy"
expect_stdout_contains "[ROWS_DIFFER] tests/failing.yml:26: rows of orders_raw differ (in order): 2 of them"
expect_stdout_contains "       ~ changed row 1:    order_id: expected 2, got 1"
expect_stdout_contains "[QUERY_RETURNED_ROWS] tests/failing.yml:37: the query should return no rows; it returned 1
       {order_id: 1, amount: 10.00}"
expect_stdout_contains "[METRICS_DIFFER] tests/failing.yml:46: expectation \`valid_amount\`: expected failed 5; got passed 0, failed 1, dropped 1"
expect_stdout_contains "[EXPECTED_ERROR_MISSING] tests/failing.yml:56: expected the update to fail with EXPECTATION_VIOLATION; it completed"
expect_stdout_contains "[UNEXPECTED_ERROR] the update failed: [EXPECTATION_VIOLATION] Expectation 'has_name'"
expect_equal "storage after failing tests" "$(storage_sum)" "$before"

# A row missing and one unexpected (a one-column comparison has no pairs).
mkdir -p tests
cat >tests/extra.yml <<'YAML'
missing_and_unexpected:
  given:
    - table: customers
      rows: [{id: 1, name: ann}, {id: 2, name: bob}]
    - files: landing/orders
      rows: [{order_id: 1, customer_id: 1, amount: 1, status: placed}]
  expect:
    - dataset: customers_clean
      rows: [{name: ann}, {name: cy}]
YAML
run_weir test missing_and_unexpected
expect_exit 1
expect_stdout_contains "rows of customers_clean differ: 2 of them (expected 2 rows, got 2)
       - missing:    {name: cy}
       + unexpected: {name: bob}"
rm tests/extra.yml

# --- `sql:` for files: the rows of a query (which may read a table fixture
# given before it) written as the step's file ---------------------------------
cat >tests/extra.yml <<'YAML'
files_from_sql:
  given:
    - table: customers
      rows: [{id: 1, name: ann}, {id: 2, name: bob}]
    - files: landing/orders
      sql: >
        SELECT id AS order_id, id AS customer_id, id * 2.5 AS amount,
               'placed' AS status FROM customers
    - files: landing/orders
      sql: SELECT 3 AS order_id, 2 AS customer_id, NULL AS amount, 'shipped' AS status
  expect:
    - dataset: orders
      rows: [{order_id: 1, amount: 2.5}, {order_id: 2, amount: 5}]
    - dataset: orders_raw
      rows:
        - {order_id: 1, amount: 2.5}
        - {order_id: 2, amount: 5.0}
        - {order_id: 3, amount: null}
    - expectation: valid_amount
      passed: 2
      failed: 1
files_from_bad_sql:
  given:
    - files: landing/orders
      sql: SELECT nope FROM nowhere
  expect:
    - query: SELECT 1 WHERE false
YAML
run_weir test files_from
expect_exit 1
expect_stdout_contains "PASS files_from_sql ("
expect_stdout_contains "FAIL files_from_bad_sql ("
expect_stdout_contains "[FIXTURE_FAILED] query:1:18: [TABLE_OR_VIEW_NOT_FOUND] fixture files landing/orders: The table or view \`nowhere\` cannot be found."
expect_equal "storage after sql file fixtures" "$(storage_sum)" "$before"
rm tests/extra.yml

# --- Without $TMPDIR a test's folder is in memory (/dev/shm) when it can be:
# one appears there while the tests run and is gone after (other weir test
# runs may use /dev/shm meanwhile: only the folder seen is followed) --------
shm_tests() { ls /dev/shm | grep '^weir-test-' | sort || true; }
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    shm_before=$(shm_tests)
    env -u TMPDIR "$WEIR" test pass >"$E2E_OUT/shm.out" 2>&1 &
    pid=$!
    seen=
    for _ in $(seq 600); do
        seen=$(comm -13 <(echo "$shm_before") <(shm_tests) | head -n 1)
        [ -z "$seen" ] || break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    status=0
    wait "$pid" || status=$?
    expect_equal "weir test without TMPDIR" "$status" 0
    [ -n "$seen" ] || e2e_fail "no test folder appeared in /dev/shm"
    for _ in $(seq 200); do
        [ -e "/dev/shm/$seen" ] || break
        sleep 0.05
    done
    expect_no_file "/dev/shm/$seen"
fi

# --- Filters: globs and parts of names ---------------------------------------
run_weir test 'totals_*' --jobs 1
expect_exit 0
expect_stdout_matches "^2 tests: 2 passed, 0 failed"
run_weir test no_such_test
expect_exit 2
expect_stderr_contains "no test matches"

# --- --conf reaches the tests' SQL (${min_amount}) ---------------------------
run_weir test totals_from_inline_rows --conf min_amount=5
expect_exit 1
expect_stdout_contains "[ROWS_DIFFER]"
expect_stdout_contains "       ~ changed:    {name: ann} orders: expected 2, got 1; total: expected 12.5, got 10.00"

# --- JUnit XML: the shape CI tools read --------------------------------------
# (--json at the same time: one document on stdout instead of the lines.)
run_weir test --junit all.xml --json
expect_exit 1
cp "$WEIR_STDOUT" all.json
python3 - pass.xml all.xml <<'PY' || e2e_fail "JUnit XML does not have the expected shape"
import sys, xml.etree.ElementTree as ET
def check(path, tests, failures):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", root.tag
    assert root.get("tests") == str(tests) and root.get("failures") == str(failures), root.attrib
    assert root.get("errors") == "0"
    float(root.get("time"))
    n = f = 0
    for suite in root:
        assert suite.tag == "testsuite", suite.tag
        for a in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
            assert suite.get(a) is not None, (a, suite.attrib)
        cases = list(suite)
        assert suite.get("tests") == str(len(cases))
        sf = 0
        for case in cases:
            assert case.tag == "testcase", case.tag
            for a in ("name", "classname", "time"):
                assert case.get(a), (a, case.attrib)
            float(case.get("time"))
            kids = list(case)
            assert len(kids) <= 1
            if kids:
                assert kids[0].tag == "failure" and kids[0].get("message") and kids[0].get("type")
                sf += 1
        assert suite.get("failures") == str(sf)
        n += len(cases); f += sf
    assert (n, f) == (tests, failures), (n, f)
    return root
check(sys.argv[1], 5, 0)
root = check(sys.argv[2], 11, 6)
names = {s.get("name") for s in root}
assert names == {"tests.failing", "tests.pass"}, names
fail = root.find(".//testcase[@name='rows_differ']/failure")
assert fail.get("type") == "ROWS_DIFFER", fail.attrib
assert "~ changed:    {name: bob, orders: 1} total: expected 6, got 5.00" in fail.text
PY
e2e_pass
# ... and valid against the schema CI tools validate reports with
# (tests/e2e/junit.xsd: Jenkins xUnit's junit-10 structure, with the file
# and line of a test case that GitLab and GitHub reporters read).
python3 "$E2E_LIB/xsd-check.py" "$E2E_LIB/junit.xsd" pass.xml all.xml \
    2>"$E2E_OUT/xsd.err" || e2e_fail "JUnit XML is not valid: $(cat "$E2E_OUT/xsd.err")"
e2e_pass

# --- --json: one document ----------------------------------------------------
python3 - all.json <<'PY' || e2e_fail "--json output"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["tests"] == 11 and d["summary"]["failed"] == 6, d["summary"]
t = {x["name"]: x for x in d["tests"]}
assert t["incremental_steps"]["status"] == "passed" and t["incremental_steps"]["steps_run"] == 3
m = t["metrics_differ"]
assert m["status"] == "failed" and m["failure_class"] == "METRICS_DIFFER" and m["file"] == "tests/failing.yml"
assert t["totals_from_inline_rows"]["message"] is None
PY
e2e_pass
expect_equal "storage after every run" "$(storage_sum)" "$before"
expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""

# --- Invalid definitions: exit 2, each problem at its file:line:col ----------
mkdir -p bad/tests
cp spark-pipeline.yml bad/
cp -R transformations bad/
cat >bad/tests/bad.yml <<'YAML'
no_checks:
  given:
    - table: customers
      rows: [{id: 1}]
bad_fixture:
  given:
    - table: customers
      files: landing/orders
      rows: []
  expect:
    - query: SELECT 1 WHERE false
bad_check:
  expect:
    - dataset: orders
      rows: [{id: [1, 2]}]
    - nothing: here
  runs: 2
missing_file:
  given:
    - table: customers
      csv: nowhere.csv
  expect:
    - error: X
outside:
  given:
    - files: ../elsewhere
      rows: []
  expect:
    - error: X
YAML
run_weir test --spec bad/spark-pipeline.yml
expect_exit 2
expect_stdout_empty
expect_stderr_contains "bad/tests/bad.yml:1:1: error: [TEST_DEFINITION_INVALID] Test \`no_checks\` checks nothing: give it an \`expect\` list."
expect_stderr_contains "bad/tests/bad.yml:7:7: error: [TEST_DEFINITION_INVALID] A fixture names one of \`table\`, \`files\` (a path the SQL reads) or \`topic\` (a Kafka topic), not several."
expect_stderr_contains "bad/tests/bad.yml:15:19: error: [TEST_DEFINITION_INVALID] A value in \`rows\` should be a scalar (a string, number, boolean or null), got list."
expect_stderr_contains "bad/tests/bad.yml:16:7: error: [TEST_DEFINITION_INVALID] An expectation needs one of"
expect_stderr_contains "bad/tests/bad.yml:17:3: error: [TEST_DEFINITION_INVALID] Unexpected key"
expect_stderr_contains "bad/tests/bad.yml:21:12: error: [TEST_FIXTURE_FILE_NOT_FOUND] The csv file \`nowhere.csv\` does not exist"
expect_stderr_contains "   15 |       rows: [{id: [1, 2]}]"
expect_stderr_contains "bad/tests/bad.yml:26:14: error: [TEST_DEFINITION_INVALID] \`files\` should be a path below the project folder"
# YAML syntax errors too.
printf 'a:\n  given: [\n' >bad/tests/bad.yml
run_weir test --spec bad/spark-pipeline.yml
expect_exit 2
expect_stderr_matches "^bad/tests/bad.yml:[0-9]+:[0-9]+: error: \[PIPELINE_SPEC_YAML_ERROR\]"
# A project without tests has nothing to run.
rm -r bad/tests
run_weir test --spec bad/spark-pipeline.yml
expect_exit 0
expect_stdout_equals "0 tests: 0 passed, 0 failed (0.00 s)"
# Python definition files are imported once, before any test runs
# (e2e/test-python): without a Python that is a usage error, exit 2.
mkdir bad/tests
printf 'from pyspark import pipelines as dp\n' >bad/transformations/extra.py
printf 't:\n  expect:\n    - query: SELECT 1 WHERE false\n' >bad/tests/t.yml
WEIR_PYTHON=/nonexistent/python run_weir test --spec bad/spark-pipeline.yml
expect_exit 2
expect_stderr_contains "the project has Python definition files, but no Python was found ('/nonexistent/python')"
expect_stdout_not_contains "PASS"
# An unknown environment is one error, before any test runs.
run_weir test --env nope
expect_exit 2
expect_stderr_contains "ENVIRONMENTS_FILE_NOT_FOUND"

# --- Ctrl-C: the running tests stop and their folders are removed -----------
"$WEIR" test >"$E2E_OUT/int.out" 2>"$E2E_OUT/int.err" &
pid=$!
for _ in $(seq 300); do
    [ -z "$(ls -A "$TMPDIR")" ] || break
    sleep 0.1
done
kill -INT "$pid"
status=0
wait "$pid" || status=$?
expect_equal "exit status after SIGINT" "$status" 1
expect_file_contains "$E2E_OUT/int.err" "weir: interrupted"
expect_equal "temporary folders left after SIGINT" "$(ls -A "$TMPDIR")" ""
expect_equal "storage after SIGINT" "$(storage_sum)" "$before"
