# The pipeline UI (issue 19): the demo project with a flow that fails (so
# the one reading it is SKIPPED) and its expectation dropping a row; then
# `weir report --html` and the pages of `weir ui`, loaded in headless
# Chromium, must show the graph, the states, the row counts and the quality
# numbers, and be keyboard and screen-reader friendly (a11y.py); the
# same in headless Firefox (firefox.py). Screenshots are kept in
# <build>/ui-artefacts/. The server: token
# required, unknown routes and path escapes are 404, non-loopback binds
# refused without a token, 100 concurrent requests x 20 rounds without an
# error, and the page follows a second run made while it serves.

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ] && [ -n "${CI:-}" ]; then
    e2e_fail "chromium is not installed: CI must run scripts/bootstrap.sh"
elif [ -z "$chrome" ]; then
    echo "e2e/$E2E_NAME: chromium is not installed (scripts/bootstrap.sh installs it); skipped" >&2
    exit 0
fi
artefacts="$(dirname "$WEIR")/ui-artefacts"
mkdir -p "$artefacts"
browse() { # URL OUT_DOM [SCREENSHOT]
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$E2E_ROOT/chrome" \
        --virtual-time-budget=4000 --dump-dom "$1" >"$2" 2>"$E2E_OUT/chrome.err" ||
        e2e_fail "chromium could not load $1: $(tail -5 "$E2E_OUT/chrome.err")"
    if [ -n "${3:-}" ]; then
        timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
            --no-first-run --user-data-dir="$E2E_ROOT/chrome" \
            --hide-scrollbars --window-size=1280,2400 --screenshot="$3" "$1" \
            >/dev/null 2>>"$E2E_OUT/chrome.err" ||
            e2e_fail "chromium could not screenshot $1"
        [ -s "$3" ] || e2e_fail "no screenshot in $3"
    fi
    python3 "$E2E_CASE/dom.py" "$2" >"$2.summary"
}

run_weir init demo
expect_exit 0
cd demo
cat >transformations/broken.sql <<'SQL'
-- Fails at run time (a cast the analyzer cannot see), with no retries;
-- after_broken reads it and is SKIPPED.
SET spark.sql.pipelines.maxFlowRetryAttempts = 0;
CREATE MATERIALIZED VIEW broken AS
SELECT CAST(concat(status, 'x') AS INT) AS n FROM orders_silver;

CREATE MATERIALIZED VIEW after_broken TBLPROPERTIES ('quality' = 'gold', 'note' = 'a<b')
AS SELECT count(*) AS c FROM broken;
SQL
# Before any run: the graph, and no updates (nothing is created).
run_weir report --html -o "$E2E_WORK/before.html"
expect_exit 0
expect_file_contains "$E2E_WORK/before.html" "No updates recorded yet"
expect_file_contains "$E2E_WORK/before.html" 'class="node ds mv state&#45;idle"'
[ ! -e pipeline-storage ] || e2e_fail "the report created the storage"

run_weir run
expect_exit 1
expect_stdout_contains "Flow 'spark_catalog.default.after_broken' SKIPPED due to upstream failure(s)."

# --- weir report --html -------------------------------------------------------
run_weir report --html -o "$E2E_WORK/report.html"
expect_exit 0
expect_stderr_contains "Wrote the report of pipeline demo to"
# Self-contained: nothing fetched from elsewhere.
if grep -qiE '<script|<link|src="http|@import|url\(' "$E2E_WORK/report.html"; then
    e2e_fail "the report refers to outside resources or scripts"
