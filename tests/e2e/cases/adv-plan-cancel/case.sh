# SIGTERM and Ctrl-C stop `weir run`, `weir query` and a query served by
# `weir serve` while it is planned (issue 39, item 2). The test hook
# WEIR_TEST_PROBE_DELAY_MS (asan builds: tests/e2e/README.md) makes every
# type probe wait 2 s and say so on stderr: SLOW's 60 DECIMAL products
# then take minutes to plan, and the case signals weir once a probe is
# under way (seen on stderr), never after a sleep. Before, a signal waited
# for the planning to end (a run), or killed weir (a query). The waits are
# bounds that only catch a hang; nothing is timed.
export WEIR_TEST_PROBE_DELAY_MS=2000
items=$(awk 'BEGIN { for (i = 1; i <= 60; i++) printf "%sm * %d.5 AS c%d", (i > 1 ? ", " : ""), i, i }')
slow="SELECT $items FROM VALUES (1, 1.25), (2, 2.5) AS t(x, m)"
mkdir -p transformations
printf 'CREATE MATERIALIZED VIEW fast AS SELECT 1 AS one;\n' >transformations/fast.sql
printf 'CREATE MATERIALIZED VIEW slow AS %s;\n' "$slow" >transformations/slow.sql
printf '%s' "$slow" >slow.sql
HOOK="weir test hook: type probe delayed"

# probes FILE: how many probes FILE reports.
probes() { grep -c "$HOOK" "$1" 2>/dev/null || true; }
# wait_probe FILE [N]: until FILE reports more than N (0) probes (120 s).
wait_probe() {
    for _ in $(seq 1 1200); do
        [ "$(probes "$1")" -gt "${2:-0}" ] && return 0
        sleep 0.1
    done
    e2e_fail "no probe under way in $1 (is weir built with WEIR_TEST_HOOKS?): $(tail -5 "$1")"
}
# wait_ended PID: until PID ends (60 s at most); its status in $status.
wait_ended() {
    for _ in $(seq 1 600); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2>/dev/null; then
        kill -KILL "$1"
        e2e_fail "pid $1 did not stop within 60 s of the signal"
    fi
    status=0
    wait "$1" || status=$?
}
no_sanitizer_report() {
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$1"; then
        e2e_fail "sanitizer report: $(head -40 "$1")"
    fi
}

# weir run: SIGTERM while the graph is resolved. Nothing ran; the update
# is recorded CANCELED; the storage is free again.
"$WEIR" run >"$E2E_OUT/run.out" 2>&1 &
pid=$!
wait_probe "$E2E_OUT/run.out"
kill -TERM "$pid"
wait_ended "$pid"
expect_equal "exit status of the cancelled run" "$status" 1
expect_file_contains "$E2E_OUT/run.out" "Run is CANCELED."
grep -q "is QUEUED\|is RUNNING\|has COMPLETED" "$E2E_OUT/run.out" &&
    e2e_fail "flows ran after the signal: $(cat "$E2E_OUT/run.out")"
no_sanitizer_report "$E2E_OUT/run.out"
WEIR_TEST_PROBE_DELAY_MS=0 expect_query "SELECT state FROM weir.updates" "state
CANCELED"

# weir query: Ctrl-C while it is planned. It fails with OPERATION_CANCELED
# (exit 1), instead of being killed by the signal.
"$WEIR" query "$slow" >"$E2E_OUT/query.out" 2>"$E2E_OUT/query.err" &
pid=$!
wait_probe "$E2E_OUT/query.err"
kill -INT "$pid"
wait_ended "$pid"
expect_equal "exit status of the cancelled query" "$status" 1
expect_file_contains "$E2E_OUT/query.err" "OPERATION_CANCELED"
no_sanitizer_report "$E2E_OUT/query.err"

# weir serve: a query being planned when the server gets SIGINT. The
# query stops at its next probe (at most the probe under way ends after
# the signal) and the server stops (exit 0, within stop_server's bound;
# it waits for the query to return, then for its client's connection to
# settle). The client hears OPERATION_CANCELED and ends by itself: its
# Config calls while it raises the error are answered (before, in about
# half the runs the second found the server gone and the client retried
# for minutes).
rm transformations/slow.sql
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
start_server --spec spark-pipeline.yml
timeout 300 "$py" client.py "$url" slow.sql >"$E2E_OUT/client.out" 2>"$E2E_OUT/client.err" &
client=$!
bg_pids+=("$client")
for _ in $(seq 1 1200); do
    grep -qx sending "$E2E_OUT/client.out" && break
    sleep 0.1
done
grep -qx sending "$E2E_OUT/client.out" ||
    e2e_fail "the client did not start: $(tail -5 "$E2E_OUT/client.err")"
wait_probe "$E2E_OUT/serve.err" "$(probes "$E2E_OUT/serve.err")"
at_signal=$(probes "$E2E_OUT/serve.err")
stop_server INT
after=$(($(probes "$E2E_OUT/serve.err") - at_signal))
[ "$after" -le 1 ] || e2e_fail "the served query went on planning after the signal: $after more probes"
# wait_ended's bound only catches a client that retries for minutes.
wait_ended "$client"
expect_file_contains "$E2E_OUT/client.out" "OPERATION_CANCELED"
