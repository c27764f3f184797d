-- Seed 003's medallion in SQL: the three datasets of the Python listing.
-- read_files (alias cloud_files) is the SQL face of Auto Loader; under
-- STREAM it reads each new file once.

-- streaming table: reads new files incrementally
CREATE OR REFRESH STREAMING TABLE orders_bronze AS
SELECT * FROM STREAM read_files('data/landing/orders/', format => 'json');

-- streaming table: silver built from bronze, not from the source
CREATE OR REFRESH STREAMING TABLE orders_silver AS
SELECT CAST(order_id AS BIGINT) AS order_id,
       CAST(amount AS DECIMAL(12,2)) AS amount,
       CAST(order_ts AS TIMESTAMP) AS order_ts
FROM STREAM(orders_bronze);

-- materialised view: aggregate for one business question
CREATE OR REFRESH MATERIALIZED VIEW orders_daily_gold AS
SELECT to_date(order_ts) AS order_date, sum(amount) AS revenue
FROM orders_silver
GROUP BY to_date(order_ts);
