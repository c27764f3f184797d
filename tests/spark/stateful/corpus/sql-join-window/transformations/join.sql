-- Clicks per ten-minute window of their impressions' time: the join
-- (a subquery) buffers both sides, the aggregation over its output keeps
-- the open windows; Spark hands the aggregation the join's output
-- watermark (the input watermark less the 15 minutes the range condition
-- lets a click trail its impression).
CREATE STREAMING TABLE clicks_per_window AS
SELECT window(imp_ts, '10 minutes') AS w, count(*) AS clicks,
       min(click_id) AS first_click, max(click_ts) AS last_click_ts
FROM (SELECT i.imp_id, i.imp_ts, c.click_id, c.click_ts
      FROM STREAM(impressions) WATERMARK imp_ts DELAY OF INTERVAL 10 MINUTES AS i
      JOIN STREAM(clicks) WATERMARK click_ts DELAY OF INTERVAL 10 MINUTES AS c
        ON c.imp_id = i.imp_id
       AND c.click_ts >= i.imp_ts AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES)
GROUP BY window(imp_ts, '10 minutes');

-- The same over a left outer join: impressions never clicked count in
-- their window (with a NULL click) once the join lets them go.
CREATE STREAMING TABLE impressions_per_window AS
SELECT window(imp_ts, '10 minutes') AS w, count(*) AS impressions,
       count(click_id) AS clicked
FROM (SELECT i.imp_id, i.imp_ts, c.click_id
      FROM STREAM(impressions) WATERMARK imp_ts DELAY OF INTERVAL 10 MINUTES AS i
      LEFT JOIN STREAM(clicks) WATERMARK click_ts DELAY OF INTERVAL 10 MINUTES AS c
        ON c.imp_id = i.imp_id
       AND c.click_ts >= i.imp_ts AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES)
GROUP BY window(imp_ts, '10 minutes');

-- The same aggregations written straight over the join, in one SELECT
-- (the same plan for Spark): columns named by their side, a WHERE, an
-- unaliased column (named ad) and an unaliased window (named window).
CREATE STREAMING TABLE clicks_per_window_ad AS
SELECT window(i.imp_ts, '10 minutes') AS w, i.ad, count(*) AS clicks,
       min(c.click_id) AS first_click, max(c.click_ts) AS last_click_ts
FROM STREAM(impressions) WATERMARK imp_ts DELAY OF INTERVAL 10 MINUTES AS i
JOIN STREAM(clicks) WATERMARK click_ts DELAY OF INTERVAL 10 MINUTES AS c
  ON c.imp_id = i.imp_id
 AND c.click_ts >= i.imp_ts AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES
WHERE c.click_id % 7 <> 3
GROUP BY window(i.imp_ts, '10 minutes'), i.ad;

CREATE STREAMING TABLE impressions_per_window_direct AS
SELECT window(i.imp_ts, '10 minutes'), count(*) AS impressions,
       count(c.click_id) AS clicked
FROM STREAM(impressions) WATERMARK imp_ts DELAY OF INTERVAL 10 MINUTES AS i
LEFT JOIN STREAM(clicks) WATERMARK click_ts DELAY OF INTERVAL 10 MINUTES AS c
  ON c.imp_id = i.imp_id
 AND c.click_ts >= i.imp_ts AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES
GROUP BY window(i.imp_ts, '10 minutes')
HAVING count(*) > 0;
