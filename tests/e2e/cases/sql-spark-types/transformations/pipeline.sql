-- A VALUES column of NULLs takes the DATE of the other UNION input (Spark:
-- void widens to DATE); weir refused it as INT vs DATE.
CREATE MATERIALIZED VIEW dates AS
SELECT d FROM VALUES (NULL) AS t(d)
UNION ALL SELECT DATE '2024-01-01';

-- Columns named as Spark names them: a cast inside an aggregate shows.
CREATE MATERIALIZED VIEW counts AS
SELECT count(CAST(d AS STRING)), CAST(d AS STRING) FROM dates GROUP BY d;

-- avg of a DECIMAL and decimal quotients are exact: 17 digits survive
-- (a DOUBLE keeps about 15), with Spark's types declared.
CREATE MATERIALIZED VIEW exact (
  mean DECIMAL(24,7),
  ratio DECIMAL(38,18)
) AS SELECT avg(x) AS mean,
            CAST(12345678901234567890 AS DECIMAL(20,0)) / count(*) AS ratio
FROM VALUES (CAST(12345678901234567.123 AS DECIMAL(20,3))),
            (CAST(0.001 AS DECIMAL(20,3))) AS t(x);
