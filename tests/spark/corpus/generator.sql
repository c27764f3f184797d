-- Generators: explode, posexplode, inline, stack, LATERAL VIEW.
SELECT explode(array(1, 2, 3));
SELECT explode(array(1, 2, 3)) AS x;
SELECT explode(map('a', 1, 'b', 2));
SELECT explode(map('a', 1, 'b', 2)) AS (k, v);
SELECT posexplode(array('a', 'b'));
SELECT posexplode(array('a', 'b')) AS (p, v);
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT explode(array());
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT explode_outer(array()) AS x;
SELECT inline(array(named_struct('a', 1, 'b', 'x'), named_struct('a', 2, 'b', 'y')));
SELECT inline(array(struct(1, 'x'), struct(2, 'y'))) AS (n, s);
SELECT id, x FROM VALUES (1, array(10, 20)), (2, array(30)) AS t(id, arr) LATERAL VIEW explode(arr) e AS x;
SELECT id, x FROM VALUES (1, array(10)), (2, array()) AS t(id, arr) LATERAL VIEW OUTER explode(arr) e AS x;
SELECT id, x FROM VALUES (1, array(10)), (2, array()) AS t(id, arr) LATERAL VIEW explode(arr) e AS x;
SELECT id, p, x FROM VALUES (1, array('a', 'b')) AS t(id, arr) LATERAL VIEW posexplode(arr) e AS p, x;
SELECT id, k, v FROM VALUES (1, map('a', 1, 'b', 2)) AS t(id, m) LATERAL VIEW explode(m) e AS k, v;
SELECT id, x, y FROM VALUES (1, array(1, 2), array('a', 'b')) AS t(id, a1, a2) LATERAL VIEW explode(a1) e1 AS x LATERAL VIEW explode(a2) e2 AS y;
SELECT * FROM explode(array(5, 6));
SELECT stack(2, 1, 'a', 2, 'b');
SELECT stack(2, 1, 'a', 2, 'b') AS (n, s);
SELECT id, explode(arr) AS x FROM VALUES (1, array(1, 2)) AS t(id, arr);
SELECT explode(split('a,b,c', ',')) AS part;
SELECT explode(sequence(1, 3)) AS n;
SELECT x, count(*) AS c FROM (SELECT explode(array(1, 1, 2)) AS x) GROUP BY x;
SELECT id, e.col FROM VALUES (1, array(7, 8)) AS t(id, arr) LATERAL VIEW explode(arr) e;
SELECT posexplode_outer(CAST(NULL AS ARRAY<INT>));
SELECT * FROM range(3);
SELECT * FROM range(1, 10, 4);
SELECT id FROM range(2) ORDER BY id DESC;
SELECT * FROM inline(array(named_struct('a', 1)));
SELECT explode(array(named_struct('a', 1, 'b', 2))) AS s;
SELECT json_tuple(j, 'a', 'missing') AS (a, m) FROM VALUES ('{"a": {"b": 1}}'), ('bad'), (NULL) AS t(j);
SELECT stack(3, 'x', 1, 'y', 2, 'z', 3) AS (k, v);
SELECT k, v FROM VALUES (1) AS t(id) LATERAL VIEW stack(2, 'a', 1, 'b', 2) s AS k, v;
SELECT posexplode(array(10, 20)) AS (i, v);
