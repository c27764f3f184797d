# Planning is linear in the query (issue 39, item 2). The translator used
# to translate a SELECT's FROM again for every type probe made inside that
# FROM (a join's ON, an inline table's rows) and below a subquery's ORDER
# BY, each level probing the next: a join ON arithmetic over a table with
# a DECIMAL column, an inline table of two computed rows and a sorted
# DataFrame's show() burnt CPU for minutes. Each command here is bounded by
# `timeout` so that a hang fails the case; no time is asserted (the counts
# of probes are unit/test_sql_translate_cost's).
bounded() { timeout 120 "$@"; }

# weir query, as in the report.
run_weir query "CREATE TABLE dd (x BIGINT, m DECIMAL(10,2))"
expect_exit 0
run_weir query "CREATE TABLE ee (y BIGINT)"
expect_exit 0
run_weir query "INSERT INTO dd VALUES (1, 2.50), (2, 3.25); INSERT INTO ee VALUES (2), (4)"
expect_exit 0
bounded "$WEIR" query --format csv "SELECT dd.x, ee.y FROM dd JOIN ee ON dd.x + 1 = ee.y" \
    >"$E2E_OUT/join.out" 2>&1 || e2e_fail "the join: $(cat "$E2E_OUT/join.out")"
compare_files "join" <(printf 'x,y\n1,2\n') "$E2E_OUT/join.out"
# A DECIMAL operand of the ON gets Spark's result type (DECIMAL(12,2) for
# DECIMAL(10,2) * 2), typed over the join's two sides.
bounded "$WEIR" query --format csv \
    "SELECT dd.x, typeof(dd.m * 2) AS t FROM dd JOIN ee ON dd.m * 2 = ee.y + 1" \
    >"$E2E_OUT/typed.out" 2>&1 || e2e_fail "the typed join: $(cat "$E2E_OUT/typed.out")"
compare_files "typed join" <(printf 'x,t\n1,"decimal(12,2)"\n') "$E2E_OUT/typed.out"
bounded "$WEIR" query --format csv "SELECT * FROM VALUES (PI() * 2), (PI() * 4) AS t(v)" \
    >"$E2E_OUT/values.out" 2>&1 || e2e_fail "the inline table: $(cat "$E2E_OUT/values.out")"
compare_files "inline table" <(printf 'v\n6.283185307179586\n12.566370614359172\n') \
    "$E2E_OUT/values.out"
rm -rf storage

# A materialized view joining ON arithmetic, from its second update on.
mkdir -p data/dd data/ee
printf 'x,m\n1,2.50\n2,3.25\n' >data/dd/1.csv
printf 'y\n2\n3\n' >data/ee/1.csv
for update in 1 2 3; do
    bounded "$WEIR" run >"$E2E_OUT/run$update.out" 2>&1 ||
        e2e_fail "update $update: $(tail -20 "$E2E_OUT/run$update.out")"
    expect_file_contains "$E2E_OUT/run$update.out" "Run is COMPLETED."
    printf 'x,m\n%d,1.00\n' $((update + 2)) >data/dd/$((update + 1)).csv
    printf 'y\n%d\n' $((update + 3)) >data/ee/$((update + 1)).csv
done
expect_query "SELECT x, m, y, m2 FROM joined ORDER BY x" "x,m,y,m2
1,2.50,2,5.00
2,3.25,3,6.50
3,1.00,4,2.00
4,1.00,5,2.00"

# weir serve: spark.sql and DataFrames of the served project.
rm -f data/dd/4.csv data/ee/4.csv data/dd/3.csv data/ee/3.csv
rm -rf storage
bounded "$WEIR" run >"$E2E_OUT/run.out" 2>&1 || e2e_fail "run: $(tail "$E2E_OUT/run.out")"
bounded "$WEIR" run >"$E2E_OUT/run.out" 2>&1 || e2e_fail "run: $(tail "$E2E_OUT/run.out")"
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
start_server --spec spark-pipeline.yml
timeout 180 "$py" client.py "$url" >"$E2E_OUT/client.out" 2>"$E2E_OUT/client.err" ||
    e2e_fail "client failed: $(tail -20 "$E2E_OUT/client.err")"
compare_files "client output" expected.txt "$E2E_OUT/client.out"
stop_server TERM
