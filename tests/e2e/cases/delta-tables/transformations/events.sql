-- A streaming table stored as a Delta Lake table, partitioned by k, and a
-- materialized view that reads it, stored as Delta too (the table property
-- provider, as Unity Catalog pipelines write it).
CREATE STREAMING TABLE events USING delta PARTITIONED BY (k) AS
SELECT id, k, concat('s', id) AS s, CAST(id AS DECIMAL(12, 2)) AS amount
FROM STREAM src;

CREATE MATERIALIZED VIEW totals TBLPROPERTIES ('provider' = 'delta') AS
SELECT k, count(*) AS n, sum(amount) AS amount FROM events GROUP BY k;
