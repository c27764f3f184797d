-- Typed orders; amounts below ${min_amount} are dropped.
CREATE STREAMING TABLE orders (
  CONSTRAINT valid_amount EXPECT (amount >= ${min_amount}) ON VIOLATION DROP ROW,
  CONSTRAINT known_status EXPECT (status IN ('placed', 'shipped'))
)
AS SELECT
  CAST(order_id AS BIGINT) AS order_id,
  CAST(customer_id AS BIGINT) AS customer_id,
  CAST(amount AS DECIMAL(10,2)) AS amount,
  status
FROM STREAM(orders_raw);
