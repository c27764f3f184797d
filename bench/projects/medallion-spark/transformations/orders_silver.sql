-- Silver: typed orders joined to their customer. OSS Spark has no
-- expectations, so the three CONSTRAINT lines of the weir project are gone
-- (the weir "no expectations" variant is the like-for-like comparison).
CREATE STREAMING TABLE orders_silver
AS SELECT
  CAST(o.order_id AS BIGINT) AS order_id,
  CAST(o.customer_id AS BIGINT) AS customer_id,
  CAST(o.amount AS DECIMAL(12,2)) AS amount,
  CAST(o.order_ts AS TIMESTAMP) AS order_ts,
  CAST(o.status AS STRING) AS status,
  c.country
FROM STREAM(orders_bronze) o
LEFT JOIN customers c ON CAST(o.customer_id AS BIGINT) = c.customer_id;
