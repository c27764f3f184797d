# dropDuplicates on a stream keeps the keys it has seen across updates
# (docs/streaming.md): a key that comes again in a later update is dropped,
# as in Spark. With the event time among the keys and a watermark, rows at
# or before the previous update's watermark are dropped and counted, and
# keys the watermark passed leave the state. A full refresh starts the
# state over.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
mkdir -p transformations in
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' > spark-pipeline.yml
cat > transformations/events.sql <<'SQL'
CREATE STREAMING TABLE events AS
SELECT * FROM STREAM read_files('in', format => 'json', schema => 'id INT, ts TIMESTAMP, v STRING');
SQL
cat > transformations/unique.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.table
def unique_ids():
    return spark.readStream.table("events").dropDuplicates(["id"]).select("id", "v")


@dp.table
def unique_events():
    return (spark.readStream.table("events")
            .withWatermark("ts", "10 minutes")
            .dropDuplicates(["id", "ts"]))


@dp.table
def distinct_ids():
    return spark.readStream.table("events").select("id").distinct()


@dp.table
def recent_ids():
    return (spark.readStream.table("events")
            .withWatermark("ts", "10 minutes")
            .dropDuplicatesWithinWatermark(["id"]))
PY

ev() { printf '{"id":%s,"ts":"2024-01-01 %s:00","v":"%s"}\n' "$1" "$2" "$3"; }
{ ev 1 00:00 a; ev 2 00:05 b; ev 2 00:05 c; } > in/1.json
run_weir run
expect_exit 0
expect_query "SELECT id, v FROM unique_ids ORDER BY id" "id,v
1,a
2,b"
expect_query "SELECT id, ts, v FROM unique_events ORDER BY id" "id,ts,v
1,2024-01-01 00:00:00,a
2,2024-01-01 00:05:00,b"

# Update 2: id 2 again (already seen), id 3 new; (1, 00:00) again is a
# duplicate, not late (the watermark was 23:55). The watermark moves to
# 00:20: the keys at or before it leave the state.
{ ev 2 00:06 d; ev 3 00:30 e; ev 1 00:00 f; } > in/2.json
run_weir run
expect_exit 0
expect_query "SELECT id, v FROM unique_ids ORDER BY id" "id,v
1,a
2,b
3,e"
expect_query "SELECT id, ts, v FROM unique_events ORDER BY id, ts" "id,ts,v
1,2024-01-01 00:00:00,a
2,2024-01-01 00:05:00,b
2,2024-01-01 00:06:00,d
3,2024-01-01 00:30:00,e"

# Update 3: (1, 00:00) is late now (at or before 00:20), dropped and
# counted; (4, 00:25) is not.
{ ev 1 00:00 g; ev 4 00:25 h; } > in/3.json
run_weir run --json
expect_exit 0
expect_query "SELECT id, ts, v FROM unique_events ORDER BY id, ts" "id,ts,v
1,2024-01-01 00:00:00,a
2,2024-01-01 00:05:00,b
2,2024-01-01 00:06:00,d
3,2024-01-01 00:30:00,e
4,2024-01-01 00:25:00,h"
expect_query "SELECT get_json_object(details, '\$.flow_progress.state_operators[0].numRowsDroppedByWatermark') AS dropped,
       get_json_object(details, '\$.flow_progress.state_operators[0].numRowsTotal') AS keys,
       get_json_object(details, '\$.flow_progress.event_time.watermark') AS wm
FROM weir.event_log
WHERE flow_name = 'spark_catalog.default.unique_events'
  AND get_json_object(details, '\$.flow_progress.status') = 'COMPLETED'
ORDER BY sequence DESC LIMIT 1" "dropped,keys,wm
1,2,2024-01-01T00:20:00.000Z"
expect_query "SELECT id FROM unique_ids ORDER BY id" "id
1
2
3
4"

expect_query "SELECT id FROM distinct_ids ORDER BY id" "id
1
2
3
4"
expect_query "SELECT id, v FROM recent_ids ORDER BY id, v" "id,v
1,a
2,b
3,e
4,h"

# Update 4: id 2 again at 00:31, after the watermark (00:20) expired its
# key within the watermark (seen at 00:05, kept until 00:15): written there
# again; dropDuplicates on id keeps every key, and drops it.
ev 2 00:31 i > in/4.json
run_weir run
expect_exit 0
expect_query "SELECT id, v FROM recent_ids ORDER BY id, v" "id,v
1,a
2,b
2,i
3,e
4,h"
expect_query "SELECT count(*) AS n FROM unique_ids" "n
4"
expect_query "SELECT count(*) AS n FROM distinct_ids" "n
4"

# Nothing new: nothing written, the state stays.
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM unique_ids" "n
4"

# A full refresh starts the state over: every id once, from all events.
run_weir run --full-refresh unique_ids
expect_exit 0
expect_query "SELECT id, v FROM unique_ids ORDER BY id" "id,v
1,a
2,b
3,e
4,h"

# weir test drives the same flows over several updates (tests/dedup.yml):
# in step 3, (1, 00:10) is late (the watermark is 00:20) and (2, 00:21)
# comes after its key expired.
rm -rf storage in
run_weir test
expect_exit 0
expect_stdout_contains "late_rows_and_expired_keys"
