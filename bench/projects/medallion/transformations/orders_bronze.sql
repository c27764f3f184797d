-- Bronze: raw orders, each landed JSON-lines file read once.
CREATE STREAMING TABLE orders_bronze
AS SELECT * FROM STREAM read_files('data/orders', format => 'json');
