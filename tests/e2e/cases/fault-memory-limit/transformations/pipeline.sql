-- 3 million rows (about 120 MB stored) under a 64 MB DuckDB memory limit:
-- a window over all rows sorts out of core; a small aggregate.
CREATE STREAMING TABLE events AS
SELECT id, md5(CAST(id AS STRING)) AS h, id % 1000 AS k FROM STREAM range(0, 3000000);

CREATE MATERIALIZED VIEW ranked AS
SELECT id, h, row_number() OVER (ORDER BY h) AS rn FROM events;

CREATE MATERIALIZED VIEW by_key AS
SELECT k, count(*) AS n, min(h) AS first_h FROM events GROUP BY k;
