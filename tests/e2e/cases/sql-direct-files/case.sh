# Direct file queries (format.`path`) in materialized views, persisted and
# temporary views and `weir query`, with Spark's column names and types:
# CSV without a header is strings _c0, _c1, ...; JSON infers; text is one
# `value` column; relative paths are the project's. Columns inferred from
# JSON are in name order, as Spark infers them.

mkdir -p data/pq
printf '{"id": 1, "name": "ann"}\n{"id": 2, "name": "bob"}\n' > data/people.json
printf '{"zeta": 1, "alpha": "x", "Mid": true}\n' > data/zebra.json
printf 'a,1\nb,2\n' > data/pairs.csv
printf 'first\nsecond\n' > data/lines.txt
py=$(weir_python)
"$py" -c "import duckdb; duckdb.sql(\"COPY (SELECT 7 AS n) TO 'data/pq/p.parquet' (FORMAT parquet)\")"

run_weir run
expect_exit 0
expect_query "SELECT id, name FROM people ORDER BY id" "id,name
1,ann
2,bob"
expect_query "SELECT * FROM zebra" "Mid,alpha,zeta
true,x,1"
expect_query "SELECT _c0, _c1, typeof(_c1) AS t FROM raw_csv ORDER BY _c0" "_c0,_c1,t
a,1,string
b,2,string"
expect_query "SELECT value FROM lines ORDER BY value" "value
first
second"
expect_query "SELECT k, v FROM from_view ORDER BY k" "k,v
a,1
b,2"
expect_query "SELECT n FROM from_parquet" "n
7"
# weir query reads paths the same way.
expect_query "SELECT * FROM csv.\`data/pairs.csv\` ORDER BY _c0" "_c0,_c1
a,1
b,2"
expect_query "SELECT name FROM json.\`data/people.json\` WHERE id = 2" "name
bob"
expect_query "SELECT * FROM json.\`data/zebra.json\`" "Mid,alpha,zeta
true,x,1"
expect_query "SELECT count(*) AS n FROM text.\`data/lines.txt\`" "n
2"
# A format DuckDB cannot read is refused with the location.
run_weir query "SELECT * FROM orc.\`data/x.orc\`"
expect_exit 2
expect_stderr_contains "1:15: error: [UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY]"
expect_stderr_not_contains "pg_catalog"
