# Streaming flows read only what is new since their last checkpoint, from
# an external table (appended rows) and from a folder (new files), and the
# flow_progress events prove it.

run_weir query "CREATE TABLE source_events (id BIGINT)"
expect_exit 0
run_weir query "INSERT INTO source_events SELECT id FROM range(1, 101)"
expect_exit 0
run_weir query "CREATE TABLE labels AS SELECT * FROM VALUES (0, 'zero'), (1, 'one'), (2, 'two') AS t(k, label)"
expect_exit 0
mkdir -p landing
for i in 1 2 3; do
    printf '{"id": %d}\n{"id": %d}\n' $((1000 + i)) $((2000 + i)) > landing/f$i.json
done

run_weir run
expect_exit 0
expect_query "SELECT origin, n FROM totals ORDER BY origin" "origin,n
files,6
table,100"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM enriched" "n,d
106,106"

# Nothing new: every streaming flow completes with no output rows.
run_weir run
expect_exit 0
expect_stdout_contains "(3 streaming flows had no new data)"
expect_query "SELECT count(*) AS n FROM events" "n
106"

# New rows in the table and one new file: only those are read.
run_weir query "INSERT INTO source_events SELECT id FROM range(101, 111)"
printf '{"id": 3001}\n' > landing/f4.json
run_weir run --json
expect_exit 0
if command -v jq >/dev/null; then
    expect_equal "rows written by from_table" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.from_table" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.metrics.num_output_rows' "$WEIR_STDOUT")" 10
    expect_equal "rows written by from_files" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.from_files" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.metrics.num_output_rows' "$WEIR_STDOUT")" 1
    expect_equal "new files" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.from_files" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.checkpoint.sources[0].new_files' "$WEIR_STDOUT")" 1
    expect_equal "offsets of from_table" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.from_table" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.checkpoint.sources[0] | "\(.start_offset)-\(.end_offset)"' "$WEIR_STDOUT")" "100-110"
    expect_equal "rows into enriched" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.enriched" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.metrics.num_output_rows' "$WEIR_STDOUT")" 11
fi
expect_query "SELECT origin, n FROM totals ORDER BY origin" "origin,n
files,7
table,110"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM enriched" "n,d
117,117"
# A file that reappears under the same name is not read again.
touch landing/f1.json
run_weir run
expect_query "SELECT count(*) AS n FROM events" "n
117"

# The event log records every update.
expect_query "SELECT count(DISTINCT update_id) AS n FROM weir.event_log" "n
4"
