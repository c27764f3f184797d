-- A quick view, and one that takes far longer than the case (it is
-- always cancelled).
CREATE MATERIALIZED VIEW quick AS SELECT 1 AS x;

CREATE MATERIALIZED VIEW slow AS
SELECT sum(a.id * b.id) AS s FROM range(300000) a CROSS JOIN range(300000) b;
