CREATE MATERIALIZED VIEW orders_gold AS
SELECT order_date, count(*) AS order_count, sum(amount) AS revenue
FROM orders_silver
GROUP BY order_date;
