-- A temporary view is inlined into its readers (no catalog object); a
-- persisted view is published in the catalog on every update.
CREATE MATERIALIZED VIEW orders AS
SELECT id, id % 3 AS customer, id * 10 AS amount FROM range(1, 10);

CREATE TEMPORARY VIEW big_orders AS SELECT * FROM orders WHERE amount >= 50;

CREATE MATERIALIZED VIEW big_by_customer AS
SELECT customer, count(*) AS n FROM big_orders GROUP BY customer;

CREATE VIEW customer_totals COMMENT 'Total amount per customer' AS
SELECT customer, sum(amount) AS total FROM orders GROUP BY customer;
