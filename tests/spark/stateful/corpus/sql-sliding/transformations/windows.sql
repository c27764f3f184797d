-- Ten-minute windows starting every five minutes: each row counts in two
-- windows. A late row still counts in those of its windows that are open.
CREATE STREAMING TABLE per_slide AS
SELECT window.start AS wstart, window.end AS wend, k, count(*) AS n, sum(v) AS total
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 5 MINUTES
GROUP BY window(ts, '10 minutes', '5 minutes'), k;
