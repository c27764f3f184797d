# An aggregation by a tumbling or sliding event-time window (or by the
# event time itself) over a watermarked stream writes each group once, in the update
# whose watermark passes its end, never before and never twice
# (docs/streaming.md): rows of a window still open count even when older
# than the watermark; rows of a closed window are late, dropped and
# counted. SQL's WATERMARK clause and Python's withWatermark alike.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
mkdir -p transformations in
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' > spark-pipeline.yml
cat > transformations/windows.sql <<'SQL'
CREATE STREAMING TABLE events AS
SELECT * FROM STREAM read_files('in', format => 'json', schema => 'id INT, ts TIMESTAMP, amount INT');

CREATE STREAMING TABLE per_window AS
SELECT window(e.ts, '10 minutes') AS w, count(*) AS n, sum(amount) AS total
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
GROUP BY window(e.ts, '10 minutes');

CREATE STREAMING TABLE per_slide AS
SELECT window(ts, '10 minutes', '5 minutes') AS w, count(*) AS n, sum(amount) AS total
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES
GROUP BY window(ts, '10 minutes', '5 minutes');

CREATE STREAMING TABLE per_time AS
SELECT ts, count(*) AS n
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 5 MINUTES
GROUP BY ts;
SQL
cat > transformations/windows.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.table
def per_window_py():
    return (spark.readStream.table("events")
            .withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "10 minutes"))
            .agg(F.count("*").alias("n"), F.max("amount").alias("top")))
PY

ev() { printf '{"id":%s,"ts":"2024-01-01 %s:00","amount":%s}\n' "$1" "$2" "$3"; }
windows() {
    expect_query "SELECT CAST(w.start AS STRING) AS s, n, total FROM per_window ORDER BY s" "$1"
}
slides() {
    expect_query "SELECT CAST(w.start AS STRING) AS s, n, total FROM per_slide ORDER BY s" "$1"
}

# Update 1: two windows open; the watermark (00:02) closes neither.
{ ev 1 00:01 1; ev 2 00:05 2; ev 3 00:12 3; ev 4 00:12 4; } > in/1.json
run_weir run
expect_exit 0
windows "s,n,total"

# Update 2: 00:08 is older than the watermark, but its window is still
# open; the watermark moves to 00:15 and closes [00:00, 00:10).
{ ev 5 00:25 5; ev 6 00:08 6; } > in/2.json
run_weir run
expect_exit 0
windows "s,n,total
2024-01-01 00:00:00,3,9"
expect_query "SELECT CAST(window.start AS STRING) AS s, n, top FROM per_window_py ORDER BY s" "s,n,top
2024-01-01 00:00:00,3,6"
# Sliding windows of 10 minutes every 5: a row counts in both of its
# windows; those ending by 00:15 are written.
slides "s,n,total
2023-12-31 23:55:00,1,1
2024-01-01 00:00:00,3,9
2024-01-01 00:05:00,4,15"
expect_query "SELECT CAST(ts AS STRING) AS ts, n FROM per_time ORDER BY ts" "ts,n
2024-01-01 00:01:00,1
2024-01-01 00:05:00,1
2024-01-01 00:08:00,1
2024-01-01 00:12:00,2"

# Update 3: 00:09 belongs to a closed window: late, dropped, counted.
{ ev 7 00:09 7; ev 8 00:31 8; } > in/3.json
run_weir run
expect_exit 0
windows "s,n,total
2024-01-01 00:00:00,3,9
2024-01-01 00:10:00,2,7"
expect_query "SELECT get_json_object(details, '\$.flow_progress.state_operators[0].numRowsDroppedByWatermark') AS dropped,
       get_json_object(details, '\$.flow_progress.event_time.watermark') AS wm
FROM weir.event_log
WHERE flow_name = 'spark_catalog.default.per_window'
  AND get_json_object(details, '\$.flow_progress.status') = 'COMPLETED'
ORDER BY sequence DESC LIMIT 1" "dropped,wm
1,2024-01-01T00:21:00.000Z"
# weir events shows them with the flow's progress (docs/events.md).
run_weir events --format json
expect_exit 0
expect_stdout_contains 'numRowsDroppedByWatermark'
expect_stdout_contains '2024-01-01T00:21:00.000Z'

# 00:09's windows both ended at 00:15: late for the sliding windows too.
slides "s,n,total
2023-12-31 23:55:00,1,1
2024-01-01 00:00:00,3,9
2024-01-01 00:05:00,4,15
2024-01-01 00:10:00,2,7"

# Nothing new: nothing closes, nothing is written twice.
run_weir run
expect_exit 0
windows "s,n,total
2024-01-01 00:00:00,3,9
2024-01-01 00:10:00,2,7"

# Update 4: the watermark (00:35) closes [00:20, 00:30).
ev 9 00:45 9 > in/4.json
run_weir run
expect_exit 0
windows "s,n,total
2024-01-01 00:00:00,3,9
2024-01-01 00:10:00,2,7
2024-01-01 00:20:00,1,5"
expect_query "SELECT CAST(window.start AS STRING) AS s, n, top FROM per_window_py ORDER BY s" "s,n,top
2024-01-01 00:00:00,3,6
2024-01-01 00:10:00,2,4
2024-01-01 00:20:00,1,5"
# 00:25 counts in [00:20, 00:30) and [00:25, 00:35), closed by 00:35; the
# rows of 00:31 stay for [00:30, 00:40).
slides "s,n,total
2023-12-31 23:55:00,1,1
2024-01-01 00:00:00,3,9
2024-01-01 00:05:00,4,15
2024-01-01 00:10:00,2,7
2024-01-01 00:20:00,1,5
2024-01-01 00:25:00,2,13"

# A full refresh reads every event in one batch: the late row counts
# again, and the watermark (00:35) closes the first three windows.
run_weir run --full-refresh per_window
expect_exit 0
windows "s,n,total
2024-01-01 00:00:00,4,16
2024-01-01 00:10:00,2,7
2024-01-01 00:20:00,1,5"
