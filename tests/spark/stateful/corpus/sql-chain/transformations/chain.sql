-- silver: each (id, k, ts, v) once; gold: ten-minute windows of silver
-- with their own watermark; report: a materialized view over gold.
CREATE STREAMING TABLE silver AS
SELECT DISTINCT e.id, e.k, e.ts, e.v
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e;

CREATE STREAMING TABLE gold AS
SELECT window(s.ts, '10 minutes') AS w, s.k, count(*) AS n, sum(s.v) AS total
FROM STREAM(silver) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS s
GROUP BY window(s.ts, '10 minutes'), s.k;

CREATE MATERIALIZED VIEW report AS
SELECT k, count(*) AS windows, sum(n) AS n, sum(total) AS total FROM gold GROUP BY k;
