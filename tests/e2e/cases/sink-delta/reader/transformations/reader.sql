-- Another pipeline reading the Delta table by path, through its log.
CREATE MATERIALIZED VIEW lake_summary AS
SELECT count(*) AS n, count(DISTINCT id) AS d, min(id) AS lo
FROM delta.`../out/lake`;
