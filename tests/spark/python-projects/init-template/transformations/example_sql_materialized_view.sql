-- The even ids of the Python view: SQL reading a Python-defined dataset.
CREATE MATERIALIZED VIEW example_sql_materialized_view AS
SELECT id FROM example_python_materialized_view
WHERE id % 2 = 0
