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
# DESCRIBE (TABLE, EXTENDED) names the types as Spark's DESCRIBE does.
for d in "DESCRIBE" "DESCRIBE TABLE" "DESC EXTENDED"; do
    expect_query "CREATE TEMPORARY VIEW v AS SELECT 1L AS a, 'x' AS b, CAST(1 AS DECIMAL(10,2)) AS c, TIMESTAMP'2024-01-01 00:00:00' AS d, array(1) AS e, named_struct('x', 1, 'y', 'z') AS f, map('k', 1.5D) AS g, DATE'2024-01-01' AS h, CAST(1 AS INT) AS i; $d v" 'col_name,data_type,comment
a,bigint,
b,string,
c,"decimal(10,2)",
d,timestamp,
e,array<int>,
f,"struct<x:int,y:string>",
g,"map<string,double>",
h,date,
i,int,'
done
expect_query "DESCRIBE exact" 'col_name,data_type,comment
mean,"decimal(24,7)",
ratio,"decimal(38,18)",'
