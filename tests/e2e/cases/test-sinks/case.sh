# weir test never writes a sink's real destination: sinks with a path
# (relative in the project, or absolute) write below the test's temporary
# folder, which is removed with it.
export TMPDIR="$E2E_WORK/tmp"
mkdir -p "$TMPDIR"
run_weir test --conf "abs_out=$E2E_WORK/far-in-test"
expect_exit 0
expect_stdout_contains "PASS sinks_stay_in_the_test ("
expect_no_file out
expect_no_file "$E2E_WORK/far-in-test"
expect_no_file storage
expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""

# A real run writes both (the absolute one given through --conf here).
run_weir query "CREATE TABLE src (id BIGINT); INSERT INTO src VALUES (7)"
expect_exit 0
run_weir run --quiet --conf "abs_out=$E2E_WORK/far"
expect_exit 0
expect_equal "near sink files" "$(ls out/orders | grep -c '\.json$')" 1
expect_equal "far sink files" "$(ls "$E2E_WORK/far" | grep -c '\.parquet$')" 1
