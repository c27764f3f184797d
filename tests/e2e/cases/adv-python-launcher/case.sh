# The Python launcher's word is checked (issue 39, item 7): a definition
# file that ends the process with os._exit(0) is an error naming it (the
# files after it were never imported), os._exit(3) is not taken for a
# missing pyspark-client, an error report forged on stderr or on the
# status channel never makes weir quote a file that is not a definition
# file, and what Python prints reaches the terminal prefixed, with its
# escape sequences defused.
export WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)

# A good project first: both files are imported.
cat > transformations/a_first.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def first():
    return spark.range(2)
PY
run_weir run
expect_exit 0
expect_stdout_contains "Importing $E2E_WORK/transformations/a_first.py..."
expect_stdout_contains "Importing $E2E_WORK/transformations/b_later.py..."
expect_query "SELECT count(*) AS n FROM later" "n
3"
rm -rf storage

# --- os._exit(0): not a success ---------------------------------------------
cat > transformations/a_first.py <<'PY'
import os

os._exit(0)
PY
run_weir run
expect_exit 2
expect_stderr_contains "transformations/a_first.py: error: Python exited with status 0 while this file was imported, so the definition files after it were not imported"
expect_stdout_not_contains "Run is COMPLETED."
expect_stdout_not_contains "Importing $E2E_WORK/transformations/b_later.py"
expect_no_file storage

run_weir dry-run --json
expect_exit 2
expect_stdout_contains '"path":"transformations/a_first.py"'

# --- os._exit(3): not "pyspark-client is not installed" ---------------------
cat > transformations/a_first.py <<'PY'
import os

os._exit(3)
PY
run_weir run
expect_exit 1
expect_stderr_not_contains "pyspark-client is not installed"
expect_stderr_contains "failed with exit status 3 while importing transformations/a_first.py"

# --- forged error reports ---------------------------------------------------
# On stderr, in the launcher's old format, then exit 4.
cat > transformations/a_first.py <<'PY'
import os
import sys

sys.stderr.write('weir-python-error: {"kind": "definition", "message": "forged", '
                 '"error_class": "", "path": "secret.txt", "line": 1, "server": false}\n')
sys.stderr.flush()
os._exit(4)
PY
run_weir run
expect_exit 1
expect_stderr_not_contains "TOPSECRET"
expect_stderr_contains "failed with exit status 4 while importing transformations/a_first.py"
# On the status channel itself: the path is not a definition file.
cat > transformations/a_first.py <<'PY'
import os

os.write(3, b'{"event": "error", "kind": "definition", "message": "forged", '
            b'"error_class": "", "path": "secret.txt", "line": 1, "server": false}\n')
os._exit(4)
PY
run_weir run
expect_exit 2
expect_stderr_contains "secret.txt:1: error: forged"
expect_stderr_not_contains "TOPSECRET"

# --- what Python prints -----------------------------------------------------
cat > transformations/a_first.py <<'PY'
import sys

from pyspark import pipelines as dp

print("2026-01-01 00:00:00: Run is COMPLETED.")
print("\x1b[2J\x1b[31mred\x07 and \x9b1m", flush=True)
sys.stdout.write("no newline at the end")


@dp.materialized_view
def first():
    return spark.range(2)
PY
run_weir run
expect_exit 0
expect_stdout_contains "python: 2026-01-01 00:00:00: Run is COMPLETED."
expect_stdout_contains 'python: \x1B[2J\x1B[31mred\x07 and \u009B1m'
expect_stdout_contains "python: no newline at the end"
if grep -q "^2026-01-01 00:00:00: Run is COMPLETED" "$WEIR_STDOUT"; then
    e2e_fail "Python printed a line of weir's own"
fi
if grep -q $'\x1b' "$WEIR_STDOUT"; then e2e_fail "an escape byte reached stdout"; fi

# A failing file's traceback on stderr: prefixed and escaped too.
cat > transformations/a_first.py <<'PY'
raise ValueError("bad \x1b[2J value")
PY
run_weir run
expect_exit 2
expect_stderr_contains 'python: ValueError: bad \x1B[2J value'
if grep -q $'\x1b' "$WEIR_STDERR"; then e2e_fail "an escape byte reached stderr"; fi
