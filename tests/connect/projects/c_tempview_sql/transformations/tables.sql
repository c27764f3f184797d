CREATE STREAMING TABLE raw_customers
AS SELECT * FROM STREAM read_files('data/customers', format => 'csv', header => true);

CREATE MATERIALIZED VIEW customers_by_country
COMMENT 'count per country'
AS SELECT country, count(*) AS n FROM customers_clean GROUP BY country;
