# weir run --remote (issue 20) against weir's own Spark Connect server
# (weir serve answers the same SDP commands as Spark; tests/spark/remote.py
# runs the real Spark): the SQL scaffold and the Python one run there with
# their events printed, recorded in the local state folder and shown by
# weir events --remote; a failed flow exits 1; a dry run; an unreachable
# server, a bad URI and a wrong token.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export XDG_CACHE_HOME="$E2E_WORK/cache"

run_weir init demo
expect_exit 0
cd demo
# The server resolves relative data paths against its own folder (as
# Spark does against its driver's): it runs in the project's.
start_server
run_weir run --remote "$url"
expect_exit 0
expect_stdout_contains "Creating dataflow graph on Spark Connect server localhost:"
expect_stdout_contains "Flow spark_catalog.default.orders_bronze has COMPLETED."
expect_stdout_contains "Run is COMPLETED."
# weir serve wrote the tables where the spec's storage says.
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
# The update is in the local state folder, not the project.
expect_equal "state folders" "$(ls "$XDG_CACHE_HOME/weir/remote/" | sed 's/[0-9]*$/PORT/')" "localhost-PORT"
run_weir events --remote "$url"
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_stdout_contains "orders_silver"
run_weir events --remote "$url" --format json
expect_exit 0
expect_stdout_contains '"event_type":"flow_progress"'
# --json prints the events with the update id they are recorded under.
run_weir run --remote "$url" --json
expect_exit 0
id=$(grep -m1 -o '"update_id":"[0-9a-f-]*"' "$WEIR_STDOUT")
[ -n "$id" ] || e2e_fail "no update_id in the JSON events"
run_weir events --remote "$url" --format json
expect_stdout_contains "$id"
run_weir dry-run --remote "$url"
expect_exit 0
expect_stdout_contains "Run is COMPLETED."

# A flow that fails there: exit 1, the failure among the events, recorded.
cat >transformations/broken.sql <<'SQL'
CREATE MATERIALIZED VIEW broken AS SELECT CAST('x' AS INT) AS n;
SQL
run_weir run --remote "$url"
expect_exit 1
expect_stdout_contains "has FAILED"
run_weir events --remote "$url"
expect_stdout_contains "FAILED"
rm transformations/broken.sql

# Nobody listens; a URI weir cannot use; a wrong token.
port=${url#sc://localhost:}
port=${port%%/*}
run_weir run --remote "sc://127.0.0.1:1"
expect_exit 1
expect_stderr_contains "cannot connect to 127.0.0.1:1"
run_weir run --remote "sc://localhost:$port/;use_ssl=true"
expect_exit 2
expect_stderr_contains "[INVALID_REMOTE_URI]"
run_weir run --remote "sc://localhost:$port/;token=wrong"
expect_exit 1
cd ..

# Python definitions: the stock client joins weir's session and graph
# (its data path resolves in demo/, the same landed orders).
run_weir init --language python demo2
cd demo2
WEIR_PYTHON="$py" run_weir run --remote "$url"
expect_exit 0
expect_stdout_contains "Importing "
expect_stdout_contains "Flow spark_catalog.default.daily_revenue has COMPLETED."
expect_stdout_contains "Run is COMPLETED."
cd ..
stop_server TERM
