-- Maps.
SELECT map('a', 1, 'b', 2) AS r;
SELECT map('a', 1, 'b', 2)['b'] AS r;
SELECT map('a', 1)['z'] AS r;
SELECT element_at(map('a', 1, 'b', 2), 'a') AS r;
SELECT map_keys(map('a', 1, 'b', 2)) AS a, map_values(map('a', 1, 'b', 2)) AS b;
SELECT map_entries(map('a', 1)) AS r;
SELECT map_from_arrays(array('x', 'y'), array(1, 2)) AS r;
SELECT map_from_entries(array(struct('k', 1), struct('j', 2))) AS r;
SELECT map_concat(map('a', 1), map('b', 2)) AS r;
SELECT map_contains_key(map('a', 1), 'a') AS a, map_contains_key(map('a', 1), 'b') AS b;
SELECT size(map('a', 1, 'b', 2)) AS r;
SELECT str_to_map('a:1,b:2') AS r;
SELECT str_to_map('a=1;b=2', ';', '=') AS r;
SELECT map(1, 'one', 2, 'two')[2] AS r;
SELECT map_filter(map('a', 1, 'b', 2), (k, v) -> v > 1) AS r;
SELECT transform_values(map('a', 1, 'b', 2), (k, v) -> v * 10) AS r;
SELECT transform_keys(map('a', 1), (k, v) -> upper(k)) AS r;
SELECT map_zip_with(map('a', 1), map('a', 2), (k, v1, v2) -> v1 + v2) AS r;
SELECT m['k'] AS r FROM VALUES (map('k', 'v')), (map('x', 'y')) AS t(m);
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT map() AS r;
-- known: an untyped NULL is INTEGER in weir (Spark: void)
SELECT map('a', NULL) AS r;
SELECT try_element_at(map('a', 1), 'b') AS r;
SELECT map_keys(m) AS r FROM VALUES (map('b', 2, 'a', 1)) AS t(m);
