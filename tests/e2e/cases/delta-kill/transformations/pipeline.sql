-- One source, one streaming table stored as Delta (partitioned).
CREATE STREAMING TABLE dt USING delta PARTITIONED BY (k) AS
SELECT id, k, s FROM STREAM src;
