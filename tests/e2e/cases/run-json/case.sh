# weir run --json: one JSON object per event on stdout, loading messages on
# stderr; details and error are JSON, not strings.

run_weir init demo
cd demo
run_weir run --json
expect_exit 0
expect_json_lines
expect_stdout_not_contains "Loading pipeline spec"
expect_stderr_contains "Loading pipeline spec from"
expect_stdout_contains '"event_type":"flow_progress"'
expect_stdout_contains '"message":"Run is COMPLETED."'
expect_stdout_matches '"timestamp":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z"'
if command -v jq >/dev/null; then
    expect_equal "details are objects" \
        "$(jq -r 'select(.details != null) | .details | type' "$WEIR_STDOUT" | sort -u)" \
        "object"
    expect_equal "one update" "$(jq -r .update_id "$WEIR_STDOUT" | sort -u | wc -l)" 1
fi

# A failing flow: exit 1, and its error is an object with class and message.
cat >transformations/broken.sql <<'SQL'
CREATE MATERIALIZED VIEW broken AS
SELECT CAST('not a number' AS INT) AS n
SQL
run_weir run --json --quiet
expect_exit 1
expect_json_lines
expect_stderr_empty
expect_stdout_contains '"level":"ERROR"'
expect_stdout_matches '"error":\{"class":'

# The same as text: the error's class and message indented under the event.
run_weir run
expect_exit 1
expect_stdout_contains "Flow 'spark_catalog.default.broken' has FAILED"
expect_stdout_matches '^    (\[[A-Z_.]+\] )?.+'
expect_stdout_matches ': Run is FAILED'
