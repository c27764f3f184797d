-- Gold: orders and revenue per day and country, rebuilt on every run.
{{ config(materialized='table') }}
SELECT
  CAST(order_ts AS DATE) AS order_date,
  country,
  count(*) AS orders,
  sum(amount) AS revenue
FROM {{ ref('orders_silver') }}
GROUP BY CAST(order_ts AS DATE), country
