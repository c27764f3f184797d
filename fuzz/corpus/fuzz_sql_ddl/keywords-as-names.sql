CREATE MATERIALIZED VIEW events AS
SELECT 1 AS offset, 2 AS partition, 'v' AS value, 3 AS limit, 4 AS left, 5 AS right;
CREATE MATERIALIZED VIEW totals AS
SELECT offset, partition, value, limit + left + right AS total FROM events WHERE offset = 1;
CREATE MATERIALIZED VIEW select (constraint INT, check STRING) AS SELECT case FROM (SELECT 7 AS `case`) where;
CREATE MATERIALIZED VIEW props TBLPROPERTIES (kafka.bootstrap.servers 'h', 'a' = 1, select true, k-a 'x')
AS WITH from AS (SELECT 1 AS x) SELECT s.from, f(all) FROM (SELECT named_struct('from', x) AS s FROM from);
CREATE SINK out USING parquet OPTIONS ('path' 'out/x', 'compression' 'zstd', path 'y');
CREATE MATERIALIZED VIEW deep AS SELECT CASE WHEN 1 THEN CASE WHEN 1 THEN CASE WHEN x = CASE x;
