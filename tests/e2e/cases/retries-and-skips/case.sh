# A failing flow is retried with backoff (spark.sql.pipelines.
# maxFlowRetryAttempts, default 2: three attempts), then everything
# downstream is SKIPPED, independent branches finish, and the run FAILS.
# A failure no retry can change (a malformed cast, a FAIL UPDATE
# expectation) fails the flow at once.

run_weir run
expect_exit 1
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.broken' has FAILED" "$WEIR_STDOUT")" 3
expect_stdout_contains "Flow spark_catalog.default.independent has COMPLETED."
expect_stdout_contains "Flow 'spark_catalog.default.after_broken' SKIPPED due to upstream failure(s)."
expect_stdout_contains "Run is FAILED since flow 'spark_catalog.default.broken' has failed more than 2 times."
expect_stdout_contains "UNABLE_TO_ACQUIRE_MEMORY"
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

# Deterministic failures are not retried: a malformed cast the analyzer
# cannot see, then a FAIL UPDATE expectation.
cat > transformations/pipeline.sql <<'EOF2'
CREATE MATERIALIZED VIEW base AS SELECT id, CAST(id AS STRING) AS s FROM range(5);
CREATE MATERIALIZED VIEW bad_cast AS SELECT CAST(s || 'x' AS INT) AS n FROM base;
EOF2
run_weir run
expect_exit 1
expect_stdout_contains "CAST_INVALID_INPUT"
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.bad_cast' has FAILED" "$WEIR_STDOUT")" 1
expect_stdout_contains "Run is FAILED since flow 'spark_catalog.default.bad_cast' has failed."
cat > transformations/pipeline.sql <<'EOF2'
CREATE MATERIALIZED VIEW base AS SELECT id, CAST(id AS STRING) AS s FROM range(5);
CREATE MATERIALIZED VIEW small (CONSTRAINT small EXPECT (id < 3) ON VIOLATION FAIL UPDATE)
AS SELECT id FROM base;
EOF2
run_weir run
expect_exit 1
expect_stdout_contains "EXPECTATION_VIOLATION"
expect_equal "attempts" "$(grep -c "Flow 'spark_catalog.default.small' has FAILED" "$WEIR_STDOUT")" 1
