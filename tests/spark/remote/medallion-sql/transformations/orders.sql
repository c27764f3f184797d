-- Bronze: the landed orders, read as a batch (no read_files: Spark 4.1
-- has no such function). Typed here: JSON type inference differs (weir
-- reads order_ts as a timestamp, Spark as a string).
CREATE MATERIALIZED VIEW sql_orders_raw AS
SELECT CAST(order_id AS BIGINT) AS order_id,
       CAST(customer_id AS BIGINT) AS customer_id,
       CAST(amount AS DOUBLE) AS amount,
       CAST(order_ts AS STRING) AS order_ts,
       CAST(status AS STRING) AS status
FROM json.`@DATA@/landing/orders`;

-- Silver, not persisted: typed, valid amounts only (a WHERE instead of an
-- expectation, which Spark does not have).
CREATE TEMPORARY VIEW sql_orders_clean AS
SELECT CAST(order_id AS BIGINT) AS order_id,
       CAST(customer_id AS BIGINT) AS customer_id,
       CAST(amount AS DECIMAL(12, 2)) AS amount,
       CAST(order_ts AS TIMESTAMP) AS order_ts,
       status
FROM sql_orders_raw
WHERE amount IS NOT NULL AND amount >= 0;
