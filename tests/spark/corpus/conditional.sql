-- Conditional and null-handling functions.
SELECT coalesce(NULL, 2, 3) AS r;
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT coalesce(NULL, NULL) AS r;
SELECT nvl(NULL, 'x') AS a, ifnull('y', 'x') AS b;
SELECT nvl2(NULL, 1, 2) AS a, nvl2(0, 1, 2) AS b;
SELECT nullif(1, 1) AS a, nullif(1, 2) AS b;
SELECT if(1 > 0, 'yes', 'no') AS r;
SELECT if(NULL, 1, 2) AS r;
-- known: iff() is a Databricks function that OSS Spark lacks; weir accepts it
SELECT iff(false, 1, 2) AS r;
SELECT CASE WHEN x > 1 THEN 'big' WHEN x = 1 THEN 'one' ELSE 'small' END AS r FROM VALUES (0), (1), (2), (NULL) AS t(x);
SELECT CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' END AS r FROM VALUES (1), (2), (3) AS t(x);
SELECT isnull(NULL) AS a, isnotnull(1) AS b;
SELECT equal_null(NULL, NULL) AS a, equal_null(1, NULL) AS b;
SELECT NULL <=> NULL AS a, 1 <=> NULL AS b;
SELECT nullifzero(0) AS a, zeroifnull(NULL) AS b;
SELECT greatest(1, 5, 3) AS a, least(4, 2, 8) AS b;
SELECT greatest(1, NULL, 3) AS r;
SELECT least('b', 'a', 'c') AS r;
SELECT nanvl(CAST('NaN' AS DOUBLE), 1.0D) AS r;
SELECT isnan(CAST('NaN' AS DOUBLE)) AS a, isnan(1.0D) AS b;
SELECT decode(2, 1, 'one', 2, 'two', 'other') AS r;
SELECT decode(9, 1, 'one', 2, 'two', 'other') AS r;
SELECT NULL IN (1, 2) AS a, 1 IN (1, NULL) AS b, 3 IN (1, NULL) AS c;
SELECT 2 BETWEEN 1 AND 3 AS a, 5 NOT BETWEEN 1 AND 3 AS b;
SELECT NOT (NULL AND false) AS a, NULL OR true AS b;
SELECT x IS DISTINCT FROM y AS r FROM VALUES (1, 1), (1, NULL), (NULL, NULL) AS t(x, y);
SELECT ifnull(x, 0) + 1 AS r FROM VALUES (1), (NULL) AS t(x);
SELECT coalesce(x, y, 'none') AS r FROM VALUES ('a', 'b'), (NULL, 'b'), (NULL, NULL) AS t(x, y);
SELECT true AND NULL AS a, false AND NULL AS b;
-- error
SELECT raise_error('custom failure') AS r;
SELECT CASE WHEN x > 5 THEN raise_error('never') ELSE x END AS r FROM VALUES (1), (2) AS t(x);
