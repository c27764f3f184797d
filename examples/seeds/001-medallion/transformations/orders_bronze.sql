-- The page reads orders_bronze without defining it: here it is a streaming
-- table over this project's sample files.
CREATE STREAMING TABLE orders_bronze AS
SELECT order_id, CAST(order_date AS DATE) AS order_date, amount
FROM STREAM read_files('data/orders', format => 'json');
