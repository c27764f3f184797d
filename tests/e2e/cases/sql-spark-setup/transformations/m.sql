-- Spark 4.1's pipelines write no files this way: refused with its words.
CREATE MATERIALIZED VIEW m AS SELECT 1 AS x;
INSERT OVERWRITE DIRECTORY 'out' USING parquet SELECT * FROM m;
