# Names that belong to weir's own state cannot be datasets: the weir
# catalog (weir.event_log, weir.updates; queries treat weir.* as weir's)
# and the _weir database every catalog file holds checkpoints and file
# manifests in. dry-run rejects them with the class and the dataset's
# file:line:col; before, a dataset named _weir.checkpoints passed dry-run
# and failed the run with "Table with name checkpoints already exists!",
# and weir.default.t was created where weir query could not change it.

mkdir -p transformations
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml

cat >transformations/a.sql <<'SQL'
CREATE MATERIALIZED VIEW ok AS SELECT 1 AS x;
CREATE MATERIALIZED VIEW _weir.checkpoints AS SELECT 1 AS x;
CREATE STREAMING TABLE spark_catalog._WEIR.mine AS SELECT * FROM STREAM range(3);
CREATE MATERIALIZED VIEW weir.default.t AS SELECT 1 AS x;
CREATE VIEW Weir.main.event_log AS SELECT 1 AS x;
SQL
for cmd in dry-run run; do
    run_weir $cmd
    expect_exit 2
    expect_stderr_contains "transformations/a.sql:2:26: error: [PIPELINE_RESERVED_DATABASE] Dataset spark_catalog._weir.checkpoints cannot be defined: the database name '_weir' is reserved"
    expect_stderr_contains "transformations/a.sql:3:24: error: [PIPELINE_RESERVED_DATABASE]"
    expect_stderr_contains "transformations/a.sql:4:26: error: [PIPELINE_RESERVED_CATALOG] Dataset weir.default.t cannot be defined: the catalog name 'weir' is reserved"
    expect_stderr_contains "transformations/a.sql:5:13: error: [PIPELINE_RESERVED_CATALOG]"
    expect_no_file storage
done

# Through USE, and through the spec's database.
cat >transformations/a.sql <<'SQL'
USE CATALOG weir;
USE SCHEMA s;
CREATE MATERIALIZED VIEW t AS SELECT 1 AS x;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/a.sql:3:26: error: [PIPELINE_RESERVED_CATALOG]"
printf 'name: p\nstorage: storage\ndatabase: _weir\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
echo 'CREATE MATERIALIZED VIEW files AS SELECT 1 AS x;' >transformations/a.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/a.sql:1:26: error: [PIPELINE_RESERVED_DATABASE] Dataset spark_catalog._weir.files"

# weir_catalog on its own is an ordinary catalog.
printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
echo 'CREATE MATERIALIZED VIEW weir_catalog.default.t AS SELECT 1 AS x;' >transformations/a.sql
run_weir run
expect_exit 0
expect_query "SELECT x FROM weir_catalog.default.t" "x
1"
