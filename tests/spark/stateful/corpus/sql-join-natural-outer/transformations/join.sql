-- Outer joins of two streams on their common columns uid and ts, ts
-- watermarked (10 minutes) on both sides: the watermark is in the join
-- keys, so a row leaves the state, unmatched with NULLs if it never
-- matched, once its ts is at or before the watermark.
CREATE STREAMING TABLE natural_left AS
SELECT *
FROM STREAM(readings_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS x
NATURAL LEFT JOIN STREAM(readings_b) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS y;

CREATE STREAMING TABLE using_full AS
SELECT uid, ts, a, b
FROM STREAM(readings_a) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS x
FULL OUTER JOIN STREAM(readings_b) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS y
USING (uid, ts);
