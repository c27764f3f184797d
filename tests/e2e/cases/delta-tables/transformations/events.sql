-- A streaming table stored as a Delta Lake table, partitioned by k, and a
-- materialized view (a DuckDB table) that reads it.
CREATE STREAMING TABLE events USING delta PARTITIONED BY (k) AS
SELECT id, k, concat('s', id) AS s, CAST(id AS DECIMAL(12, 2)) AS amount
FROM STREAM src;

CREATE MATERIALIZED VIEW totals AS
SELECT k, count(*) AS n, sum(amount) AS amount FROM events GROUP BY k;
