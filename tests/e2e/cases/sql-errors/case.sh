# Errors DuckDB would word its own way are Spark's, with weir's message
# and the location: an unknown table in weir query is TABLE_OR_VIEW_NOT_FOUND
# naming it as written (no "Did you mean pg_catalog..." suggestions, no
# 'Catalog "x" does not exist!').

run_weir run
expect_exit 0

run_weir query "SELECT * FROM nosuch.tbl"
expect_exit 2
expect_stderr_contains "query:1:15: error: [TABLE_OR_VIEW_NOT_FOUND] The table or view \`nosuch\`.\`tbl\` cannot be found."
run_weir query "SELECT n FROM numbers JOIN cat.db.tbl ON true"
expect_exit 2
expect_stderr_contains "query:1:28: error: [TABLE_OR_VIEW_NOT_FOUND] The table or view \`cat\`.\`db\`.\`tbl\` cannot be found."
expect_stderr_not_contains "does not exist"
run_weir query "SELECT * FROM pg_descriptio"
expect_exit 2
expect_stderr_contains "[TABLE_OR_VIEW_NOT_FOUND]"
expect_stderr_not_contains "Did you mean"
# Names that exist still read.
expect_query "SELECT sum(n) AS s FROM numbers" "s
3"

# A set operation over incompatible column types fails the reading dataset
# at analysis (dry-run included) with Spark's INCOMPATIBLE_COLUMN_TYPE and
# the location; its readers fail as upstream failures; nothing runs.
mkdir -p bad/transformations
cat > bad/spark-pipeline.yml <<'YML'
name: bad_union
storage: storage
libraries:
  - glob:
      include: transformations/**
YML
cat > bad/transformations/p.sql <<'SQL'
CREATE MATERIALIZED VIEW ints AS SELECT * FROM VALUES (1), (2) AS t(n);
CREATE MATERIALIZED VIEW dates AS SELECT DATE '2024-01-01' AS d;
CREATE MATERIALIZED VIEW mixed AS
SELECT n FROM ints
UNION ALL
SELECT d FROM dates;
CREATE MATERIALIZED VIEW after_mixed AS SELECT * FROM mixed;
CREATE MATERIALIZED VIEW widened AS SELECT n FROM ints UNION SELECT 1.5 UNION SELECT 'x';
SQL
cd bad
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/p.sql:4:1: error: [INCOMPATIBLE_COLUMN_TYPE] UNION can only be performed on tables with compatible column types. The first column of the second table is \"DATE\" type which is not compatible with \"INT\" at the same column of the first table."
expect_stderr_contains "Flows with errors: spark_catalog.default.mixed."
expect_stderr_contains "Flows that failed due to upstream errors: spark_catalog.default.after_mixed."
run_weir run
expect_exit 2
expect_stderr_contains "[INCOMPATIBLE_COLUMN_TYPE]"
expect_stderr_contains "2 errors"
cd ..

# Java regex syntax: a possessive quantifier RE2 can express greedily runs;
# a look-behind (RE2 has none) fails the flow at analysis with the
# construct and the location, before anything runs or is retried.
mkdir -p re/transformations
cp bad/spark-pipeline.yml re/spark-pipeline.yml
cat > re/transformations/p.sql <<'SQL'
CREATE MATERIALIZED VIEW words AS SELECT * FROM VALUES ('key:   value'), ('foobar') AS t(s);
CREATE MATERIALIZED VIEW trimmed AS
SELECT regexp_extract(s, ':[ ]*+[a-z]++$', 0) AS v FROM words WHERE s RLIKE ':[ ]*+';
SQL
cd re
run_weir run
expect_exit 0
expect_query "SELECT v FROM trimmed" "v
:   value"
cat >> transformations/p.sql <<'SQL'
CREATE MATERIALIZED VIEW behind AS
SELECT regexp_replace(s, '(?<=foo)bar', 'X') AS r FROM words;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/p.sql:5:26: error: [UNSUPPORTED_SPARK_SQL] The regular expression '(?<=foo)bar' uses a look-behind"
cd ..
