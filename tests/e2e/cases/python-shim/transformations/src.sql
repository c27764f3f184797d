CREATE MATERIALIZED VIEW src AS
SELECT * FROM VALUES (1, 10, 'a'), (2, -5, 'b'), (3, NULL, 'c'), (4, 2000, NULL)
  AS t(id, amount, tag);
