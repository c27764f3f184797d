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
