-- The customers dimension, rebuilt on every run.
{{ config(materialized='table') }}
SELECT
  CAST(customer_id AS BIGINT) AS customer_id,
  CAST(name AS VARCHAR) AS name,
  CAST(country AS VARCHAR) AS country
FROM read_json('{{ var("data_dir") }}/customers/*', format = 'newline_delimited', union_by_name = true)
