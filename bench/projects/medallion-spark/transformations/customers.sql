-- The customers dimension, recomputed on every update.
CREATE MATERIALIZED VIEW customers
AS SELECT
  CAST(customer_id AS BIGINT) AS customer_id,
  CAST(name AS STRING) AS name,
  CAST(country AS STRING) AS country
FROM json.`@ROOT@/data/customers`;
