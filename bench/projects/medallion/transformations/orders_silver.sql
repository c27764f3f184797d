-- Silver: typed orders joined to their customer, with three expectations
-- (warn, drop, fail). bench/run.sh strips the CONSTRAINT lines for the
-- "no expectations" variant.
CREATE STREAMING TABLE orders_silver (
  CONSTRAINT amount_present EXPECT (amount IS NOT NULL),
  CONSTRAINT amount_non_negative EXPECT (amount >= 0) ON VIOLATION DROP ROW,
  CONSTRAINT customer_known EXPECT (country IS NOT NULL) ON VIOLATION FAIL UPDATE
)
AS SELECT
  CAST(o.order_id AS BIGINT) AS order_id,
  CAST(o.customer_id AS BIGINT) AS customer_id,
  CAST(o.amount AS DECIMAL(12,2)) AS amount,
  CAST(o.order_ts AS TIMESTAMP) AS order_ts,
  CAST(o.status AS STRING) AS status,
  c.country
FROM STREAM(orders_bronze) o
LEFT JOIN customers c ON CAST(o.customer_id AS BIGINT) = c.customer_id;
