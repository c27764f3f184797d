-- Ten-minute windows per key, closed (and written once) when the
-- watermark, the newest event time seen less 10 minutes, passes their end.
CREATE STREAMING TABLE per_window AS
SELECT window(e.ts, '10 minutes') AS w, e.k, count(*) AS n, sum(e.v) AS total,
       min(e.v) AS lo, max(e.v) AS hi, avg(e.v) AS mean, min(e.id) AS first_id
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
GROUP BY window(e.ts, '10 minutes'), e.k;

CREATE MATERIALIZED VIEW per_key AS
SELECT k, count(*) AS windows, sum(n) AS n, sum(total) AS total
FROM per_window GROUP BY k;
