-- customers is an external table (not defined by the pipeline).
CREATE MATERIALIZED VIEW customers_clean (
  CONSTRAINT has_name EXPECT (name IS NOT NULL) ON VIOLATION FAIL UPDATE
)
AS SELECT id, name FROM customers;

CREATE MATERIALIZED VIEW customer_totals
AS SELECT c.name, count(o.order_id) AS orders, sum(o.amount) AS total
FROM customers_clean c LEFT JOIN orders o ON o.customer_id = c.id
GROUP BY c.name;
