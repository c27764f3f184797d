# weir serve --env/--conf: the stock pipelines CLI of pyspark-client 4.2.0
# runs a project against a server started with an environment and a
# --conf; the runs write the environment's storage and database (not the
# spec's the client sends), Python files read the environment's and the
# --conf's values with spark.conf.get, and interactive queries read the
# environment's storage. Bad uses are usage or environment errors.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)

run_weir init demo
expect_exit 0
cat >demo/weir-environments.yml <<'YML'
dev:
  storage: dev-storage
  database: dev_db
  configuration:
    region: emea
YML
cat >demo/transformations/settings.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.materialized_view
def settings():
    return spark.range(1).select(
        F.lit(spark.conf.get("region")).alias("region"),
        F.lit(spark.conf.get("tier")).alias("tier"))
PY

# Usage and environment errors, before anything is served.
run_weir serve --port 0 --env dev
expect_exit 2
expect_stderr_contains "--env and --conf apply to the served project: give its --spec too"
run_weir serve --port 0 --spec demo/spark-pipeline.yml --env prod
expect_exit 2
expect_stderr_contains "weir-environments.yml:1:1: error: [UNKNOWN_ENVIRONMENT] Environment \`prod\` is not defined in weir-environments.yml (defined: \`dev\`)."
run_weir serve --port 0 --spec demo/spark-pipeline.yml --conf novalue
expect_exit 2

start_server --spec demo/spark-pipeline.yml --env dev --conf tier=gold
expect_file_contains "$E2E_OUT/serve.out" "Runs use environment dev's storage $E2E_WORK/demo/dev-storage, catalog spark_catalog, database dev_db and configuration over what clients send"

WEIR_CMD="pyspark.pipelines.cli run (in demo)"
WEIR_EXIT=0
(cd demo && SPARK_REMOTE=$url timeout 120 "$py" -m pyspark.pipelines.cli run) \
    >"$WEIR_STDOUT" 2>"$WEIR_STDERR" || WEIR_EXIT=$?
expect_exit 0
expect_stdout_contains "Flow spark_catalog.dev_db.daily_revenue has COMPLETED."
expect_stdout_contains "Run is COMPLETED."
expect_file_contains "$E2E_OUT/serve.out" "starting run (storage $E2E_WORK/demo/dev-storage)"
expect_no_file demo/pipeline-storage

# Interactive queries of the served project read the environment's storage.
cat >"$E2E_OUT/query.py" <<'PY'
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
print(spark.sql("SELECT region, tier FROM settings").collect())
print(spark.conf.get("region"))
PY
out=$(SPARK_REMOTE=$url timeout 120 "$py" "$E2E_OUT/query.py" 2>"$E2E_OUT/query.err") ||
    e2e_fail "the interactive query failed: $(cat "$E2E_OUT/query.err")"
expect_equal "interactive query" "$out" "[Row(region='emea', tier='gold')]
emea"
stop_server TERM

cd demo
expect_query "SELECT region, tier FROM settings" "region,tier
emea,gold" --env dev
expect_query "SELECT count(*) AS n FROM daily_revenue" "n
3" --env dev
