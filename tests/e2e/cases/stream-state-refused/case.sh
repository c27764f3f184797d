# Operators that keep state across updates in Spark that weir does not
# keep yet (a join of a join of two streams and a stream, aggregation by a watermarked
# event time over a join) are refused when the
# pipeline is validated, at the construct's
# file:line:col, from SQL and Python alike, instead of being computed per
# update (docs/streaming.md); so are the operators Spark refuses on
# streams, with Spark's messages. Stateless flows (a stream-static join)
# still run.
mkdir -p sql/transformations sql/in/a sql/in/b py/transformations
spec='name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n'
printf "$spec" > sql/spark-pipeline.yml
printf "$spec" > py/spark-pipeline.yml
cat > sql/transformations/sources.sql <<'SQL'
CREATE STREAMING TABLE a AS SELECT * FROM STREAM read_files('in/a', format => 'json', schema => 'uid INT, ts TIMESTAMP');
CREATE STREAMING TABLE b AS SELECT * FROM STREAM read_files('in/b', format => 'json', schema => 'uid INT, ts TIMESTAMP');
CREATE MATERIALIZED VIEW dim AS SELECT 1 AS uid, 'one' AS name;
SQL
cat > sql/transformations/stateful.sql <<'SQL'
CREATE STREAMING TABLE joined AS
SELECT uid FROM STREAM(a) JOIN STREAM(b) USING (uid) JOIN STREAM(a) AS c USING (uid);
CREATE TEMPORARY VIEW both_sides AS
SELECT a.uid FROM STREAM(a) LEFT JOIN STREAM(b) ON a.uid = b.uid;
CREATE STREAMING TABLE via_view AS SELECT * FROM STREAM(both_sides);
CREATE STREAMING TABLE also_via_view AS SELECT uid + 1 AS u FROM STREAM(both_sides);
CREATE STREAMING TABLE windows AS
SELECT window(a.ts, '1 minute') AS w, count(*) AS n
FROM STREAM(a) WATERMARK ts DELAY OF INTERVAL 1 MINUTE JOIN dim USING (uid) GROUP BY w;
SQL
cat > sql/transformations/spark_refuses.sql <<'SQL'
CREATE STREAMING TABLE counts AS SELECT uid, count(*) AS n FROM STREAM(a) GROUP BY uid;
CREATE STREAMING TABLE sorted AS SELECT * FROM STREAM(a) ORDER BY uid;
CREATE STREAMING TABLE ranked AS
SELECT uid, row_number() OVER (PARTITION BY uid ORDER BY ts) AS rn FROM STREAM(a);
CREATE STREAMING TABLE full_static AS
SELECT * FROM STREAM(a) FULL JOIN dim USING (uid);
SQL

cd sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/stateful.sql:2:27: error: [STREAMING_STATE_NOT_SUPPORTED] Flow \`spark_catalog\`.\`default\`.\`joined\` joins two streams (INNER JOIN) in a way weir keeps no state for yet"
expect_stderr_contains "transformations/stateful.sql:2:54: error: [STREAMING_STATE_NOT_SUPPORTED] Flow \`spark_catalog\`.\`default\`.\`joined\` joins two streams (INNER JOIN)"
expect_stderr_contains "    2 | SELECT uid FROM STREAM(a) JOIN STREAM(b) USING (uid) JOIN STREAM(a) AS c USING (uid);
      |                           ^"
# A view's join is reported once, where the view writes it: an outer join
# whose rows would never leave the state, which Spark refuses.
expect_stderr_contains "transformations/stateful.sql:4:29: error: [_LEGACY_ERROR_TEMP_3102] Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition (flow \`spark_catalog\`.\`default\`.\`via_view\`)."
expect_stderr_not_contains "also_via_view\`)"
expect_stderr_contains "transformations/stateful.sql:8:1: error: [STREAMING_STATE_NOT_SUPPORTED] Flow \`spark_catalog\`.\`default\`.\`windows\` aggregates a stream by event time (GROUP BY)"
expect_stderr_not_contains "first_rows"
expect_stderr_contains "transformations/spark_refuses.sql:1:34: error: [STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION] Invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets (flow \`spark_catalog\`.\`default\`.\`counts\`, GROUP BY)."
expect_stderr_contains "transformations/spark_refuses.sql:2:67: error: [_LEGACY_ERROR_TEMP_3102] Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode (flow \`spark_catalog\`.\`default\`.\`sorted\`)."
expect_stderr_contains "transformations/spark_refuses.sql:4:13: error: [NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in row_number() (as column \`rn\`) on streaming DataFrames/Datasets"
expect_stderr_contains "transformations/spark_refuses.sql:6:25: error: [_LEGACY_ERROR_TEMP_3102] FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported"
expect_stderr_contains "8 errors"
expect_no_file storage

# The portability check validates first: it does not call the project
# portable.
run_weir dry-run --target spark
expect_exit 2
expect_stderr_contains "[STREAMING_STATE_NOT_SUPPORTED] Flow \`spark_catalog\`.\`default\`.\`joined\` joins two streams"
run_weir run
expect_exit 2
expect_no_file storage

# Without the refused flows, the stream-static join runs.
rm transformations/stateful.sql transformations/spark_refuses.sql
cat > transformations/stateless.sql <<'SQL'
CREATE STREAMING TABLE named AS
SELECT a.uid, dim.name FROM STREAM(a) LEFT JOIN dim USING (uid);
SQL
echo '{"uid":1,"ts":"2024-01-01 00:00:00"}' > in/a/1.json
echo '{"uid":2,"ts":"2024-01-01 00:00:00"}' > in/a/2.json
run_weir run
expect_exit 0
expect_query "SELECT * FROM named ORDER BY uid" "uid,name
1,one
2,"
cd ..

# Python: the same operators, written as DataFrames.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
cp sql/transformations/sources.sql py/transformations/
cat > py/transformations/flows.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql.window import Window


@dp.table
def joined():
    return spark.readStream.table("a").join(spark.readStream.table("b"), "uid", "left")


@dp.table
def windows():
    return (spark.readStream.table("a").withWatermark("ts", "1 minute")
            .join(spark.read.table("dim"), "uid")
            .groupBy(F.window("ts", "1 minute")).count())


@dp.table
def recent_uids():
    return spark.readStream.table("a").dropDuplicatesWithinWatermark(["uid"])


@dp.table
def ranked():
    w = Window.partitionBy("uid").orderBy("ts")
    return spark.readStream.table("a").withColumn("rn", F.row_number().over(w))
PY
cd py
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/flows.py:6: error: [_LEGACY_ERROR_TEMP_3102] Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition (flow \`spark_catalog\`.\`default\`.\`joined\`)."
expect_stderr_contains "transformations/flows.py:11: error: [STREAMING_STATE_NOT_SUPPORTED] Flow \`spark_catalog\`.\`default\`.\`windows\` aggregates a stream by event time (GROUP BY)"
expect_stderr_contains "transformations/flows.py:18: error: [_LEGACY_ERROR_TEMP_3102] dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark"
expect_stderr_contains "[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in row_number()"
expect_stderr_contains "4 errors"
