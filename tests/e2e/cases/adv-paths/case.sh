# Catalog, database, dataset, sink and flow names never become raw file
# names: whatever they hold, weir's files stay inside the storage folder
# (docs/reliability.md, "Names in file paths"). A sink's `path` option is
# the user's choice of output folder and is used as given.
#
# Before the fix the catalog `../../cat` was the file <storage>/../../cat.duckdb
# (now refused: PIPELINE_INVALID_CATALOG_NAME)
# and the sink `../../sk` staged its batches in <storage>/sinks/../../sk,
# outside the storage folder.

mkdir -p project
mv spark-pipeline.yml transformations project/
cd project
touch "$E2E_OUT/before"
# Catalog names with a path separator are refused before anything is written.
mv ../bad.sql transformations/
run_weir dry-run
expect_exit 2
expect_stderr_contains "bad.sql:2:24: error: [PIPELINE_INVALID_CATALOG_NAME]"
expect_stderr_contains "bad.sql:5:24: error: [PIPELINE_INVALID_CATALOG_NAME]"
run_weir run
expect_exit 2
expect_equal "files written for refused names" "$(cd "$E2E_WORK" && find . -newer "$E2E_OUT/before" -type f | grep -v '^\./out/' || true)" ""
rm transformations/bad.sql
run_weir dry-run
expect_exit 0
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
# Again: the catalogs are found again under their encoded file names.
run_weir run
expect_exit 0
expect_stdout_contains "0 failed"
expect_query 'SELECT (SELECT count(*) FROM `..`.`../db`.`../t`) AS a, (SELECT count(*) FROM `c%2F..`.default.`..`) AS b' "a,b
3,4"
# Every file written since the start is in storage/ or a sink's path.
outside=$(cd "$E2E_WORK" && find . -newer "$E2E_OUT/before" -type f | grep -v '^\./project/storage/' | grep -v '^\./project/out/' || true)
expect_equal "files outside the storage folder and the sinks' paths" "$outside" ""
expect_equal "sink files" "$(find out -type f | wc -l)" 2
expect_file_exists "storage/%2E%2E.duckdb"
expect_file_exists "storage/c%252f...duckdb"
# A stock DuckDB shell opens them through open.sql.
expect_file_contains storage/open.sql "%2E%2E.duckdb' AS \"..\""
