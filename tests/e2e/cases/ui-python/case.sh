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

start_ui --poll-ms 100
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

stop_ui
