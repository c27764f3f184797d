CREATE MATERIALIZED VIEW people AS SELECT * FROM VALUES (1, 'ann', 10), (2, 'bob', 20) AS t(id, name, deptId);
CREATE MATERIALIZED VIEW dept AS SELECT * FROM VALUES (10, 'eng'), (20, 'ops') AS t(id, name);
CREATE MATERIALIZED VIEW joined AS SELECT * FROM people p JOIN dept d ON p.deptId = d.id;
