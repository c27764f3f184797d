-- The lab of seed 003: bronze over landing files, silver with one warn,
-- one drop and one fail expectation (plus a quarantine), gold on top.
CREATE STREAMING TABLE orders_bronze AS
SELECT * FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE orders_silver (
  CONSTRAINT valid_customer EXPECT (customer_id BETWEEN 1 AND 100),
  CONSTRAINT valid_amount EXPECT (amount IS NOT NULL AND amount > 0) ON VIOLATION DROP ROW,
  CONSTRAINT valid_id EXPECT (order_id IS NOT NULL) ON VIOLATION FAIL UPDATE,
  CONSTRAINT known_status EXPECT (status IN ('placed', 'shipped')) ON VIOLATION QUARANTINE
) AS SELECT order_id, customer_id, amount, status FROM STREAM(orders_bronze);

CREATE MATERIALIZED VIEW orders_gold AS
SELECT status, count(*) AS orders, sum(amount) AS revenue
FROM orders_silver GROUP BY status;
