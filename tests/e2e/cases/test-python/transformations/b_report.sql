-- SQL beside the Python, reading a Python dataset.
CREATE MATERIALIZED VIEW top AS
SELECT name, total FROM per_customer WHERE total >= 10;
