CREATE MATERIALIZED VIEW orders AS
SELECT CAST(amount AS DECIMAL(18,2)) AS amount, region
FROM VALUES (1.10, 'east'), (2.20, 'east'), (3.35, 'west') AS (amount, region);

-- The types Spark gives sum() and avg() of a DECIMAL(18,2).
CREATE MATERIALIZED VIEW by_region (
  region STRING,
  total DECIMAL(28,2),
  mean DECIMAL(22,6)
) AS SELECT region, sum(amount) AS total, avg(amount) AS mean
FROM orders GROUP BY region;

CREATE TEMPORARY VIEW all_orders AS SELECT amount FROM orders;
CREATE MATERIALIZED VIEW overall AS
SELECT sum(amount) AS total, avg(amount) AS mean, sum(amount) OVER () AS running
FROM all_orders GROUP BY amount;

-- Arithmetic too: DECIMAL(18,2) * 2 is DECIMAL(20,2), its sum DECIMAL(30,2).
CREATE MATERIALIZED VIEW doubled (total DECIMAL(30,2), ratio DECIMAL(38,12)) AS
SELECT sum(amount * 2) AS total, sum(amount) / count(*) AS ratio FROM orders;
