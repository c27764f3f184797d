-- Impressions and the clicks on them within 15 minutes; both sides are
-- watermarked (10 minutes), so each side's buffer is evicted once the
-- other side's rows can no longer match.
CREATE STREAMING TABLE joined AS
SELECT i.imp_id, i.ad, i.imp_ts, c.click_id, c.click_ts
FROM STREAM(impressions) WATERMARK imp_ts DELAY OF INTERVAL 10 MINUTES AS i
LEFT OUTER JOIN STREAM(clicks) WATERMARK click_ts DELAY OF INTERVAL 10 MINUTES AS c
  ON c.imp_id = i.imp_id
 AND c.click_ts >= i.imp_ts AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES;
