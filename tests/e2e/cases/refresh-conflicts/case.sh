# --full-refresh-all conflicts with --full-refresh and --refresh, checked
# before anything is loaded, with Spark's error class and option spelling
# (cli.py names the first one "--full_refresh").

run_weir run --full-refresh-all --refresh orders
expect_exit 2
expect_stdout_empty
expect_stderr_contains "[CONFLICTING_PIPELINE_REFRESH_OPTIONS] --full-refresh-all option conflicts with --refresh"

run_weir run --full-refresh orders --full-refresh-all
expect_exit 2
expect_stdout_empty
expect_stderr_contains "[CONFLICTING_PIPELINE_REFRESH_OPTIONS] --full-refresh-all option conflicts with --full_refresh"

# Both: Spark reports --full_refresh first.
run_weir run --refresh a --full-refresh b --full-refresh-all --spec nowhere.yml
expect_exit 2
expect_stderr_contains "conflicts with --full_refresh"
expect_stderr_not_contains "nowhere.yml"

# Lists are comma-separated with blanks and empty items dropped, so a list
# with no names is no conflict: weir goes on to load the (missing) spec.
run_weir run --full-refresh-all --refresh " , ," --spec nowhere.yml
expect_failure
expect_stderr_not_contains "CONFLICTING_PIPELINE_REFRESH_OPTIONS"

# --refresh and --full-refresh together are fine on the client side.
run_weir run --refresh a --full-refresh b --spec nowhere.yml
expect_failure
expect_stderr_not_contains "CONFLICTING_PIPELINE_REFRESH_OPTIONS"
