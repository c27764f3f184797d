-- Source rows -> a streaming table -> a partitioned Parquet sink.
CREATE STREAMING TABLE clean AS
SELECT id, k, s FROM STREAM src WHERE id >= 0;

CREATE SINK orders_out USING parquet
OPTIONS (path 'out/orders', partitionBy 'k', compression 'zstd');

CREATE FLOW to_parquet AS INSERT INTO orders_out BY NAME
SELECT id, k, s FROM STREAM clean;
