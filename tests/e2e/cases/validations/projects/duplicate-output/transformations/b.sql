-- the same name as a view

CREATE VIEW t AS SELECT 2 AS x;
