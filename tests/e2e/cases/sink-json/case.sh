# JSON sink: a streaming append flow writes newline-delimited JSON files
# (nested values as JSON objects and arrays). Each run appends only the new
# rows, exactly once; full refresh sends every row again and warns. Read
# back with stock DuckDB. partitionBy is refused: DuckDB cannot partition
# JSON output.

py=$(weir_python)
check() { # check.py args: see ../sink-common/check.py
    "$py" "$E2E_CASE/../sink-common/check.py" "$@" >"$E2E_OUT/check.txt" \
        2>"$E2E_OUT/check.err" || e2e_fail "$(cat "$E2E_OUT/check.txt" "$E2E_OUT/check.err")"
    e2e_pass
}

run_weir query "CREATE TABLE src (id BIGINT)"
run_weir query "INSERT INTO src SELECT id FROM range(0, 300) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
check json out/events --ids 300
expect_equal "first line" "$(head -n 1 out/events/*.json)" '{"id":0,"info":{"n":0,"tags":["a","b"]},"amount":0.0}'

run_weir query "INSERT INTO src SELECT id FROM range(300, 1000) AS t(id)"
run_weir run
expect_exit 0
check json out/events --ids 1000
expect_equal "files" "$(ls out/events | wc -l)" 2

# A half-written file a killed writer left in the flow's stage folder
# ("<name>.tmp-<pid>") is removed by the next batch.
stage=$(dirname "$(find storage/sinks -mindepth 2 -maxdepth 2 -type d | head -n 1)/x")
touch "$stage/g0-b9.json.tmp-999999"
run_weir query "INSERT INTO src SELECT id FROM range(1000, 1001) AS t(id)"
run_weir run
expect_exit 0
expect_equal "files left in the stage folder" "$(find storage/sinks -type f | wc -l)" 0
check json out/events --ids 1001

run_weir run --full-refresh events_out
expect_exit 0
expect_stdout_contains "Full refresh of sink events_out resets its flows' checkpoints"
check json out/events --ids 1001 --copies 2

# Options are checked when the graph is validated (dry runs too).
cat >>transformations/pipeline.sql <<'SQL'
CREATE SINK bad USING json OPTIONS (path 'out/bad', partitionBy 'id');
CREATE FLOW to_bad AS INSERT INTO bad BY NAME SELECT id FROM STREAM src;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "[UNKNOWN_SINK_OPTION] Sink bad: option 'partitionBy' is not known to the json sink (known: path, compression)"
