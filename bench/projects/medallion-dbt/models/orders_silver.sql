-- Silver: typed orders joined to their customer. Incremental on order_id
-- (ids grow with the files). The DROP expectation is the WHERE clause;
-- the warn and fail expectations are tests in schema.yml.
{{ config(materialized='incremental') }}
SELECT
  CAST(o.order_id AS BIGINT) AS order_id,
  CAST(o.customer_id AS BIGINT) AS customer_id,
  CAST(o.amount AS DECIMAL(12,2)) AS amount,
  CAST(o.order_ts AS TIMESTAMP) AS order_ts,
  CAST(o.status AS VARCHAR) AS status,
  c.country
FROM {{ ref('orders_bronze') }} o
LEFT JOIN {{ ref('customers') }} c ON CAST(o.customer_id AS BIGINT) = c.customer_id
WHERE coalesce(o.amount >= 0, false)
{% if is_incremental() %}
  AND o.order_id > (SELECT coalesce(max(order_id), 0) FROM {{ this }})
{% endif %}