fi
e2e_pass
browse "file://$E2E_WORK/report.html" "$E2E_OUT/report.dom" "$artefacts/ui-report.png"
cat >"$E2E_OUT/report.expected" <<'EOF2'
body data-mode=report
dataset spark_catalog.default.after_broken after_broken materialized view skipped – –
dataset spark_catalog.default.broken broken materialized view failed – –
dataset spark_catalog.default.daily_revenue daily_revenue materialized view completed 3 DURATION
dataset spark_catalog.default.orders_bronze orders_bronze streaming table completed 30 DURATION
dataset spark_catalog.default.orders_silver orders_silver streaming table completed 28 DURATION
dataset-page spark_catalog.default.after_broken
dataset-page spark_catalog.default.broken
dataset-page spark_catalog.default.daily_revenue
dataset-page spark_catalog.default.orders_bronze
dataset-page spark_catalog.default.orders_silver
error ERROR
error-at transformations/broken.sql:4
flow spark_catalog.default.after_broken SKIPPED
flow spark_catalog.default.broken FAILED
flow spark_catalog.default.daily_revenue COMPLETED
flow spark_catalog.default.orders_bronze COMPLETED
flow spark_catalog.default.orders_silver COMPLETED
graph-edge batch edge
graph-edge batch edge
graph-edge batch edge
graph-edge edge streaming
graph-edge edge streaming
graph-node ds external node
graph-node ds mv node state-completed
graph-node ds mv node state-failed
graph-node ds mv node state-skipped
graph-node ds node st state-completed
graph-node ds node st state-completed
quality spark_catalog.default.orders_silver valid_amount orders_silver valid_amount drop 28 1 1 0 3.4% failed share, oldest first: 3.4%
quality spark_catalog.default.orders_silver valid_amount valid_amount drop 28 1 1 0 3.4% failed share, oldest first: 3.4%
update current
EOF2
mask_durations() { sed -E 's/ [0-9]+\.[0-9]{2} s$/ DURATION/' "$1"; }
# Keyboard and screen-reader basics (a11y.py says which are checked).
accessible() { # DOM_FILE
    python3 "$E2E_CASE/a11y.py" "$1" >"$1.a11y" ||
        e2e_fail "$(basename "$1") is not accessible: $(cat "$1.a11y")"
    e2e_pass
}
accessible "$E2E_OUT/report.dom"
mask_durations "$E2E_OUT/report.dom.summary" >"$E2E_OUT/report.actual"
compare_files "report DOM" "$E2E_OUT/report.expected" "$E2E_OUT/report.actual"
# The update's row: duration, state, rows written, refresh selection.
grep -qE '<td class="num">[0-9]+\.[0-9]{2} s</td><td><span class="state state-failed">failed</span></td><td class="num">61</td><td class="selection">all</td>' \
    "$E2E_OUT/report.dom" || e2e_fail "the update's row lacks its duration, state, rows or selection"
# The timeline: every flow queued, the three that ran with a running bar,
# the failed one with a failed bar.
expect_equal "queued bars" "$(grep -o 'class="p-queued"' "$E2E_OUT/report.dom" | wc -l)" 5
expect_equal "running bars" "$(grep -o 'class="p-running"' "$E2E_OUT/report.dom" | wc -l)" 3
expect_equal "failed bars" "$(grep -o 'class="p-failed"' "$E2E_OUT/report.dom" | wc -l)" 1

# --- weir ui ------------------------------------------------------------------
# Refused: a non-loopback bind without a token; bad ports.
run_weir ui --host 0.0.0.0 --port 0
expect_exit 2
expect_stderr_contains "is not a loopback address"
run_weir ui --port 70000
expect_exit 2
# Asked for, with an explicit token, it binds: served (here checked over
# loopback, which 0.0.0.0 includes) only to requests with that token, and
# stopped at once.
any_token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
timeout --foreground -s KILL 120 "$WEIR" ui --host 0.0.0.0 --port 0 --token "$any_token" \
    >"$E2E_OUT/any.out" 2>"$E2E_OUT/any.err" &
any_pid=$!
any_port=
for _ in $(seq 1 900); do
    any_port=$(grep -m1 -o '^http://0\.0\.0\.0:[0-9]*/' "$E2E_OUT/any.out" | grep -o '[0-9]*/$' | tr -d / || true)
    [ -n "$any_port" ] && break
    kill -0 "$any_pid" 2>/dev/null || break
    sleep 0.1
done
any_code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $any_token" "http://127.0.0.1:${any_port:-1}/")
any_none=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${any_port:-1}/")
kill -TERM "$any_pid" 2>/dev/null || true
wait "$any_pid" || true
[ -n "$any_port" ] || e2e_fail "weir ui --host 0.0.0.0 --token did not start: $(cat "$E2E_OUT/any.err")"
expect_equal "a non-loopback bind with its token" "$any_code" 200
expect_equal "a non-loopback bind without the token" "$any_none" 401

