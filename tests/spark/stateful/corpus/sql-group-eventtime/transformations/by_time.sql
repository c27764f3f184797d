-- Grouping by the watermarked column: a group is final, and written, once
-- the watermark passes its time.
CREATE STREAMING TABLE per_instant AS
SELECT e.ts, e.k, count(*) AS n, sum(e.v) AS total
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
GROUP BY e.ts, e.k;
