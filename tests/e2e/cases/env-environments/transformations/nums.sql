CREATE MATERIALIZED VIEW nums AS
SELECT id, '${label}' AS label FROM range(5) WHERE id >= ${min_id};
