-- Every silver row, once, as Parquet files (published by rename).
CREATE SINK orders_out USING parquet OPTIONS (path 'sink-out');

CREATE FLOW to_sink AS INSERT INTO orders_out BY NAME
SELECT order_id, customer_id, amount, status FROM STREAM(silver);
