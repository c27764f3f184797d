# Rows a streaming reader already processed, deleted or updated in place
# (here by a stock DuckDB process, which DuckDB follows by renumbering row
# ids), fail the reader with STREAMING_SOURCE_CHANGED naming the table and
# the fixes; the tables and checkpoints stay as they were, the failure is
# not retried. With pipelines.skipChangeCommits on the reader it goes on
# with exactly the rows it has not read.
write_spec changed
cat >spark-pipeline.yml <<'YML'
name: changed
storage: storage
configuration:
  spark.sql.pipelines.maxFlowRetryAttempts: "2"
libraries:
  - glob:
      include: transformations/**
YML
echo "CREATE STREAMING TABLE dst AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir query "CREATE TABLE src AS SELECT CAST(id AS INT) AS id FROM range(5)"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM dst" "n
5"
state="SELECT (SELECT count(*) FROM dst) AS dst, (SELECT count(*) FROM _weir.checkpoints) AS checkpoints, (SELECT count(*) FROM _weir.table_reads) AS reads, (SELECT count(*) FROM _weir.table_sample) AS sample"
expect_query "SELECT (SELECT count(*) FROM dst) AS dst, (SELECT count(*) FROM _weir.checkpoints) AS checkpoints" "dst,checkpoints
5,1"
py=$(weir_python)
"$py" -c 'import duckdb; c = duckdb.connect("storage/spark_catalog.duckdb"); c.execute("DELETE FROM \"default\".src WHERE id = 0"); c.execute("INSERT INTO \"default\".src SELECT CAST(range + 100 AS INT) FROM range(10)")'
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_SOURCE_CHANGED] The streaming source spark_catalog.default.src changed rows that flow 'spark_catalog.default.dst' already processed (4 of the 5 row(s) it read are left unchanged)."
expect_stdout_contains "run a full refresh of it (weir run --full-refresh spark_catalog.default.dst); to go on with the rows not read yet and ignore the change, set the table property 'pipelines.skipChangeCommits' = 'true' on spark_catalog.default.dst."
expect_equal "failed attempts" "$(grep -c "has FAILED" "$WEIR_STDOUT")" 1
expect_stdout_contains "0 flows completed (0 streaming flows had no new data), 1 failed"
expect_query "$state" "dst,checkpoints,reads,sample
5,1,1,5"
# The same again: nothing moved.
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_SOURCE_CHANGED]"
# An invalid value of the option is reported with the table.
echo "CREATE STREAMING TABLE dst TBLPROPERTIES ('pipelines.skipChangeCommits' = 'maybe') AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir dry-run
expect_failure
expect_stderr_contains "Could not parse value 'maybe' for table property 'pipelines.skipChangeCommits'"
# Skipping the change: exactly the 10 appended rows, none lost to the
# renumbered row ids, no row read twice.
echo "CREATE STREAMING TABLE dst TBLPROPERTIES ('pipelines.skipChangeCommits' = 'true') AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir run
expect_exit 0
expect_stdout_contains "pipelines.skipChangeCommits is set, so the change is ignored and only rows not read before are read."
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, sum(id) AS s FROM dst" "n,d,s
15,15,1055"
# Appends after it are read as usual.
run_weir query "INSERT INTO src VALUES (7)"
run_weir run
expect_exit 0
expect_stdout_contains "wrote 1 rows"
expect_query "SELECT count(*) AS n FROM dst" "n
16"
# A full refresh of the reader rebuilds it from the current source.
"$py" -c 'import duckdb; duckdb.connect("storage/spark_catalog.duckdb").execute("UPDATE \"default\".src SET id = id + 1000 WHERE id = 1")'
echo "CREATE STREAMING TABLE dst AS SELECT * FROM STREAM src;" >transformations/dst.sql
run_weir run
expect_exit 1
expect_stdout_contains "(14 of the 15 row(s) it read are left unchanged)"
run_weir run --full-refresh dst
expect_exit 0
expect_query "SELECT count(*) AS n, max(id) AS hi FROM dst" "n,hi
15,1001"
