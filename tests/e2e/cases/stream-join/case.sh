# Joins of two streams keep both sides' rows across updates
# (docs/streaming.md): a row matches rows of the other side that arrive in
# later updates (the issue's first example, without a watermark, ON a
# condition and USING the key), and with
# watermarks and a range condition each side's rows leave the state once
# no row to come can match them; a left outer join then writes an
# unmatched row with NULLs, in the update whose watermark passes it. Late
# rows are dropped and counted.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
mkdir -p transformations in/a in/b in/imp in/clk
cat > transformations/py_join.py <<'PY'
from pyspark import pipelines as dp


@dp.table
def matched_py():
    return spark.readStream.table("a").join(spark.readStream.table("b"), "uid")
PY
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' > spark-pipeline.yml
cat > transformations/joins.sql <<'SQL'
CREATE STREAMING TABLE a AS SELECT * FROM STREAM read_files('in/a', format => 'json', schema => 'uid INT, name STRING');
CREATE STREAMING TABLE b AS SELECT * FROM STREAM read_files('in/b', format => 'json', schema => 'uid INT, score INT');
CREATE STREAMING TABLE matched AS
SELECT a.uid, a.name, b.score FROM STREAM(a) AS a JOIN STREAM(b) AS b ON a.uid = b.uid;
CREATE STREAMING TABLE matched_using AS
SELECT * FROM STREAM(a) JOIN STREAM(b) USING (uid);

CREATE STREAMING TABLE imp AS SELECT * FROM STREAM read_files('in/imp', format => 'json', schema => 'imp_id INT, its TIMESTAMP');
CREATE STREAMING TABLE clk AS SELECT * FROM STREAM read_files('in/clk', format => 'json', schema => 'click_id INT, imp_id INT, cts TIMESTAMP');
CREATE STREAMING TABLE clicked AS
SELECT i.imp_id, c.click_id
FROM STREAM(imp) WATERMARK its DELAY OF INTERVAL 10 MINUTES AS i
LEFT JOIN STREAM(clk) WATERMARK cts DELAY OF INTERVAL 10 MINUTES AS c
  ON c.imp_id = i.imp_id AND c.cts >= i.its AND c.cts <= i.its + INTERVAL 15 MINUTES;
SQL
imp() { printf '{"imp_id":%s,"its":"2024-01-01 %s:00"}\n' "$1" "$2"; }
clk() { printf '{"click_id":%s,"imp_id":%s,"cts":"2024-01-01 %s:00"}\n' "$1" "$2" "$3"; }

# Update 1: uid 1 on both sides; impression 1 clicked, 2 not (yet).
echo '{"uid":1,"name":"ann"}' > in/a/1.json
echo '{"uid":1,"score":10}' > in/b/1.json
{ imp 1 10:00; imp 2 10:05; } > in/imp/1.json
clk 100 1 10:03 > in/clk/1.json
run_weir run
expect_exit 0
expect_query "SELECT uid, name, score FROM matched ORDER BY uid" "uid,name,score
1,ann,10"
expect_query "SELECT imp_id, click_id FROM clicked ORDER BY imp_id" "imp_id,click_id
1,100"

# Update 2: uid 2 on one side only; the watermark (10:30) passes
# impression 2's last chance (10:05 + 15 minutes): written with NULLs.
echo '{"uid":2,"name":"bob"}' > in/a/2.json
imp 3 10:40 > in/imp/2.json
clk 101 3 10:45 > in/clk/2.json
run_weir run
expect_exit 0
expect_query "SELECT uid FROM matched ORDER BY uid" "uid
1"
expect_query "SELECT imp_id, click_id FROM clicked ORDER BY imp_id" "imp_id,click_id
1,100
2,
3,101"

# Update 3: uid 2 arrives on the other side and matches the row kept
# since update 2; a click of 10:10 is late (the watermark is 10:30).
echo '{"uid":2,"score":20}' > in/b/3.json
clk 102 2 10:10 > in/clk/3.json
imp 4 11:30 > in/imp/3.json
run_weir run
expect_exit 0
expect_query "SELECT uid, name, score FROM matched ORDER BY uid" "uid,name,score
1,ann,10
2,bob,20"
# The same join USING the key, SELECT *: the key first, as in Spark;
# and from Python, join(other, "uid").
expect_query "SELECT * FROM matched_using ORDER BY uid" "uid,name,score
1,ann,10
2,bob,20"
expect_query "SELECT * FROM matched_py ORDER BY uid" "uid,name,score
1,ann,10
2,bob,20"
expect_query "SELECT imp_id, click_id FROM clicked ORDER BY imp_id" "imp_id,click_id
1,100
2,
3,101"
expect_query "SELECT get_json_object(details, '\$.flow_progress.state_operators[0].operatorName') AS op,
       get_json_object(details, '\$.flow_progress.state_operators[0].numRowsDroppedByWatermark') AS dropped,
       get_json_object(details, '\$.flow_progress.event_time.watermark') AS wm
FROM weir.event_log
WHERE flow_name = 'spark_catalog.default.clicked'
  AND get_json_object(details, '\$.flow_progress.status') = 'COMPLETED'
ORDER BY sequence DESC LIMIT 1" "op,dropped,wm
symmetricHashJoin,1,2024-01-01T10:35:00.000Z"
