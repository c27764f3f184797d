# Problems in the spec and the SQL are reported like a compiler's errors:
# path:line:col, the class, the source line and a caret; exit 2.

mkdir -p p/transformations
cat >p/spark-pipeline.yml <<'YAML'
name: broken
storage: pipeline-storage
libraries:
  - glob:
      include: transformations/**
YAML
cat >p/transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW ok AS SELECT 1 AS id;

CREATE MATERIALIZED VIEW bad AS SELECT id FORM ok;
SQL
cd p
run_weir dry-run
expect_exit 2
expect_stderr_matches '^transformations/bad\.sql:3:[0-9]+: error: '
expect_stderr_contains "    3 | CREATE MATERIALIZED VIEW bad AS SELECT id FORM ok;"
expect_stderr_matches '^      \| +\^$'

# The spec itself.
cat >spark-pipeline.yml <<'YAML'
name: broken
libraries:
  - glob:
      include: transformations/**
YAML
run_weir run
expect_exit 2
expect_stderr_contains "PIPELINE_SPEC_MISSING_REQUIRED_FIELD"

printf 'name: x\nstorage: s\nbogus: 1\n' >spark-pipeline.yml
run_weir dry-run
expect_exit 2
expect_stderr_contains "PIPELINE_SPEC_UNEXPECTED_FIELD"

# A cycle.
printf 'name: x\nstorage: s\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
cat >transformations/bad.sql <<'SQL'
CREATE MATERIALIZED VIEW a AS SELECT * FROM b;
CREATE MATERIALIZED VIEW b AS SELECT * FROM a;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "Circular dependencies are not supported in a pipeline"

# No spec anywhere.
cd "$E2E_ROOT"
run_weir run
expect_exit 2
expect_stderr_contains "PIPELINE_SPEC_FILE_NOT_FOUND"
run_weir run --spec nowhere.yml
expect_exit 2
expect_stderr_contains "nowhere.yml"