start_ui --poll-ms 200
port=${base##*:}
status() { curl -s --path-as-is -o /dev/null -w '%{http_code}' "$@"; }

browse "$url" "$E2E_OUT/ui.dom" "$artefacts/ui-server.png"
# The same graph, rows and quality as the report; the script ran.
grep -v '^dataset-page\|^body' "$E2E_OUT/report.expected" \
    | sed '/^quality .* valid_amount valid_amount /d' >"$E2E_OUT/ui.expected"
{ echo "body data-live=polling"; echo "body data-load-ms=set"; echo "body data-mode=server"; cat "$E2E_OUT/ui.expected"; } \
    | sort >"$E2E_OUT/ui.expected.sorted"
mask_durations "$E2E_OUT/ui.dom.summary" | sort >"$E2E_OUT/ui.actual"
compare_files "ui DOM" "$E2E_OUT/ui.expected.sorted" "$E2E_OUT/ui.actual"
accessible "$E2E_OUT/ui.dom"

# The same report and served page in Firefox (firefox.py drives it through
# its WebDriver BiDi endpoint), compared the same way.
firefox=$(command -v firefox-esr || command -v firefox || true)
if [ -z "$firefox" ] || ! /usr/bin/python3 -c 'import websocket' 2>/dev/null; then
    [ -z "${CI:-}" ] ||
        e2e_fail "firefox-esr or python3-websocket is not installed: CI must run scripts/bootstrap.sh"
    echo "e2e/$E2E_NAME: firefox-esr or python3-websocket is not installed; Firefox skipped" >&2
else
    mkdir -p "$E2E_ROOT/firefox"
    timeout 300 /usr/bin/python3 "$E2E_CASE/firefox.py" "$firefox" "$E2E_ROOT/firefox" \
        "file://$E2E_WORK/report.html" "$E2E_OUT/report.ff.dom" \
        "$url" "$E2E_OUT/ui.ff.dom" 2>"$E2E_OUT/firefox.err" ||
        e2e_fail "Firefox could not load the pages: $(tail -5 "$E2E_OUT/firefox.err")"
    cp "$E2E_OUT/report.ff.dom.png" "$artefacts/ui-report-firefox.png"
    cp "$E2E_OUT/ui.ff.dom.png" "$artefacts/ui-server-firefox.png"
    python3 "$E2E_CASE/dom.py" "$E2E_OUT/report.ff.dom" >"$E2E_OUT/report.ff.summary"
    mask_durations "$E2E_OUT/report.ff.summary" >"$E2E_OUT/report.ff.actual"
    compare_files "report DOM in Firefox" "$E2E_OUT/report.expected" "$E2E_OUT/report.ff.actual"
    python3 "$E2E_CASE/dom.py" "$E2E_OUT/ui.ff.dom" >"$E2E_OUT/ui.ff.summary"
    mask_durations "$E2E_OUT/ui.ff.summary" | sort >"$E2E_OUT/ui.ff.actual"
    compare_files "ui DOM in Firefox" "$E2E_OUT/ui.expected.sorted" "$E2E_OUT/ui.ff.actual"
    accessible "$E2E_OUT/report.ff.dom"
    accessible "$E2E_OUT/ui.ff.dom"
fi

# A dataset page: schema, defining query with its file:line, lineage.
curl -sf -H "Authorization: Bearer $token" \
    "$base/dataset?name=spark_catalog.default.broken" >"$E2E_OUT/broken.html"
expect_file_contains "$E2E_OUT/broken.html" "transformations/broken.sql:4"
expect_file_contains "$E2E_OUT/broken.html" "CAST(concat(status, &#39;x&#39;) AS INT) AS n FROM orders_silver;"
expect_file_contains "$E2E_OUT/broken.html" "<h3>Upstream</h3><ul class=\"upstream\"><li><a href=\"/dataset?name=spark_catalog.default.orders_silver"
# Its table properties, as defined (escaped), and none for a view without.
curl -sf -H "Authorization: Bearer $token" \
    "$base/dataset?name=spark_catalog.default.after_broken" >"$E2E_OUT/after_broken.html"
expect_file_contains "$E2E_OUT/after_broken.html" '<tr><th scope="row">quality</th><td>gold</td></tr><tr><th scope="row">note</th><td>a&lt;b</td></tr>'
expect_file_contains "$E2E_OUT/broken.html" "<p>No table properties.</p>"
accessible "$E2E_OUT/broken.html"

# The token: none or a wrong one is 401; the URL's sets a cookie.
expect_equal "no token" "$(status "$base/")" 401
expect_equal "wrong token" "$(status -H "Authorization: Bearer x$token" "$base/")" 401
expect_equal "token in the URL" "$(status "$url")" 200
curl -s -D "$E2E_OUT/headers" -o /dev/null "$url"
expect_file_contains "$E2E_OUT/headers" "Set-Cookie: weir_ui=$token; Path=/; HttpOnly; SameSite=Strict"
# Nothing is fetched from elsewhere: scripts only from the server itself.
expect_file_contains "$E2E_OUT/headers" "Content-Security-Policy: default-src 'none'; script-src 'self';"
expect_equal "cookie" "$(status -b "weir_ui=$token" "$base/")" 200
# Routes: nothing outside them, no path reaches a file, read-only.
for path in "/../../etc/passwd" "/%2e%2e/%2e%2e/etc/passwd" "/ui.js/.." "/dataset/x" \
    "/index.html" "/dataset?name=../../etc/passwd" "/dataset" \
    "/dataset?name=spark_catalog.default.missing" "/?update=nope" "//etc/passwd" \
    "/api/state/../../x" "/favicon.ico"; do
    expect_equal "GET $path" "$(status "${auth[@]}" "$base$path")" 404
done
expect_equal "POST" "$(status "${auth[@]}" -X POST -d x "$base/")" 405
expect_equal "DELETE" "$(status "${auth[@]}" -X DELETE "$base/")" 405

# Load: 100 concurrent requests x 20 rounds, no error.
timeout 600 python3 "$E2E_CASE/load.py" "$port" "$token" spark_catalog.default.orders_silver \
    100 20 >"$E2E_OUT/load.out" 2>&1 || e2e_fail "load: $(cat "$E2E_OUT/load.out")"
expect_file_contains "$E2E_OUT/load.out" "2000 requests, 0 errors"

# Live: a run in another process (the server holds no lock meanwhile) and
# the state moves on; the page then lists two updates.
gen=$(curl -sf "${auth[@]}" "$base/api/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
run_weir run --refresh broken
expect_exit 1
for _ in $(seq 1 300); do
    updates=$(curl -sf "${auth[@]}" "$base/api/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["updates"])')
    [ "$updates" = 2 ] && break
    sleep 0.1
done
expect_equal "updates after a second run" "$updates" 2
now=$(curl -sf "${auth[@]}" "$base/api/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
[ "$now" -gt "$gen" ] || e2e_fail "generation did not move on ($gen -> $now)"
e2e_pass
browse "$url" "$E2E_OUT/ui2.dom"
expect_equal "update rows" "$(grep -c '^update ' "$E2E_OUT/ui2.dom.summary")" 2
# Outside the refresh selection: excluded, greyed in the graph.
grep -q '^flow spark_catalog.default.orders_bronze EXCLUDED$' "$E2E_OUT/ui2.dom.summary" ||
    e2e_fail "no EXCLUDED flow after a selective refresh: $(grep '^flow' "$E2E_OUT/ui2.dom.summary")"
grep -q '^graph-node ds node st state-excluded$' "$E2E_OUT/ui2.dom.summary" ||
    e2e_fail "no excluded graph node after a selective refresh"
# The refresh selection is recorded with the update and shown.
expect_query "SELECT options FROM weir.updates ORDER BY started_at DESC LIMIT 1" 'options
"{""refresh"": [""broken""]}"'
expect_file_contains "$E2E_OUT/ui2.dom" '<td class="selection">refresh broken</td>'
expect_file_contains "$E2E_OUT/ui2.dom" '<td class="selection">all</td>'

# While an update holds the storage (here flock(1) holds its lock), the
# page keeps the last state and says why; when the lock goes, it is live.
api_busy() { curl -sf "${auth[@]}" "$base/api/state" | python3 -c 'import json,sys; print("busy" if json.load(sys.stdin)["busy"] else "free")'; }
# -o: only flock holds the lock, not the sleep it runs.
flock -o -x pipeline-storage/weir.lock sleep 120 &
holder=$!
disown "$holder"
bg_holder() {
    pkill -KILL -P "$holder" 2>/dev/null || true
    kill -KILL "$holder" 2>/dev/null || true
}
e2e_at_exit bg_holder
sleep 0.2
touch pipeline-storage/weir.duckdb
for _ in $(seq 1 300); do [ "$(api_busy)" = busy ] && break; sleep 0.1; done
expect_equal "state while the storage is held" "$(api_busy)" busy
curl -sf "${auth[@]}" "$base/" >"$E2E_OUT/busy.html"
expect_file_contains "$E2E_OUT/busy.html" "An update is running: storage"
expect_equal "updates still shown" "$(grep -o '<tr data-update=' "$E2E_OUT/busy.html" | wc -l)" 2
bg_holder
for _ in $(seq 1 300); do [ "$(api_busy)" = free ] && break; sleep 0.1; done
expect_equal "state after the lock is released" "$(api_busy)" free

# A clean stop on SIGTERM, without sanitizer reports.
stop_ui

# A definition error: the graph is left out, the updates are still shown.
echo "CREATE MATERIALIZED VIEW bad AS SELECT * FROM nowhere;" >transformations/bad.sql
run_weir report --html -o "$E2E_WORK/broken-defs.html"
expect_exit 0
expect_file_contains "$E2E_WORK/broken-defs.html" '<p id="graph-note">The graph cannot be shown'
expect_equal "updates with broken definitions" "$(grep -o '<tr data-update=' "$E2E_WORK/broken-defs.html" | wc -l)" 2
rm transformations/bad.sql
# Usage errors.
run_weir report
expect_exit 2
expect_stderr_contains "--html"
run_weir report --html -o /nonexistent/dir/x.html
expect_exit 2
run_weir ui --spec nowhere.yml --port 0
expect_exit 2
