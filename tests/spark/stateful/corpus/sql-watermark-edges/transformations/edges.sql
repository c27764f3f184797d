-- Each update u brings its newest rows at u*20 minutes on both sides, so
-- it leaves the watermark W = u*20 - 10 minutes, and rows at exactly W
-- (see gen_inputs.py, watermark_edges).

-- The watermark in the join keys: a row leaves the state, with NULLs if
-- it never matched, once its ts is at or before the watermark.
CREATE STREAMING TABLE key_full AS
SELECT uid, ts, x.v AS va, y.v AS vb
FROM STREAM(side_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS x
FULL OUTER JOIN STREAM(side_b) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS y
USING (uid, ts);

CREATE STREAMING TABLE key_inner AS
SELECT uid, ts, x.v AS va, y.v AS vb
FROM STREAM(side_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS x
JOIN STREAM(side_b) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS y
USING (uid, ts);

-- Strict bounds: a's rows go once a.ts <= W - 15 minutes, b's once
-- b.ts <= W (Spark's state watermarks for < and >).
CREATE STREAMING TABLE range_full AS
SELECT x.uid AS a_uid, x.ts AS a_ts, y.uid AS b_uid, y.ts AS b_ts
FROM STREAM(side_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS x
FULL OUTER JOIN STREAM(side_b) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS y
  ON x.uid = y.uid AND y.ts > x.ts AND y.ts < x.ts + INTERVAL 15 MINUTES;

CREATE STREAMING TABLE windows_a AS
SELECT window(ts, '10 minutes') AS w, count(*) AS n, sum(v) AS total
FROM STREAM(side_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES
GROUP BY window(ts, '10 minutes');

CREATE STREAMING TABLE distinct_a AS
SELECT DISTINCT uid, ts
FROM STREAM(side_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES;
