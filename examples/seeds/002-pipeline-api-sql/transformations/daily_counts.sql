-- The text seed 002 passes to pipeline.defineSql, verbatim.
  CREATE MATERIALIZED VIEW daily_counts AS
  SELECT date(ts) AS day, count(*) AS n
  FROM events
  GROUP BY date(ts)
