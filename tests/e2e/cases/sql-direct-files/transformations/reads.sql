-- Spark's direct file queries: format.`path`, relative to the project.
CREATE MATERIALIZED VIEW people AS SELECT * FROM json.`data/people.json`;
CREATE MATERIALIZED VIEW zebra AS SELECT * FROM json.`data/zebra.json`;
CREATE MATERIALIZED VIEW raw_csv AS SELECT * FROM csv.`data/pairs.csv`;
CREATE VIEW lines AS SELECT value FROM text.`data/lines.txt`;
CREATE TEMPORARY VIEW pairs AS SELECT _c0 AS k, _c1 AS v FROM csv.`data/pairs.csv`;
CREATE MATERIALIZED VIEW from_view AS SELECT k, v FROM pairs;
CREATE MATERIALIZED VIEW from_parquet AS SELECT * FROM parquet.`data/pq`;
