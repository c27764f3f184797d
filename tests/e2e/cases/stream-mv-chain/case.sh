# STREAM of a materialized view, directly or through a view: each
# recomputation reaches the streaming readers as new data (Spark's
# MV -> ST -> MV chain), across updates; a view refreshed incrementally
# by appending rows (APPEND_ONLY) gives them just the appended rows. A flow whose streaming sources
# change between updates fails with Spark's message asking for a full
# refresh, which rebuilds it.
write_spec chain
# Views are followed whatever the size of their inputs (by default those
# over fewer than 100,000 rows are recomputed: it costs less).
sed -i 's/^configuration:/configuration:\n  pipelines.incremental.minInputRows: "0"/' spark-pipeline.yml
cat >transformations/chain.sql <<'SQL'
CREATE MATERIALIZED VIEW mv TBLPROPERTIES ('pipelines.incremental' = 'false')
AS SELECT id FROM ext;
CREATE MATERIALIZED VIEW mv_appended AS SELECT id FROM ext;
CREATE STREAMING TABLE st_appended AS SELECT * FROM STREAM mv_appended;
CREATE TEMPORARY VIEW tens AS SELECT id * 10 AS id FROM STREAM mv;
CREATE STREAMING TABLE st AS SELECT * FROM STREAM mv;
CREATE STREAMING TABLE st_tens AS SELECT * FROM STREAM tens;
CREATE MATERIALIZED VIEW total AS SELECT count(*) AS n, sum(id) AS s FROM st;
SQL
run_weir query "CREATE TABLE ext AS SELECT 1 AS id UNION ALL SELECT 2 AS id"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT * FROM total" "n,s
2,3"
run_weir query "INSERT INTO ext VALUES (3)"
run_weir run
expect_exit 0
expect_stdout_contains "The materialized view spark_catalog.default.mv was recomputed: flow 'spark_catalog.default.st' reads its rows as new data."
expect_stdout_contains "Materialized view spark_catalog.default.mv_appended is refreshed as APPEND_ONLY"
expect_query "SELECT * FROM total" "n,s
5,9"
expect_query "SELECT count(*) AS n, sum(id) AS s FROM st_tens" "n,s
5,90"
expect_query "SELECT count(*) AS n, sum(id) AS s FROM st_appended" "n,s
3,6"
# A batch (persisted) view cannot be read with STREAM.
echo "CREATE VIEW pv AS SELECT * FROM mv; CREATE STREAMING TABLE bad AS SELECT * FROM STREAM pv;" >transformations/bad.sql
run_weir dry-run
expect_failure
expect_stderr_contains "[INCOMPATIBLE_BATCH_VIEW_READ] View \`spark_catalog\`.\`default\`.\`pv\` is a batch view and must be referenced using SparkSession#read"
rm transformations/bad.sql
# A streaming source added to a flow between updates.
echo "CREATE STREAMING TABLE both_ AS SELECT * FROM STREAM ext;" >transformations/both.sql
run_weir run
expect_exit 0
echo "CREATE STREAMING TABLE both_ AS SELECT * FROM STREAM ext UNION ALL SELECT * FROM STREAM mv;" >transformations/both.sql
run_weir run
expect_exit 1
expect_stdout_contains "Flow 'spark_catalog.default.both_' had streaming sources added or removed. Please perform a full refresh in order to rebuild 'spark_catalog.default.both_' against the current set of sources."
expect_stdout_contains "[STREAMING_SOURCES_ADDED_OR_REMOVED]"
expect_query "SELECT count(*) AS n FROM both_" "n
3"
run_weir run --full-refresh both_
expect_exit 0
expect_query "SELECT count(*) AS n FROM both_" "n
6"
# And removed again.
echo "CREATE STREAMING TABLE both_ AS SELECT * FROM STREAM mv;" >transformations/both.sql
run_weir run
expect_exit 1
expect_stdout_contains "Flow 'spark_catalog.default.both_' had streaming sources added or removed."
