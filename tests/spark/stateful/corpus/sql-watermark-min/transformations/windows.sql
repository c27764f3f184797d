-- fast's watermark trails its newest event by 5 minutes, slow's by 15;
-- slow's events are about 30 minutes behind fast's. The aggregation's
-- watermark is the minimum of the two (spark.sql.streaming.
-- multipleWatermarkPolicy = min, the default).
CREATE STREAMING TABLE per_window AS
SELECT window(u.ts, '10 minutes') AS w, u.src, count(*) AS n, sum(u.v) AS total
FROM (
  SELECT 'fast' AS src, f.ts, f.v FROM STREAM(fast) WATERMARK ts DELAY OF INTERVAL 5 MINUTES AS f
  UNION ALL
  SELECT 'slow' AS src, s.ts, s.v FROM STREAM(slow) WATERMARK ts DELAY OF INTERVAL 15 MINUTES AS s
) AS u
GROUP BY window(u.ts, '10 minutes'), u.src;
