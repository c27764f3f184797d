CREATE MATERIALIZED VIEW orders_gold AS
SELECT to_date(order_ts) AS order_date, count(*) AS order_count,
       round(sum(amount), 2) AS revenue
FROM orders_silver
GROUP BY to_date(order_ts);
