# `weir ui` on a Python project (issue 19): a refresh of the pages imports
# the project's Python again only when a Python file (or the spec) changed;
# otherwise the definitions of the last import are reused. A WEIR_PYTHON
# wrapper counts how often the definitions are imported.

real=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
cat >"$E2E_WORK/python" <<SH
#!/bin/sh
[ "\$1" = -c ] && echo import >>"$E2E_WORK/imports"
exec "$real" "\$@"
SH
chmod +x "$E2E_WORK/python"
export WEIR_PYTHON="$E2E_WORK/python"
imports() { [ -f "$E2E_WORK/imports" ] && wc -l <"$E2E_WORK/imports" || echo 0; }

run_weir init --language python demo
expect_exit 0
cd demo
run_weir run
expect_exit 0
rm -f "$E2E_WORK/imports"

ui_pid=
cleanup() { [ -z "$ui_pid" ] || kill -KILL "$ui_pid" 2>/dev/null || true; }
e2e_at_exit cleanup
timeout --foreground -s KILL 600 "$WEIR" ui --port 0 --poll-ms 100 \
    >"$E2E_OUT/ui.out" 2>"$E2E_OUT/ui.err" &
ui_pid=$!
url=
for _ in $(seq 1 900); do
    url=$(grep -m1 -o '^http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*$' "$E2E_OUT/ui.out" || true)
    [ -n "$url" ] && break
    kill -0 "$ui_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$url" ] || e2e_fail "weir ui did not start: $(cat "$E2E_OUT/ui.err")"
base=${url%%/\?*}
auth=(-H "Authorization: Bearer ${url##*token=}")
generation() {
    curl -sf "${auth[@]}" "$base/api/state" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])'
}
# Make the server read the pipeline again and wait until it did.
reload() {
    local before
    before=$(generation)
    touch pipeline-storage/weir.duckdb
    for _ in $(seq 1 900); do
        [ "$(generation)" -gt "$before" ] && return 0
        sleep 0.1
    done
    e2e_fail "the server did not read the pipeline again"
}
expect_equal "imports at start" "$(imports)" 1

# Nothing changed in the Python: two refreshes, no import.
reload
reload
expect_equal "imports after two refreshes" "$(imports)" 1
curl -sf "${auth[@]}" "$base/" >"$E2E_OUT/page.html"
expect_file_contains "$E2E_OUT/page.html" 'data-dataset="spark_catalog.default.daily_revenue"'

# A Python file changed: imported again, and its new dataset is shown.
cat >>transformations/daily_revenue.py <<'PY'


@dp.materialized_view(comment="Added while weir ui serves")
def added_later() -> DataFrame:
    return spark.range(3)
PY
reload
expect_equal "imports after an edit" "$(imports)" 2
curl -sf "${auth[@]}" "$base/" >"$E2E_OUT/page2.html"
expect_file_contains "$E2E_OUT/page2.html" 'data-dataset="spark_catalog.default.added_later"'
reload
expect_equal "imports after another refresh" "$(imports)" 2

kill -TERM "$ui_pid"
rc=0
wait "$ui_pid" || rc=$?
ui_pid=
expect_equal "weir ui exit status" "$rc" 0
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$E2E_OUT/ui.err"; then
    e2e_fail "sanitizer report from weir ui: $(head -40 "$E2E_OUT/ui.err")"
fi
