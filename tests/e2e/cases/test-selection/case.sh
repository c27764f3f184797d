# weir test runs, by default, only the datasets a step's expectations read
# (rows, metrics of a dataset) and everything upstream of them, also through
# a temporary view. `broken` fails whenever it runs, so a test that passes
# did not run it. A query expectation, an expected error and explicit
# refresh options run as before.
export TMPDIR="$E2E_WORK/tmp"
mkdir -p "$TMPDIR"

run_weir test only_what_is_checked upstream_through_a_view metrics_of_a_dataset
expect_exit 0
expect_stdout_contains "PASS only_what_is_checked ("
expect_stdout_contains "PASS upstream_through_a_view ("
expect_stdout_contains "PASS metrics_of_a_dataset ("
expect_stdout_matches "^3 tests: 3 passed, 0 failed"

# The dataset that fails is run when a test reads it.
run_weir test broken_when_checked
expect_exit 1
expect_stdout_contains "FAIL broken_when_checked ("
expect_stdout_contains "[UNEXPECTED_ERROR] the update failed: [CAST_INVALID_INPUT]"

# Expectations whose reads are not known run the whole pipeline.
run_weir test query_runs_everything expected_error_runs_everything
expect_exit 1
expect_stdout_contains "FAIL query_runs_everything ("
expect_stdout_contains "PASS expected_error_runs_everything ("

# Explicit refresh options are the update's selection, as written.
run_weir test explicit_refresh_is_kept
expect_exit 1
expect_stdout_contains "FAIL explicit_refresh_is_kept ("
expect_stdout_contains "step 2"
expect_stdout_contains "[CAST_INVALID_INPUT]"

expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""
