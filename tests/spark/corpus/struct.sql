-- Structs.
SELECT named_struct('a', 1, 'b', 'x') AS r;
SELECT named_struct('a', 1, 'b', 'x').b AS r;
SELECT struct(1, 'x') AS r;
SELECT struct(1 AS a, 'x' AS b) AS r;
SELECT s.a, s.b FROM (SELECT named_struct('a', 1, 'b', 2) AS s);
SELECT s.* FROM (SELECT named_struct('a', 1, 'b', 2) AS s);
SELECT struct(x, y) AS r FROM VALUES (1, 'a') AS t(x, y);
SELECT named_struct('a', named_struct('b', 5)).a.b AS r;
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT named_struct('a', NULL) AS r;
SELECT named_struct('a', 1) = named_struct('a', 1) AS r;
SELECT s.x AS r FROM VALUES (named_struct('x', 1)), (NULL) AS t(s);
SELECT array(struct(1, 2))[0].col2 AS r;
SELECT named_struct('arr', array(1, 2), 'm', map('k', 1)) AS r;
SELECT inline_arr.a FROM (SELECT named_struct('a', 3) AS inline_arr);
