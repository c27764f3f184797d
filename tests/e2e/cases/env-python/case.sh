# The configuration weir loaded (spec, environment, --conf) is what Python
# files read with spark.conf.get, the same values ${key} takes in SQL files;
# the environment's database holds the Python datasets too.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

run_weir run --quiet
expect_exit 0
expect_query "SELECT p.greeting AS py, s.greeting AS sql FROM greet_py p, greet_sql s" "py,sql
spec,spec"

run_weir run --quiet --env dev
expect_exit 0
expect_query "SELECT p.greeting AS py, s.greeting AS sql FROM devdb.greet_py p, devdb.greet_sql s" "py,sql
dev,dev" --env dev

run_weir run --quiet --env dev --conf greeting=cli
expect_exit 0
expect_query "SELECT p.greeting AS py, s.greeting AS sql FROM devdb.greet_py p, devdb.greet_sql s" "py,sql
cli,cli" --env dev
