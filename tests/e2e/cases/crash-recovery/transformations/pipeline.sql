-- Files -> bronze -> silver (with a drop expectation), an append flow from
-- an external table, and a gold materialized view over silver.
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

-- Refreshed incrementally (GROUP_AGGREGATE, with the sums and counts of
-- its average kept beside it; APPEND_ONLY): a kill during the merge or
-- the append must leave them equal to a recomputation.
CREATE MATERIALIZED VIEW gold_ids AS
SELECT status, count(*) AS n, min(order_id) AS lo, max(order_id) AS hi,
  avg(amount) AS mean_amount
FROM silver GROUP BY status;

CREATE MATERIALIZED VIEW big_orders AS
SELECT order_id, amount FROM silver WHERE amount > 100;
