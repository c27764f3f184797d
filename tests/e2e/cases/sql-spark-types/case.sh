# Spark's types and names where weir used to differ: a VALUES column of
# NULLs in a UNION with a DATE, a cast's name inside an aggregate, and
# exact decimal averages and quotients (DuckDB goes through DOUBLE).

run_weir dry-run
expect_exit 0
expect_stdout_matches '^    count\(CAST\(d AS STRING\)\) +bigint'
expect_stdout_matches '^    ratio +decimal\(38,18\)'
run_weir run
expect_exit 0
expect_query "SELECT d FROM dates ORDER BY d NULLS FIRST" "d

2024-01-01"
expect_query "SELECT * FROM counts ORDER BY d NULLS FIRST" "count(CAST(d AS STRING)),d
0,
1,2024-01-01"
expect_query "SELECT mean, ratio FROM exact" "mean,ratio
6172839450617283.5620000,6172839450617283945.000000000000000000"
