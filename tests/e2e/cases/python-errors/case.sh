# Failures around Python definition files: no pyspark-client (exit 2 with
# the install hint), no Python at all, an exception in a file (exit 2
# naming file:line, then the user's traceback), a syntax error, eager
# analysis inside a query function (Spark's error class) and session
# mutations at import time.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def fine():
    return spark.read.table("base")
PY

# A Python without pyspark-client: -S hides site-packages.
printf '#!/bin/sh\nexec python3 -S "$@"\n' > bare-python
chmod +x bare-python
WEIR_PYTHON=$PWD/bare-python run_weir run
expect_exit 2
expect_stderr_contains "weir: pyspark-client is not installed for $PWD/bare-python: install it with \`$PWD/bare-python -m pip install 'pyspark-client==4.2.0' 'pandas<3'\`"
expect_no_file storage

WEIR_PYTHON=/nonexistent/python run_weir dry-run
expect_exit 2
expect_stderr_contains "no Python was found ('/nonexistent/python')"

# VIRTUAL_ENV is used when WEIR_PYTHON is not set.
venv=$(dirname "$(dirname "$py")")
env -u WEIR_PYTHON VIRTUAL_ENV="$venv" "$WEIR" dry-run >"$E2E_OUT/venv.out" 2>&1 \
    || e2e_fail "dry-run with VIRTUAL_ENV failed: $(cat "$E2E_OUT/venv.out")"
grep -q "Importing .*defs.py" "$E2E_OUT/venv.out" || e2e_fail "no Importing line"

export WEIR_PYTHON=$py
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp

LIMITS = {"a": 1}


@dp.materialized_view
def fine():
    return spark.read.table("base").where(f"x < {LIMITS['b']}")
PY
run_weir run
expect_exit 2
expect_stderr_contains "transformations/defs.py:8: error: KeyError: 'b'"
expect_stderr_contains "    8 |     return spark.read.table(\"base\").where(f\"x < {LIMITS['b']}\")"
expect_stderr_contains "in fine"
expect_stderr_not_contains "site-packages"
expect_no_file storage

# Analysis errors of Python datasets name the Python file and line.
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def fine():
    return spark.read.table("base").select("nope")
PY
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/defs.py:4: error: [UNRESOLVED_COLUMN"

printf 'from pyspark import pipelines as dp\n\ndef broken(:\n    pass\n' > transformations/defs.py
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/defs.py:3: error: SyntaxError:"

cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def eager():
    n = spark.read.table("base").count()
    return spark.read.table("base").limit(n)
PY
run_weir run
expect_exit 2
expect_stderr_contains "transformations/defs.py:6: error: [ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION] Operations that trigger DataFrame analysis or execution are not allowed in pipeline query functions."

printf 'spark.conf.set("a.b", "c")\n' > transformations/defs.py
run_weir run
expect_exit 2
expect_stderr_contains "transformations/defs.py:1: error: [SESSION_MUTATION_IN_DECLARATIVE_PIPELINE.SET_RUNTIME_CONF]"

# A standalone flow named like another dataset's own flow is a duplicate
# flow identifier (the graph's rule, whichever front end defined it).
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.table
def a():
    return spark.readStream.table("base")


@dp.table
def b():
    return spark.readStream.table("base")


@dp.append_flow(target="b", name="a")
def more():
    return spark.readStream.table("base")
PY
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/defs.py:14: error: [PIPELINE_DUPLICATE_IDENTIFIERS.FLOW]"
expect_stderr_not_contains "FLOW_NAME_CONFLICTS_WITH_TABLE"

# A view's confs reach its readers: the same key set differently by a
# view and its reader fails the reader (Spark's DUPLICATE_FLOW_SQL_CONF).
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.temporary_view(spark_conf={"spark.sql.shuffle.partitions": "3"})
def tv():
    return spark.read.table("base")


@dp.materialized_view(spark_conf={"spark.sql.shuffle.partitions": "4"})
def reader():
    return spark.read.table("tv")
PY
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/defs.py:9: error: [DUPLICATE_FLOW_SQL_CONF] Found duplicate sql conf for dataset 'spark_catalog.default.reader': 'spark.sql.shuffle.partitions' is defined by both 'tv' and 'spark_catalog.default.reader'"

# With 4.1.3 the same eager analysis is refused the same way.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.1.3)
cat > transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def eager():
    return spark.read.table("base").limit(spark.read.table("base").count())
PY
run_weir run
expect_exit 2
expect_stderr_contains "transformations/defs.py:6: error: [ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION]"
