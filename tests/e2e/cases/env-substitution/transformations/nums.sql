-- ${label} in a comment is substituted too (as in Spark).
CREATE MATERIALIZED VIEW ${source} AS
SELECT id, '${label}' AS label, '${spark:min_id}/${sparkconf:min_id}/${hiveconf:min_id}/${hivevar:min_id}' AS forms
FROM range(5) WHERE id >= ${min_id};
