# Following a run live in `weir ui` (issue 19; docs/ui.md, "Following a
# run"): while `weir run` holds the storage in another process, the update
# writes its events to the live progress file beside the database and the
# server shows the update as it goes: flows queued, running and completed
# with their rows, in the pages and in /api/state. When the run ends the
# file is gone and the recorded update is shown. A progress file that cannot
# be written costs a WARN and nothing else; a stale one left by a killed run
# is ignored. The pages are fetched over plain HTTP and summarized with the
# ui case's dom.py.

dom() { python3 "$E2E_CASE/../ui/dom.py" "$1"; }

run_weir init demo
expect_exit 0
cd demo
# A materialized view that works until it is cancelled, so the update stays
# in the middle with the other flows done.
cat >transformations/slow.sql <<'SQL'
CREATE MATERIALIZED VIEW slow AS SELECT sum(hash(id)) AS h FROM range(40000000000);
SQL

run_pid=
run_cleanup() { [ -z "$run_pid" ] || kill -KILL "$run_pid" 2>/dev/null || true; }
e2e_at_exit run_cleanup
start_ui --poll-ms 100
state() { # FIELD of /api/state
    curl -sf "${auth[@]}" "$base/api/state" |
        python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("null" if v is None else v)' "$1"
}
page() { curl -sf "${auth[@]}" "$base/" >"$1" && dom "$1" >"$1.summary"; }

# --- A run in another process, followed as it goes -----------------------------
"$WEIR" run >"$E2E_OUT/run.out" 2>&1 &
run_pid=$!
# Until the page shows the three demo flows done and slow still running.
for _ in $(seq 1 1200); do
    page "$E2E_OUT/live.html" 2>/dev/null || true
    grep -q '^flow spark_catalog.default.slow RUNNING$' "$E2E_OUT/live.html.summary" 2>/dev/null &&
        grep -q '^flow spark_catalog.default.daily_revenue COMPLETED$' "$E2E_OUT/live.html.summary" &&
        break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$run_pid" 2>/dev/null || e2e_fail "the run ended early: $(tail -5 "$E2E_OUT/run.out")"
expect_file_exists pipeline-storage/weir.progress.jsonl
grep -v '^quality\|^graph-edge' "$E2E_OUT/live.html.summary" |
    sed -E 's/ [0-9]+\.[0-9]{2} s$/ DURATION/' >"$E2E_OUT/live.actual"
cat >"$E2E_OUT/live.expected" <<'EOS'
body data-mode=server
dataset spark_catalog.default.daily_revenue daily_revenue materialized view completed 3 DURATION
dataset spark_catalog.default.orders_bronze orders_bronze streaming table completed 30 DURATION
dataset spark_catalog.default.orders_silver orders_silver streaming table completed 28 DURATION
dataset spark_catalog.default.slow slow materialized view running – –
flow spark_catalog.default.daily_revenue COMPLETED
flow spark_catalog.default.orders_bronze COMPLETED
flow spark_catalog.default.orders_silver COMPLETED
flow spark_catalog.default.slow RUNNING
graph-node ds external node
graph-node ds mv node state-completed
graph-node ds mv node state-running
graph-node ds node st state-completed
graph-node ds node st state-completed
update current
EOS
compare_files "the page during the run" "$E2E_OUT/live.expected" "$E2E_OUT/live.actual"
# The running update heads the list, with the rows written so far; the
# expectation's numbers are there already.
expect_file_contains "$E2E_OUT/live.html" "An update is running: this page follows its progress"
expect_file_contains "$E2E_OUT/live.html" \
    '<td><span class="state state-running">running</span></td><td class="num">61</td>' 
grep -q '^quality spark_catalog.default.orders_silver valid_amount .* drop 28 1 1 0' "$E2E_OUT/live.html.summary" ||
    e2e_fail "no quality numbers while running: $(grep quality "$E2E_OUT/live.html.summary")"
running=$(state running)
[ "$running" != null ] || e2e_fail "/api/state names no running update"
expect_equal "updates while running" "$(state updates)" 1
python3 "$E2E_CASE/../ui/a11y.py" "$E2E_OUT/live.html" >"$E2E_OUT/live.a11y" ||
    e2e_fail "the live page is not accessible: $(cat "$E2E_OUT/live.a11y")"
head -1 pipeline-storage/weir.progress.jsonl | grep -q "\"update_id\": \"$running\", \"pid\": $run_pid" ||
    e2e_fail "the progress file's header: $(head -1 pipeline-storage/weir.progress.jsonl)"
# The dataset page of the running flow says what it does now.
curl -sf "${auth[@]}" "$base/dataset?name=spark_catalog.default.slow" >"$E2E_OUT/slow.html"
expect_file_contains "$E2E_OUT/slow.html" '<dd><span class="state state-running">running</span>, – rows</dd>'
e2e_pass

# --- The end: the recorded update replaces the live one ------------------------
kill -INT "$run_pid"
rc=0
wait "$run_pid" || rc=$?
run_pid=
expect_equal "exit code of the cancelled run" "$rc" 1
expect_no_file pipeline-storage/weir.progress.jsonl
for _ in $(seq 1 300); do
    [ "$(state running)" = null ] && [ "$(state busy)" = null ] && break
    sleep 0.1
done
expect_equal "running after the run" "$(state running)" null
page "$E2E_OUT/end.html"
grep '^flow \|^update ' "$E2E_OUT/end.html.summary" >"$E2E_OUT/end.actual"
cat >"$E2E_OUT/end.expected" <<'EOS'
flow spark_catalog.default.daily_revenue COMPLETED
flow spark_catalog.default.orders_bronze COMPLETED
flow spark_catalog.default.orders_silver COMPLETED
flow spark_catalog.default.slow STOPPED
update current
EOS
compare_files "the page after the run" "$E2E_OUT/end.expected" "$E2E_OUT/end.actual"
expect_file_contains "$E2E_OUT/end.html" '<span class="state state-canceled">canceled</span>'
expect_equal "the recorded update is the one followed" \
    "$(grep -c "data-update=\"$running\"" "$E2E_OUT/end.html")" 1

# --- A run killed outright leaves a stale file: ignored, then replaced ---------
"$WEIR" run >"$E2E_OUT/run2.out" 2>&1 &
run_pid=$!
for _ in $(seq 1 1200); do
    [ "$(state running)" != null ] && break
    sleep 0.1
done
killed=$(state running)
[ "$killed" != null ] || e2e_fail "the second run was not followed"
kill -KILL "$run_pid"
wait "$run_pid" 2>/dev/null || true
run_pid=
expect_file_exists pipeline-storage/weir.progress.jsonl
for _ in $(seq 1 300); do
    [ "$(state running)" = null ] && [ "$(state busy)" = null ] && break
    sleep 0.1
done
expect_equal "a killed run is not shown as running" "$(state running)" null

stop_ui

# --- A progress file that cannot be written costs a WARN, nothing else ---------
rm transformations/slow.sql
rm -f pipeline-storage/weir.progress.jsonl
mkdir pipeline-storage/weir.progress.jsonl
run_weir run
expect_exit 0
expect_stdout_contains "cannot be created at $E2E_WORK/demo/pipeline-storage/weir.progress.jsonl"
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT count(*) AS n FROM weir.event_log WHERE level = 'WARN' AND message LIKE '%live progress%'" 'n
1'
expect_dir_exists pipeline-storage/weir.progress.jsonl
rmdir pipeline-storage/weir.progress.jsonl
run_weir run
expect_exit 0
expect_stdout_not_contains "live progress"
expect_no_file pipeline-storage/weir.progress.jsonl
