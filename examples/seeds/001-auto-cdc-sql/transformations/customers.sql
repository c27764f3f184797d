-- Seed 001 lists APPLY CHANGES INTO / Auto CDC as Databricks-only; this is
-- the Databricks SQL spelling of a change feed applied to a table.
CREATE STREAMING TABLE customers_cdc AS
SELECT * FROM STREAM read_files('data/cdc', format => 'json');

CREATE OR REFRESH STREAMING TABLE customers;

CREATE FLOW customers_flow AS AUTO CDC INTO customers
FROM STREAM(customers_cdc)
KEYS (customer_id)
SEQUENCE BY seq;
