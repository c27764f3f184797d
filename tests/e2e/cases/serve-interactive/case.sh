# weir serve --spec: an interactive PySpark session (pyspark-client 4.2.0)
# queries the served project's tables: spark.sql, spark.read.table,
# filter/select/orderBy, collect, toPandas, first, count, df.schema and
# df.columns (AnalyzePlan), show() (horizontal, vertical, truncated,
# empty), 200k rows in several Arrow batches, SQL statements run eagerly,
# event_log(), Spark's error classes. Then an update runs on the same
# storage while the server holds it for queries (released first), and a
# server without a project refuses queries with a clear error.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
# The shop project the serve-* cases share.
cp -R "$E2E_CASE/../serve-common/project" project
cd project
run_weir run
expect_exit 0

start_server --spec spark-pipeline.yml
timeout 180 "$py" ../client.py "$url" >"$E2E_OUT/client.out" 2>"$E2E_OUT/client.err" ||
    e2e_fail "client failed: $(tail -20 "$E2E_OUT/client.err")"
compare_files "client output" ../expected.txt "$E2E_OUT/client.out"

# The pipelines CLI runs an update on the storage the queries opened.
(SPARK_REMOTE=$url timeout 120 "$py" -m pyspark.pipelines.cli run) \
    >"$E2E_OUT/cli.out" 2>&1 || e2e_fail "pipelines CLI run failed: $(tail -20 "$E2E_OUT/cli.out")"
grep -q "Run is COMPLETED" "$E2E_OUT/cli.out" || e2e_fail "no COMPLETED run: $(tail "$E2E_OUT/cli.out")"
e2e_pass
# ... and queries see its tables afterwards (the storage opens again).
"$py" - "$url" >"$E2E_OUT/after.out" 2>&1 <<'PY' || e2e_fail "query after the run: $(tail "$E2E_OUT/after.out")"
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print(spark.table("by_customer").count(), spark.table("notes").count())
PY
expect_equal "queries after the run" "$(cat "$E2E_OUT/after.out")" "3 2"
stop_server TERM

# No project: queries are refused, pipelines still run.
cd ..
start_server
"$py" - "$url" >"$E2E_OUT/noproj.out" 2>&1 <<'PY' || true
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
try:
    spark.sql("SELECT 1").collect()
except Exception as e:
    print(str(e).splitlines()[0])
PY
expect_file_contains "$E2E_OUT/noproj.out" "start it with \`weir serve --spec spark-pipeline.yml\`"
stop_server INT
