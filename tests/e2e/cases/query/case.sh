# weir query: SQL from the argument or stdin, three output formats, exit
# codes for SQL and runtime errors.

run_weir init demo
cd demo

run_weir query "SELECT 1 AS n, 'a,b' AS s, CAST(NULL AS STRING) AS z, '' AS e"
expect_exit 0
expect_stdout_equals "┌───┬─────┬──────┬───┐
│ n │ s   │ z    │ e │
├───┼─────┼──────┼───┤
│ 1 │ a,b │ NULL │   │
└───┴─────┴──────┴───┘
(1 row)"

expect_query "SELECT 1 AS n, 'a,b' AS s, CAST(NULL AS STRING) AS z, '' AS e, 'say \"hi\"' AS q" \
'n,s,z,e,q
1,"a,b",,"","say ""hi"""'

run_weir query --format json "SELECT 1 AS n, 2.50 AS d, true AS b, 'x' AS s, CAST(NULL AS INT) AS z"
expect_exit 0
expect_stdout_equals '{"n":1,"d":2.50,"b":true,"s":"x","z":null}'

# Wide characters keep the box aligned.
run_weir query "SELECT '日本' AS w, 'ab' AS x"
expect_exit 0
expect_stdout_contains "│ 日本 │ ab │"

# Numbers are right-aligned.
run_weir query "SELECT id FROM range(9, 12) ORDER BY id"
expect_exit 0
expect_stdout_contains "│  9 │"
expect_stdout_contains "│ 11 │"
expect_stdout_contains "(3 rows)"

# From stdin, with several statements: the last one's result is printed.
run_weir query --format csv - <<'SQL'
CREATE TABLE scratch AS SELECT 42 AS answer;
SELECT answer FROM scratch;
SQL
expect_exit 0
expect_stdout_equals "answer
42"
run_weir query --format csv <<<"SELECT 7 AS seven"
expect_exit 0
expect_stdout_equals "seven
7"

# A statement without a result prints nothing.
run_weir query "CREATE TABLE scratch2 (id INT)"
expect_exit 0
expect_stdout_empty

# A USE resets DuckDB's search path; the Spark functions weir implements
# as macros (here `/` and typeof) still resolve after it.
expect_query "USE spark_catalog.default; SELECT 7 / 2 AS d, typeof(1) AS t" "d,t
3.5,int"
expect_query "USE default; USE SCHEMA default; SELECT typeof(7 / 2) AS t" "t
double"

# SQL errors: exit 2, shown with a caret.
run_weir query "SELECT FROM WHERE"
expect_exit 2
expect_stderr_contains "error: "
run_weir query "SELECT * FROM no_such_table"
expect_exit 2
expect_stderr_contains "no_such_table"

# A closed pipe is not an error message.
run_weir query --format csv "SELECT id FROM range(0, 200000)"
expect_exit 0
"$WEIR" query --format csv "SELECT id FROM range(0, 200000)" 2>"$E2E_OUT/pipe.err" | head -n 1 >/dev/null || true
expect_equal "stderr after a closed pipe" "$(cat "$E2E_OUT/pipe.err")" ""

# Tables and the event log stay readable while a definition file has an
# error (only the spec and the storage are needed); running still fails.
run_weir run --quiet
expect_exit 0
printf 'CREATE MATERIALIZED VIEW broken AS SELEC 1;\n' > transformations/broken.sql
printf 'from pyspark import pipelines as dp\nthis is not python\n' > transformations/broken.py
expect_query "SELECT count(*) > 0 AS has_rows FROM daily_revenue" "has_rows
true"
run_weir events --format csv
expect_exit 0
expect_stdout_contains "COMPLETED"
run_weir run
expect_exit 2
expect_stderr_contains "SELEC"
rm transformations/broken.sql transformations/broken.py

# Generated names are Spark's (the rule is checked against Spark's own names
# by unit/test_sql_names): a column is named without the relation that
# qualifies it, math functions in upper case, defaults filled in.
expect_query "SELECT sum(t.a), ACOS(0) > 1, bround(2.5D), isnotnull(max(t.a)) FROM VALUES (1) AS t(a)" \
'sum(a),(ACOS(0) > 1),"bround(2.5, 0)",(max(a) IS NOT NULL)
1,true,2.0,true'

# An ORDER BY in a subquery naming its own relation's column (DataFrame
# plans nest queries like this) is translated once: it used to render the
# query around it again, and that query it, without end.
q="SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM
  (VALUES (1, 'a')) AS t(a, n)) AS _p1) AS _p2) AS _p4 ORDER BY _p4.n) AS _p3"
timeout 120 "$WEIR" query --format csv "$q" >"$E2E_OUT/nested.out" 2>&1 ||
    e2e_fail "nested ORDER BY: $(tail -3 "$E2E_OUT/nested.out")"
expect_file_contains "$E2E_OUT/nested.out" "1,a"

# `*` over a USING join lists the join columns first, as Spark does.
expect_query "SELECT * FROM VALUES (1, 2) AS a(x, k) JOIN VALUES (2, 3) AS b(k, y) USING (k)" \
'k,x,y
2,1,3'
