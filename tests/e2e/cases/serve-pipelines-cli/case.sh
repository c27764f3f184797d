# weir serve: the stock pipelines CLI of pyspark-client 4.2.0
# (SPARK_REMOTE=<url> python -m pyspark.pipelines.cli run|dry-run) runs the
# SQL and the Python medallion against it with the events weir run prints;
# refresh options, dry runs, Spark's error classes for an invalid graph and
# a failed flow (exit 1), a wrong token, two graphs at once, two runs on one
# storage (refused), a client that goes away and SIGTERM during a run
# (cancelled, recorded CANCELED, storage intact).
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)

# client DIR ARGS...: the stock CLI in project DIR against the server; its
# output and exit status go where run_weir puts weir's, for expect_*.
client() {
    local dir=$1; shift
    WEIR_CMD="pyspark.pipelines.cli $* (in $dir)"
    WEIR_EXIT=0
    (cd "$dir" && SPARK_REMOTE=${REMOTE:-$url} timeout 120 "$py" -m pyspark.pipelines.cli "$@") \
        >"$WEIR_STDOUT" 2>"$WEIR_STDERR" || WEIR_EXIT=$?
    printf '$ %s  -> %s\n' "$WEIR_CMD" "$WEIR_EXIT" >>"$E2E_OUT/log"
}

# The event lines of a run, without times and update ids.
events_of() {
    sed -n '/Starting run\.\.\./,$p' "$1" |
        sed -E 's/^[0-9-]+ [0-9:]+: //; s/Update [0-9a-f]{8} /Update <ID> /'
}

# wait_for FILE TEXT: up to 60 s for TEXT to appear in FILE.
wait_for() {
    for _ in $(seq 1 600); do
        grep -qF "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    e2e_fail "'$2' did not appear in $1: $(tail -5 "$1")"
}

run_weir init demo
expect_exit 0
run_weir init --language python demo2
expect_exit 0
cp -R demo demo-ref

# --- The SQL medallion --------------------------------------------------
start_server --spec demo/spark-pipeline.yml --token s3cret
expect_equal "token" "$token" s3cret
expect_file_contains "$E2E_OUT/serve.out" "Serving Spark Connect on 127.0.0.1:"
expect_file_contains "$E2E_OUT/serve.out" "relative paths resolve against $E2E_WORK/demo"

client demo run
expect_exit 0
expect_stdout_contains "Registering SQL file $E2E_WORK/demo/transformations/orders_bronze.sql..."
expect_stdout_matches "^[0-9-]+ [0-9:]+: Flow spark_catalog.default.orders_bronze is QUEUED.$"
expect_stdout_contains "Flow spark_catalog.default.daily_revenue has COMPLETED."
expect_stdout_contains "Run is COMPLETED."
# The same events weir run prints for the same project.
events_of "$WEIR_STDOUT" >"$E2E_OUT/served.events"
(cd demo-ref && "$WEIR" run >"$E2E_OUT/run.out" 2>&1)
events_of "$E2E_OUT/run.out" >"$E2E_OUT/run.events"
diff -u "$E2E_OUT/run.events" "$E2E_OUT/served.events" ||
    e2e_fail "the served run's events differ from weir run's"
expect_file_contains "$E2E_OUT/serve.out" "starting run (storage $E2E_WORK/demo/pipeline-storage)"

# The storage is free between runs: weir query reads it while serving.
cd demo
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
expect_query "SELECT count(*) AS n FROM daily_revenue" "n
3"
cd ..

client demo dry-run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_stdout_not_contains "QUEUED"

client demo run --full-refresh orders_bronze,orders_silver
expect_exit 0
expect_stdout_contains "Flow spark_catalog.default.orders_bronze is QUEUED."
expect_stdout_contains "1 excluded"
cd demo
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
cd ..

REMOTE="${url%s3cret}wrong" client demo run
expect_failure
expect_stderr_contains "UNAUTHENTICATED"
expect_stdout_not_contains "Starting run"

# An invalid graph: Spark's AnalysisException with the error class.
printf 'CREATE MATERIALIZED VIEW broken AS SELECT * FROM nowhere;\n' \
    >demo/transformations/zz_broken.sql
client demo run
expect_exit 1
expect_stderr_contains "pyspark.errors.exceptions.connect.AnalysisException: [TABLE_OR_VIEW_NOT_FOUND] transformations/zz_broken.sql:1:"
rm demo/transformations/zz_broken.sql

