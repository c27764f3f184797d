# Keywords as names, as in Spark's default keyword mode (issue 24): Kafka's
# offset and partition columns, limit, left, right, a table named select,
# and a sink whose quoted option keys are followed by more options. With
# spark.sql.ansi.enforceReservedKeywords the reserved ones are refused with
# Spark's PARSE_SYNTAX_ERROR, as in Spark. The whole keyword table and the
# property-list grid are checked against Spark by unit/test_sql_grammar.

write_spec keywords
cat >transformations/k.sql <<'SQL'
CREATE MATERIALIZED VIEW events AS
SELECT 1 AS offset, 2 AS partition, 'v' AS value, 3 AS limit, 4 AS left, 5 AS right;
CREATE MATERIALIZED VIEW totals AS
SELECT offset, partition, value, limit + left + right AS total FROM events;
CREATE MATERIALIZED VIEW select AS SELECT offset FROM (SELECT 7 AS `offset`);
CREATE MATERIALIZED VIEW props TBLPROPERTIES (kafka.bootstrap.servers 'h', 'a' = 1, select true)
AS WITH from AS (SELECT 1 AS x) SELECT s.from FROM (SELECT named_struct('from', x) AS s FROM from);
CREATE SINK out USING parquet OPTIONS ('path' 'out/x', 'compression' 'zstd');
SQL
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT * FROM totals" "offset,partition,value,total
1,2,v,12"
expect_query "SELECT offset FROM select" "offset
7"
expect_query "SELECT * FROM props" "from
1"

# A key given twice is Spark's DUPLICATE_KEY.
cat >transformations/k.sql <<'SQL'
CREATE SINK out USING parquet OPTIONS ('path' 'out/x', path 'out/y');
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/k.sql:1:39: error: [DUPLICATE_KEY] Found duplicate keys \`path\`."

# ANSI's reserved keywords name nothing once the pipeline asks for it.
cat >transformations/k.sql <<'SQL'
CREATE MATERIALIZED VIEW events AS SELECT 1 AS limit, 2 AS partition;
CREATE MATERIALIZED VIEW kafka AS SELECT 1 AS offset;
SQL
run_weir dry-run
expect_exit 0
sed -i 's/^configuration:$/configuration:\n  spark.sql.ansi.enforceReservedKeywords: "true"/' spark-pipeline.yml
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/k.sql:2:47: error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'offset'"
expect_stderr_not_contains "k.sql:1:"
