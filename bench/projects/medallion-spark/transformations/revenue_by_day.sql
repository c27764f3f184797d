-- Gold: orders and revenue per day and country.
CREATE MATERIALIZED VIEW revenue_by_day
AS SELECT
  to_date(order_ts) AS order_date,
  country,
  count(*) AS orders,
  sum(amount) AS revenue
FROM orders_silver
GROUP BY to_date(order_ts), country;
