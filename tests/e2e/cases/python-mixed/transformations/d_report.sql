CREATE MATERIALIZED VIEW report AS
SELECT customer, revenue FROM totals WHERE orders > 1;
