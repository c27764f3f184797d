# weir query cannot change weir's own state, however the name is spelled
# (USE, one-part names, quoting, case), and refuses DuckDB statements that
# reach past the pipeline's catalogs; reads of the state keep working.

run_weir init demo
cd demo
run_weir run
expect_exit 0

fingerprint() { # every row of weir's state, as one text
    "$WEIR" query --format csv "SELECT (SELECT count(*) FROM weir.catalogs) || '/' || (SELECT count(*) FROM weir.meta) || '/' || (SELECT count(*) FROM weir.updates) || '/' || (SELECT count(*) FROM weir.event_log) || '/' || (SELECT count(*) FROM spark_catalog._weir.checkpoints) || '/' || (SELECT count(*) FROM spark_catalog._weir.files) || '/' || (SELECT count(*) FROM spark_catalog._weir.flow_state) || '/' || (SELECT count(*) FROM spark_catalog._weir.tables) AS f" | tail -n 1
}
before=$(fingerprint)

refused() { # SQL CLASS: exit 2 with that error class
    run_weir query "$1"
    expect_exit 2
    expect_stderr_contains "[$2]"
}

# The reproduction: DROP TABLE catalogs after USE weir; then the other
# tables of the weir catalog with other statements and spellings (more in
# adv-query-generated).
refused "USE weir; DROP TABLE catalogs" PIPELINE_STATE_READ_ONLY
refused "USE weir; DELETE FROM event_log" PIPELINE_STATE_READ_ONLY
refused "USE WEIR.main; UPDATE updates SET state = 'x'" PIPELINE_STATE_READ_ONLY
refused "USE \`weir\`; CREATE OR REPLACE TABLE meta AS SELECT 1 AS x" PIPELINE_STATE_READ_ONLY
refused "USE CATALOG weir; ALTER TABLE catalogs ADD COLUMNS (x INT)" PIPELINE_STATE_READ_ONLY
refused "DELETE FROM weir.event_log" PIPELINE_STATE_READ_ONLY
refused "TRUNCATE TABLE \`Weir\`.\`main\`.\`updates\`" PIPELINE_STATE_READ_ONLY
refused "INSERT OVERWRITE weir.meta SELECT * FROM weir.meta" PIPELINE_STATE_READ_ONLY
refused "USE spark_catalog._weir; DELETE FROM checkpoints" PIPELINE_STATE_READ_ONLY
refused "USE spark_catalog; DROP TABLE _WEIR.files" PIPELINE_STATE_READ_ONLY
refused "DELETE FROM \`spark_catalog\`.\`_weir\`.\`flow_state\`" PIPELINE_STATE_READ_ONLY
refused "USE SCHEMA _weir" PIPELINE_STATE_READ_ONLY
refused "DROP SCHEMA spark_catalog._weir CASCADE" PIPELINE_STATE_READ_ONLY
refused "CREATE TABLE _weir.extra (a INT)" PIPELINE_STATE_READ_ONLY
refused "CREATE SCHEMA weir.extra" PIPELINE_STATE_READ_ONLY
refused "CREATE VIEW weir.main.v AS SELECT 1 AS a" PIPELINE_STATE_READ_ONLY

# DuckDB statements that reach past the catalogs.
for s in "ATTACH 'other.duckdb' AS other" "DETACH weir" "INSTALL httpfs" \
         "PRAGMA enable_profiling" "COPY weir.catalogs TO 'x.csv'" \
         "COPY FROM DATABASE weir TO spark_catalog" "EXPORT DATABASE 'out'" \
         "CALL checkpoint()" "BEGIN"; do
    refused "$s" PIPELINE_STATEMENT_NOT_ALLOWED
done
expect_no_file other.duckdb
expect_no_file x.csv
expect_no_file out

# SET only answers with the pair, as Spark's SET does for a SQL conf: it
# never changes DuckDB's search path or settings.
run_weir query --format csv "SET search_path = 'weir.main'; DELETE FROM catalogs"
expect_failure
expect_equal "weir's state afterwards" "$(fingerprint)" "$before"

# Reads keep working.
expect_query "SELECT count(*) AS n FROM weir.catalogs" "n
1"
expect_query "USE spark_catalog; SELECT count(*) > 0 AS ok FROM _weir.checkpoints" "ok
true"
expect_query "SELECT count(*) > 0 AS ok FROM event_log()" "ok
true"

# Since weir.catalogs is intact, a deleted catalog file is still noticed.
rm pipeline-storage/spark_catalog.duckdb
rm -f pipeline-storage/spark_catalog.duckdb.wal
run_weir run
expect_exit 1
expect_stderr_contains "CATALOG_FILE_MISSING"
