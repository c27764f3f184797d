-- raw_orders is an external table (a test fixture stands in for it).
CREATE STREAMING TABLE orders AS SELECT * FROM STREAM(raw_orders);

CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(amount) AS total FROM orders;
