# weir test on a Python project: the Python definition files are imported
# once (with the test run's --conf), every test's pipeline gets their
# definitions, table and file fixtures replace the inputs, SQL files beside
# the Python read Python datasets; a wrong expectation shows its diff, a
# broken Python file is exit 2, and the project's storage is untouched.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

# The project's own storage, made by a real run, must not change.
run_weir query "CREATE TABLE customers (id BIGINT, name STRING); INSERT INTO customers VALUES (1, 'real')"
expect_exit 0
run_weir run --quiet
expect_exit 0
expect_query "SELECT name, total FROM per_customer" "name,total
real,100.0"
storage_sum() { find storage landing -type f | sort | xargs md5sum; }
before=$(storage_sum)
export TMPDIR="$E2E_WORK/tmp"
mkdir -p "$TMPDIR"

run_weir test python --junit py.xml
expect_exit 0
expect_stdout_contains "PASS totals_from_fixtures ("
expect_stdout_contains "PASS incremental ("
expect_stdout_matches "^2 tests: 2 passed, 0 failed \([0-9.]+ s\)$"
expect_stderr_empty
expect_file_contains py.xml 'tests="2" failures="0"'
expect_equal "storage after weir test" "$(storage_sum)" "$before"
expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""

# A wrong expectation: the diff, exit 1.
run_weir test wrong
expect_exit 1
expect_stdout_contains "[ROWS_DIFFER] tests/wrong.yml:8: rows of per_customer differ: 1 of them"
expect_stdout_contains "~ changed:    {name: ann, n: 1} total: expected 5, got 4.0"

# --conf reaches the Python files (read once, at import): amounts below 5
# are dropped now.
run_weir test totals_from_fixtures --conf min_amount=5
expect_exit 1
expect_stdout_contains "[ROWS_DIFFER]"
expect_stdout_contains "~ changed:    {name: ann} n: expected 2, got 1; total: expected 12, got 8.0"

# A Python file that fails at import: the tests do not run, exit 2.
printf 'raise ValueError("broken on purpose")\n' >transformations/c_broken.py
run_weir test
expect_exit 2
expect_stderr_contains "broken on purpose"
expect_stdout_not_contains "PASS"
rm transformations/c_broken.py
expect_equal "storage after the failures" "$(storage_sum)" "$before"
expect_equal "temporary folders left after the failures" "$(ls -A "$TMPDIR")" ""

# Ctrl-C while the Python files are imported stops weir test there, even
# when the signal was ignored by inheritance (a background job in a
# script): Python is stopped, its temporary folder removed, exit 1.
cat >transformations/c_slow.py <<'PY'
import os, time
open(os.environ["SLOW_MARK"], "w").close()
time.sleep(120)
PY
export SLOW_MARK="$E2E_WORK/slow.mark"
(trap '' INT; exec "$WEIR" test) >"$E2E_OUT/slow.out" 2>"$E2E_OUT/slow.err" &
pid=$!
for _ in $(seq 600); do
    [ -e "$SLOW_MARK" ] && break
    sleep 0.1
done
kill -INT "$pid"
status=0
wait "$pid" || status=$?
expect_equal "exit status after SIGINT during the import" "$status" 1
expect_file_contains "$E2E_OUT/slow.err" "interrupted: Python was stopped while importing"
rm transformations/c_slow.py
expect_equal "temporary folders left after SIGINT" "$(ls -A "$TMPDIR")" ""
expect_equal "storage after SIGINT" "$(storage_sum)" "$before"
