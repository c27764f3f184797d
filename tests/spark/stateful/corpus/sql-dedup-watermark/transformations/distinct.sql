-- Deduplication whose keys include the watermarked event time.
CREATE STREAMING TABLE distinct_events AS
SELECT DISTINCT e.id, e.k, e.ts
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e;
