-- Files -> bronze -> silver (a drop expectation) -> gold.
CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE silver (
  CONSTRAINT has_amount EXPECT (amount IS NOT NULL) ON VIOLATION DROP ROW
) AS SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, status
FROM STREAM(bronze);

CREATE MATERIALIZED VIEW gold AS
SELECT status, count(*) AS n, sum(amount) AS revenue FROM silver GROUP BY status;
