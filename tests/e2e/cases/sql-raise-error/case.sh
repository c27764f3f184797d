# raise_error() raises when a row evaluates it: the flow fails at execution
# with the user's message (Spark's USER_RAISED_EXCEPTION), is retried, its
# readers are SKIPPED and the run exits 1; a flow whose rows never reach it
# completes. Dry-run (analysis only) accepts it.

run_weir dry-run
expect_exit 0

run_weir run
expect_exit 1
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.checked' has FAILED" "$WEIR_STDOUT")" 3
expect_stdout_contains "[USER_RAISED_EXCEPTION] id 2 is too big"
expect_stdout_contains "Flow 'spark_catalog.default.after_checked' SKIPPED due to upstream failure(s)."
expect_stdout_contains "Flow spark_catalog.default.unreached has COMPLETED."
expect_stdout_not_contains "not supported"
expect_query "SELECT id, v FROM unreached ORDER BY id" "id,v
1,1
2,2"

# In weir query too.
run_weir query "SELECT raise_error('stop here')"
expect_failure
expect_stderr_contains "[USER_RAISED_EXCEPTION] stop here"
