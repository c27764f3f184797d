# A failing flow is retried with backoff (spark.sql.pipelines.
# maxFlowRetryAttempts, default 2: three attempts), then everything
# downstream is SKIPPED, independent branches finish, and the run FAILS.

run_weir run
expect_exit 1
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.broken' has FAILED" "$WEIR_STDOUT")" 3
expect_stdout_contains "Flow spark_catalog.default.independent has COMPLETED."
expect_stdout_contains "Flow 'spark_catalog.default.after_broken' SKIPPED due to upstream failure(s)."
expect_stdout_contains "Run is FAILED since flow 'spark_catalog.default.broken' has failed more than 2 times."
expect_stdout_contains "CAST_INVALID_INPUT"
expect_query "SELECT total FROM independent" "total
10"

# The failure is in the event log with its error.
expect_query "SELECT level, count(*) AS n FROM weir.event_log WHERE flow_name = 'spark_catalog.default.broken' AND message LIKE '%FAILED%' GROUP BY level ORDER BY level" "level,n
ERROR,1
WARN,2"

# SET before a flow applies to it: no retries for this one.
sed -i 's/^CREATE MATERIALIZED VIEW broken/SET spark.sql.pipelines.maxFlowRetryAttempts = 0;\nCREATE MATERIALIZED VIEW broken/' transformations/pipeline.sql
run_weir run
expect_exit 1
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.broken' has FAILED" "$WEIR_STDOUT")" 1
expect_stdout_contains "Run is FAILED since flow 'spark_catalog.default.broken' has failed."
