-- Orders as they land, one JSON object per line.
CREATE STREAMING TABLE orders_raw
AS SELECT * FROM STREAM read_files('landing/orders', format => 'json');
