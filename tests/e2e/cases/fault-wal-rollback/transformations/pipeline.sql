-- Files -> bronze -> silver (a drop expectation), an append flow from an
-- external table into silver, and gold over silver.
CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE silver (
  CONSTRAINT has_amount EXPECT (amount IS NOT NULL) ON VIOLATION DROP ROW
) AS SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, status
FROM STREAM(bronze);

CREATE FLOW manual_orders AS INSERT INTO silver BY NAME
SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, 'manual' AS status
FROM STREAM(manual);

CREATE MATERIALIZED VIEW gold AS
SELECT status, count(*) AS n, sum(amount) AS revenue FROM silver GROUP BY status;
