-- Integer and decimal arithmetic: result types and values.
SELECT 1 + 1 AS r;
SELECT 2147483647 + 1L AS r;
SELECT 3 * 4L AS r;
SELECT 1.5 + 2.25 AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT 1.1 * 2.2 AS r;
-- known: decimal division and avg of decimals return DOUBLE in weir (Spark: a rounded DECIMAL)
SELECT 10.00 / 3 AS r;
-- known: decimal division and avg of decimals return DOUBLE in weir (Spark: a rounded DECIMAL)
SELECT 1.0 / 3 AS r;
-- known: decimal division and avg of decimals return DOUBLE in weir (Spark: a rounded DECIMAL)
SELECT CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(10,2)) AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT CAST(10.5 AS DECIMAL(5,2)) * CAST(2 AS DECIMAL(3,0)) AS r;
SELECT CAST(123.456 AS DECIMAL(5,2)) AS r;
-- error
SELECT CAST(99.995 AS DECIMAL(4,2)) AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT 0.1 + 0.2 AS r;
SELECT 0.1D + 0.2D AS r;
SELECT CAST(7 AS TINYINT) + CAST(1 AS TINYINT) AS r;
-- known: DuckDB keeps SMALLINT for SMALLINT * a small integer literal (Spark: INT)
SELECT CAST(5 AS SMALLINT) * 2 AS r;
-- known: decimal division and avg of decimals return DOUBLE in weir (Spark: a rounded DECIMAL)
SELECT 5 / 2 AS a, 5.0 / 2 AS b;
SELECT 1e3 AS a, 1.5E2 AS b;
SELECT 100000000000 AS r;
SELECT 12345678901234567890 AS r;
SELECT 1.5BD AS a, 2.5F AS b, 10L AS c, 3S AS d, 4Y AS e;
-- known: decimal result precision/scale follow DuckDB's rules (same value); sum of DECIMAL(p,s) is DECIMAL(38,s)
SELECT sum(x) AS r FROM VALUES (1.10), (2.20), (3.30) AS t(x);
-- known: decimal division and avg of decimals return DOUBLE in weir (Spark: a rounded DECIMAL)
SELECT avg(x) AS r FROM VALUES (1.10), (2.20), (3.35) AS t(x);
SELECT avg(x) AS r FROM VALUES (1), (2), (4) AS t(x);
SELECT sum(x) AS r FROM VALUES (2147483647), (1) AS t(x);
SELECT CAST(2.5 AS DECIMAL(3,1)) - CAST(0.25 AS DECIMAL(3,2)) AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT x * 1.5 AS r FROM VALUES (2), (3) AS t(x);
SELECT CAST(x AS DECIMAL(12,2)) AS r FROM VALUES ('19.999'), ('0.004') AS t(x);
SELECT -CAST(1.25 AS DECIMAL(4,2)) AS r;
SELECT abs(CAST(-1.25 AS DECIMAL(4,2))) AS r;
SELECT round(CAST(2.345 AS DECIMAL(5,3)), 2) AS r;
-- known: floor/ceil of a DECIMAL return BIGINT in weir (Spark: DECIMAL(p,0))
SELECT floor(CAST(2.5 AS DECIMAL(3,1))) AS r;
-- known: decimal result precision/scale follow DuckDB's rules (same value)
SELECT 3 % 2.5 AS r;
