# Each catalog is one DuckDB file, <storage>/<alias>.duckdb, and DuckDB's
# own names get a _catalog suffix (main -> main_catalog, weir ->
# weir_catalog). Catalog names that would share a file, or that cannot
# name one, are rejected by dry-run with the class and the dataset's
# file:line:col, before anything is written. Before, dry-run accepted
# them and the run failed with "Table ... already exists" (or wrote both
# catalogs' tables into one file).

mkdir -p transformations
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml

# main and main_catalog
cat >transformations/a.sql <<'SQL'
CREATE MATERIALIZED VIEW main.default.a AS SELECT 1 AS x;
CREATE MATERIALIZED VIEW main_catalog.default.a AS SELECT 2 AS x;
SQL
for cmd in dry-run run; do
    run_weir $cmd
    expect_exit 2
    expect_stderr_contains "transformations/a.sql:2:26: error: [PIPELINE_CATALOG_NAME_CONFLICT] Dataset main_catalog.default.a cannot be stored: catalogs 'main' and 'main_catalog' would share the storage file main_catalog.duckdb."
    expect_no_file storage
done

# The same through USE CATALOG, different table names, other case.
cat >transformations/a.sql <<'SQL'
USE CATALOG MAIN;
USE SCHEMA s;
CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;
SQL
cat >transformations/b.sql <<'SQL'
CREATE MATERIALIZED VIEW Main_Catalog.s.b AS SELECT 2 AS x;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/b.sql:1:26: error: [PIPELINE_CATALOG_NAME_CONFLICT]"
rm transformations/b.sql

# temp/temp_catalog, system/system_catalog, memory/memory_catalog too.
for c in temp system memory; do
    printf 'CREATE MATERIALIZED VIEW %s.default.a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW %s_catalog.default.b AS SELECT 1 AS x;\n' "$c" "$c" >transformations/a.sql
    run_weir dry-run
    expect_exit 2
    expect_stderr_contains "transformations/a.sql:2:26: error: [PIPELINE_CATALOG_NAME_CONFLICT]"
done

# The pipeline's default catalog counts: the spec's catalog main_catalog
# and a dataset in main.
printf 'name: p\nstorage: storage\ncatalog: main_catalog\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
printf 'CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW main.default.b AS SELECT 1 AS x;\n' >transformations/a.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/a.sql:2:26: error: [PIPELINE_CATALOG_NAME_CONFLICT] Dataset main.default.b cannot be stored: catalogs 'main_catalog' and 'main'"

# A catalog name that cannot be a file name in the storage folder.
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
printf 'CREATE MATERIALIZED VIEW `../outside`.default.a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW ``.default.b AS SELECT 1 AS x;\n' >transformations/a.sql
for cmd in dry-run run; do
    run_weir $cmd
    expect_exit 2
    expect_stderr_contains "transformations/a.sql:1:26: error: [PIPELINE_INVALID_CATALOG_NAME] Dataset ../outside.default.a cannot be stored: its catalog name '../outside' cannot name a file in the storage folder (it holds a path separator)."
    expect_stderr_contains "transformations/a.sql:2:26: error: [PIPELINE_INVALID_CATALOG_NAME]"
    expect_no_file storage
    expect_no_file outside.duckdb
done

# main_catalog alone (and main alone) are fine.
printf 'CREATE MATERIALIZED VIEW main_catalog.default.a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW main_catalog.other.b AS SELECT 2 AS x;\n' >transformations/a.sql
run_weir run
expect_exit 0
expect_query "SELECT x FROM main_catalog.default.a" "x
1"
