SET spark.sql.shuffle.partitions = 3;
CREATE TEMPORARY VIEW tv AS SELECT 1 AS x;
CREATE MATERIALIZED VIEW same AS SELECT * FROM tv;
SET spark.sql.shuffle.partitions = 4;
CREATE MATERIALIZED VIEW r AS SELECT * FROM tv;
