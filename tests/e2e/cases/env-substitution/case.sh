# ${key} in SQL files is replaced by the pipeline configuration (Spark's
# spark.sql.variable.substitute), in every form Spark accepts; --conf
# overrides and extends the spec's configuration; an unbound variable is an
# error at its file:line:col; spark.sql.variable.substitute=false turns it
# off.

run_weir run --quiet
expect_exit 0
expect_query "SELECT id, label, forms FROM numbers ORDER BY id" "id,label,forms
2,spec,2/2/2/2
3,spec,2/2/2/2
4,spec,2/2/2/2"

# --conf overrides a key of the spec (repeatable; the last one wins).
run_weir run --quiet --conf label=cli --conf min_id=1 --conf min_id=4
expect_exit 0
expect_query "SELECT id, label FROM numbers ORDER BY id" "id,label
4,cli"

# dry-run and graph take --conf too: the substituted dataset name shows.
run_weir dry-run --conf source=other
expect_exit 0
expect_stdout_contains "materialized view spark_catalog.default.other"
run_weir graph --conf source=third
expect_exit 0
expect_stdout_contains "third"

# A malformed --conf is a usage error.
run_weir run --conf novalue
expect_exit 2
expect_stderr_contains "--conf expects key=value, got 'novalue'"
run_weir dry-run --conf =x
expect_exit 2

# An unbound variable: an error at the `$` (line and column of the file as
# written), every one reported.
printf 'CREATE MATERIALIZED VIEW broken AS\n-- two\nSELECT '"'"'${label}'"'"' AS a, ${missing_one} AS b, ${hivevar:missing_two} AS c;\n' > transformations/zz_broken.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/zz_broken.sql:3:25: error: [UNBOUND_SQL_VARIABLE] The variable \`missing_one\`"
expect_stderr_contains "transformations/zz_broken.sql:3:46: error: [UNBOUND_SQL_VARIABLE] The variable \`missing_two\`"
# Giving it with --conf fixes it.
run_weir dry-run --conf missing_one=1 --conf missing_two=2
expect_exit 0

# A SQL error after a substitution keeps its line.
printf 'CREATE MATERIALIZED VIEW broken AS\n-- ${label}\nSELECT 1 + FROM numbers;\n' > transformations/zz_broken.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/zz_broken.sql:3:"
rm transformations/zz_broken.sql

# Substitution off: the text stays as written (here, a string literal).
rm transformations/nums.sql
printf "CREATE MATERIALIZED VIEW raw AS SELECT '\${label}' AS v;\n" > transformations/raw.sql
run_weir run --quiet --conf spark.sql.variable.substitute=false
expect_exit 0
expect_query "SELECT v FROM raw" 'v
${label}'
