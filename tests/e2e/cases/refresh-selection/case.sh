# Refresh selection as in Spark: --refresh, --full-refresh, their
# combination, --full-refresh-all, and pipelines.reset.allowed.

run_weir query "CREATE TABLE source AS SELECT id FROM range(5)"
run_weir run
expect_exit 0
expect_query "SELECT (SELECT count(*) FROM raw) AS r, (SELECT count(*) FROM other) AS o" "r,o
5,5"

# --refresh: only the named datasets' flows run; the rest are EXCLUDED and
# their tables are not touched.
run_weir query "INSERT INTO source SELECT id FROM range(5, 8)"
run_weir run --refresh raw,summary
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.other' is EXCLUDED."
expect_stdout_contains "Flow 'spark_catalog.default.copy' is EXCLUDED."
expect_stdout_contains "Flow spark_catalog.default.raw has COMPLETED."
expect_query "SELECT (SELECT count(*) FROM raw) AS r, (SELECT count(*) FROM other) AS o, (SELECT n FROM summary) AS s" "r,o,s
8,5,8"

# --full-refresh of a resettable table: truncated and rebuilt from scratch.
run_weir run --full-refresh other
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM other" "n,d
8,8"

# An explicit full refresh of a protected table is refused.
run_weir run --full-refresh raw
expect_exit 1
expect_stdout_contains "TABLE_NOT_RESETTABLE"
expect_query "SELECT count(*) AS n FROM raw" "n
8"

# Refresh and full refresh of the same dataset conflict.
run_weir run --refresh other --full-refresh other
expect_exit 2
expect_stderr_contains "Datasets specified for refresh and full refresh cannot overlap: spark_catalog.default.other"

# --full-refresh-all: protected tables get a normal refresh, with a warning.
run_weir run --full-refresh-all
expect_exit 0
expect_stdout_contains "Skipping full refresh of spark_catalog.default.raw because pipelines.reset.allowed is false"
expect_query "SELECT (SELECT count(*) FROM raw) AS r, (SELECT count(*) FROM copy) AS c, (SELECT count(*) FROM other) AS o" "r,c,o
8,8,8"

# Unknown names are reported, not silently ignored.
run_weir run --refresh nope
expect_exit 0
expect_stdout_contains "Dataset 'nope' given to --refresh is not a table or sink of this pipeline; it is ignored."
