-- Gold: revenue per day and per status.
CREATE MATERIALIZED VIEW sql_revenue_by_day AS
SELECT to_date(order_ts) AS order_date, count(*) AS orders,
       sum(amount) AS revenue
FROM sql_orders_clean
GROUP BY to_date(order_ts);

CREATE MATERIALIZED VIEW sql_orders_by_status AS
SELECT status, count(*) AS orders
FROM sql_orders_clean
GROUP BY status;
