# DuckDB's own messages never reach the user: errors DuckDB finds in the
# translated SQL get a Spark error class and weir's wording, without
# DuckDB's prefixes ("Binder Error", "Catalog Error"), its lists of
# candidate functions or its advice to run SET statements.

no_duckdb_text() {
    for f in "$WEIR_STDOUT" "$WEIR_STDERR"; do
        if grep -E 'Binder Error|Catalog Error|Parser Error|Conversion Error|Invalid Input Error|Out of Memory Error|INTERNAL Error|Candidate functions|Did you mean "|SET threads' "$f"; then
            e2e_fail "DuckDB's own text reached the user ($1)"
        fi
    done
    e2e_pass
}

run_weir run
expect_exit 0

# 1. STREAM of a view outside the pipeline: DuckDB said 'Binder Error:
# Referenced column "rowid" not found'. Spark refuses streaming reads of
# permanent views; weir says so at the STREAM's location.
run_weir query "CREATE TABLE ext_t AS SELECT 1 AS id"
expect_exit 0
run_weir query "CREATE VIEW ext_v AS SELECT * FROM ext_t"
expect_exit 0
cat >transformations/stream_view.sql <<'SQL'
CREATE STREAMING TABLE from_view AS
SELECT * FROM STREAM ext_v;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/stream_view.sql:2:22: error: [INCOMPATIBLE_BATCH_VIEW_READ] View spark_catalog.default.ext_v is a permanent view outside the pipeline"
no_duckdb_text "STREAM of a view, dry-run"
run_weir run
expect_exit 2
expect_stderr_contains "[INCOMPATIBLE_BATCH_VIEW_READ]"
no_duckdb_text "STREAM of a view, run"
rm transformations/stream_view.sql

# A temporary view over a stream may be read with STREAM (Spark allows
# streaming views); that keeps working.
cat >transformations/stream_temp_view.sql <<'SQL'
CREATE STREAMING TABLE src AS SELECT * FROM STREAM range(4);
CREATE TEMPORARY VIEW src_v AS SELECT id * 2 AS twice FROM STREAM src;
CREATE STREAMING TABLE from_temp_view AS SELECT * FROM STREAM src_v;
SQL
run_weir run
expect_exit 0
expect_query "SELECT sum(twice) AS s FROM from_temp_view" "s
12"
rm transformations/stream_temp_view.sql

# 2. An operator over incompatible types: DuckDB listed forty overloads of
# '+'. Spark's class and one line instead.
cat >transformations/mismatch.sql <<'SQL'
CREATE MATERIALIZED VIEW mismatch AS SELECT 5 + range FROM range(3);
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/mismatch.sql:1:1: error: [DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES]"
expect_stderr_contains 'the binary operator + due to data type mismatch: its left and right operands have incompatible types ("int" and "struct<id:bigint>").'
no_duckdb_text "operator mismatch, dry-run"
rm transformations/mismatch.sql
run_weir query "SELECT 5 + range FROM range(3)"
expect_exit 2
expect_stderr_contains "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES]"
no_duckdb_text "operator mismatch, query"
run_weir query "SELECT * FROM no_such_table"
expect_exit 2
expect_stderr_contains "[TABLE_OR_VIEW_NOT_FOUND] The table or view \`no_such_table\` cannot be found."
no_duckdb_text "unknown table, query"
run_weir query "SELECT idd FROM base"
expect_exit 2
expect_stderr_contains "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name \`idd\` cannot be resolved. Columns in scope: \`id\`."
no_duckdb_text "unknown column, query"

# 3. A memory limit too small to open the storage: DuckDB advised
# "SET threads=X". The spec check refuses it, naming the setting (a limit
# that is allowed but too small for the work is UNABLE_TO_ACQUIRE_MEMORY
# naming the setting: e2e/fault-memory-limit).
cp spark-pipeline.yml spec.saved
cat >>spark-pipeline.yml <<'YML'
configuration:
  weir.duckdb.memory_limit: 1KB
YML
run_weir run
expect_exit 2
expect_stderr_contains "[PIPELINE_SPEC_INVALID_FIELD_VALUE]"
expect_stderr_contains "weir.duckdb.memory_limit must be from 4MiB to 1PiB, got '1KB'"
no_duckdb_text "tiny memory limit"
cp spec.saved spark-pipeline.yml
run_weir run
expect_exit 0

# CREATE TABLE over a table that exists: Spark's TABLE_OR_VIEW_ALREADY_EXISTS
# (it was TABLE_OR_VIEW_NOT_FOUND, from the words "Table with name").
run_weir query "CREATE TABLE ext_t AS SELECT 2 AS id"
expect_exit 2
expect_stderr_contains "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view \`ext_t\` because it already exists."
no_duckdb_text "create over an existing table"
