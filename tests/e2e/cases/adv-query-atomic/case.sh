# weir query: every writing statement is atomic (a failing one changes
# nothing, even when it becomes several DuckDB statements), and INSERT
# OVERWRITE reads its target's old contents.

run_weir init demo
cd demo

run_weir query "CREATE TABLE t AS SELECT id FROM range(100)"
expect_exit 0

# A failing overwrite keeps every row (it was DELETE, then a failing INSERT).
run_weir query "INSERT OVERWRITE t SELECT nosuch FROM t"
expect_exit 2
expect_stderr_contains "nosuch"
expect_query "SELECT count(*) AS n, sum(id) AS s FROM t" "n,s
100,4950"

# An overwrite from the table itself sees the old rows.
run_weir query "INSERT OVERWRITE t SELECT id + 1000 FROM t"
expect_exit 0
expect_query "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM t" "n,lo,hi
100,1000,1099"
run_weir query "INSERT OVERWRITE TABLE t (id) SELECT id - 1000 FROM t WHERE id < 1010"
expect_exit 0
expect_query "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM t" "n,lo,hi
10,0,9"
run_weir query "INSERT OVERWRITE t BY NAME SELECT id * 2 AS id FROM t"
expect_exit 0
expect_query "SELECT sum(id) AS s FROM t" "s
90"

# A failing overwrite as the last of several statements, and as a middle
# one: the statements before it stay committed, nothing after it runs.
run_weir query "INSERT INTO t VALUES (100); INSERT OVERWRITE t SELECT 1 / 0 FROM t WHERE CAST('x' AS INT) = 1; INSERT INTO t VALUES (200)"
expect_failure
expect_query "SELECT count(*) AS n, max(id) AS hi FROM t" "n,hi
11,100"

# A type error in the middle of the new rows: nothing is replaced.
run_weir query "INSERT OVERWRITE t SELECT CAST(CASE WHEN id = 18 THEN 'x' ELSE CAST(id AS STRING) END AS INT) FROM t"
expect_failure
expect_query "SELECT count(*) AS n FROM t" "n
11"

# ALTER TABLE ADD COLUMNS with a bad second column adds neither.
run_weir query "ALTER TABLE t ADD COLUMNS (x INT, id INT)"
expect_failure
expect_query "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 't'" "n
1"
run_weir query "ALTER TABLE t ADD COLUMNS (x INT, y STRING)"
expect_exit 0
expect_query "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 't'" "n
3"

# The overwrite's staging table is gone afterwards.
expect_query "INSERT OVERWRITE t SELECT * FROM t; SELECT count(*) AS n FROM information_schema.tables WHERE table_name LIKE '%overwrite%'" "n
0"
