# A view outside the pipeline, made by a query.
mv transformations/a.sql a.sql.later
"$WEIR" query "CREATE TABLE ext_t AS SELECT 1 AS id" >/dev/null 2>&1 || e2e_fail "$name: setup failed"
"$WEIR" query "CREATE VIEW ext_v AS SELECT * FROM ext_t" >/dev/null 2>&1 || e2e_fail "$name: setup failed"
mv a.sql.later transformations/a.sql