# A flow that fails while running: its FAILED event, then the run's error.
cat >demo/transformations/zz_fail.sql <<'SQL'
SET spark.sql.pipelines.maxFlowRetryAttempts = 0;
CREATE MATERIALIZED VIEW failing (
  CONSTRAINT never EXPECT (id < 0) ON VIOLATION FAIL UPDATE
) AS SELECT id FROM range(3);
SQL
client demo run
expect_exit 1
expect_stdout_contains "Flow 'spark_catalog.default.failing' has FAILED."
expect_stdout_contains "Error: [EXPECTATION_VIOLATION] Expectation 'never'"
expect_stdout_not_contains "Run is FAILED"
expect_stderr_contains "pyspark.errors.exceptions.connect.SparkException: [EXPECTATION_VIOLATION]"
expect_file_contains "$E2E_OUT/serve.out" "run FAILED"
rm demo/transformations/zz_fail.sql

# Two graphs at once, on two storages (demo-b's is absolute; its data
# paths resolve against the served project's folder).
cp -R demo-ref demo-b
rm -rf demo-b/pipeline-storage
sed -i "s#^storage: .*#storage: $E2E_WORK/demo-b/pipeline-storage#" demo-b/spark-pipeline.yml
(cd demo && SPARK_REMOTE=$url timeout 120 "$py" -m pyspark.pipelines.cli run --full-refresh-all) \
    >"$E2E_OUT/a.out" 2>&1 &
a_pid=$!
bg_pids+=("$a_pid")
client demo-b run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
a_rc=0
wait "$a_pid" || a_rc=$?
expect_equal "concurrent run exit status" "$a_rc" 0
expect_file_contains "$E2E_OUT/a.out" "Run is COMPLETED."
cd demo-b
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
cd ..

stop_server TERM
expect_file_contains "$E2E_OUT/serve.out" "Stopping (SIGTERM)..."

cd demo
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
cd ..

# --- The Python medallion (stock pyspark.pipelines files) ------------------
start_server --spec demo2/spark-pipeline.yml
expect_equal "random token" "$(printf %s "$token" | grep -cE '^[0-9a-f]{64}$')" 1
client demo2 run
expect_exit 0
expect_stdout_contains "Importing $E2E_WORK/demo2/transformations/orders_silver.py..."
expect_stdout_contains "Flow spark_catalog.default.orders_silver has COMPLETED."
expect_stdout_contains "Run is COMPLETED."
stop_server INT
cd demo2
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
expect_query "SELECT count(*) AS n FROM daily_revenue" "n
3"
cd ..

# --- Long runs: one storage, a client that goes away, SIGTERM ------------
start_server --spec slow/spark-pipeline.yml
(cd slow && SPARK_REMOTE=$url PYTHONUNBUFFERED=1 exec "$py" -m pyspark.pipelines.cli run) \
    >"$E2E_OUT/slow1.out" 2>&1 &
slow_pid=$!
bg_pids+=("$slow_pid")
wait_for "$E2E_OUT/slow1.out" "Flow spark_catalog.default.slow is RUNNING."

# A second update of the same storage is refused; a dry run may overlap.
client slow run
expect_exit 1
expect_stderr_contains "AnalysisException: [PIPELINE_STORAGE_BUSY] Storage $E2E_WORK/slow/storage is in use by another update running on this weir server"
client slow dry-run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."

# The client goes away: its run is cancelled.
kill -KILL "$slow_pid"
wait "$slow_pid" 2>/dev/null || true
wait_for "$E2E_OUT/serve.out" "run CANCELED"
expect_file_contains "$E2E_OUT/serve.out" ": the client went away"

# SIGTERM during a run: cancelled, reported to the client, recorded.
(cd slow && SPARK_REMOTE=$url PYTHONUNBUFFERED=1 exec "$py" -m pyspark.pipelines.cli run) \
    >"$E2E_OUT/slow2.out" 2>&1 &
slow_pid=$!
bg_pids+=("$slow_pid")
wait_for "$E2E_OUT/slow2.out" "Flow spark_catalog.default.slow is RUNNING."
stop_server TERM
expect_file_contains "$E2E_OUT/serve.out" "Cancelling 1 running update..."
expect_file_contains "$E2E_OUT/serve.out" ": the server is shutting down"
slow_rc=0
for _ in $(seq 1 300); do
    kill -0 "$slow_pid" 2>/dev/null || break
    sleep 0.1
done
wait "$slow_pid" || slow_rc=$?
expect_equal "client exit status after SIGTERM" "$slow_rc" 1
expect_file_contains "$E2E_OUT/slow2.out" "Run is CANCELED."
expect_file_contains "$E2E_OUT/slow2.out" "SparkException: [OPERATION_CANCELED]"

# The next weir run finds both updates recorded and the storage intact.
printf 'CREATE MATERIALIZED VIEW quick AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW slow AS SELECT 2 AS s;\n' \
    >slow/transformations/slow.sql
cd slow
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT state FROM weir.updates ORDER BY started_at" "state
CANCELED
CANCELED
COMPLETED"
expect_query "SELECT s FROM slow" "s
2"
