# sum() and avg() of decimals have Spark's result types (sum: DECIMAL(p+10,s),
# avg: DECIMAL(p+4,s+4), at most 38 digits), so a declared schema written
# for Spark (DECIMAL(28,2) for a sum of DECIMAL(18,2)) is accepted, and
# inferred schemas match Spark's; weir query gives the same types.

run_weir dry-run
expect_exit 0
expect_stdout_matches '^    total +decimal\(28,2\)'
expect_stdout_matches '^    mean +decimal\(22,6\)'
run_weir run
expect_exit 0
expect_query "SELECT region, total, mean FROM by_region ORDER BY region" "region,total,mean
east,3.30,1.650000
west,3.35,3.350000"
expect_query "SELECT DISTINCT typeof(total) AS t, typeof(mean) AS m, typeof(running) AS r FROM overall" "t,m,r
\"decimal(28,2)\",\"decimal(22,6)\",\"decimal(28,2)\""
expect_query "SELECT typeof(sum(amount)) AS s, typeof(avg(amount)) AS a, avg(amount) AS v FROM orders" "s,a,v
\"decimal(28,2)\",\"decimal(22,6)\",2.216667"
expect_query "SELECT total, ratio FROM doubled" "total,ratio
13.30,2.216666666667"
