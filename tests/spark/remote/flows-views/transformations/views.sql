CREATE TEMPORARY VIEW fv_orders_all AS
SELECT order_id, customer, quantity, unit_price, 'us' AS region FROM fv_orders_us
UNION ALL
SELECT order_id, customer, quantity, unit_price, 'eu' AS region FROM fv_orders_eu;

CREATE VIEW fv_big_us_orders AS
SELECT order_id, customer, quantity FROM fv_orders_us WHERE quantity >= 4;

CREATE MATERIALIZED VIEW fv_revenue_by_region AS
SELECT region, count(*) AS orders, sum(quantity) AS items,
       round(sum(quantity * unit_price), 2) AS revenue
FROM fv_orders_all
GROUP BY region;

CREATE MATERIALIZED VIEW fv_big_per_customer AS
SELECT customer, count(*) AS big_orders FROM fv_big_us_orders GROUP BY customer;
