CREATE STREAMING TABLE raw_orders
AS SELECT * FROM STREAM read_files('data/orders', format => 'json');
