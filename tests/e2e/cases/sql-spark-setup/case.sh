# SQL that Spark's own pipeline tests and setup scripts run, answered as
# Spark 4.1 answers it (measured with spark-pipelines and a SparkSession).

# INSERT OVERWRITE DIRECTORY is no pipeline statement in Spark 4.1.
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/m.sql:3:1: error: [PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR] Unsupported plan InsertIntoDir parsed from SQL query"
printf -- "CREATE MATERIALIZED VIEW m AS SELECT 1 AS x;\n" > transformations/m.sql

# Spark's pipelines leave the spec's schema to the user (SCHEMA_NOT_FOUND
# until it is created): weir creates it, and CREATE SCHEMA of it is fine.
run_weir query "CREATE SCHEMA sales"
expect_exit 0
run_weir query "CREATE DATABASE sales COMMENT 'the spec''s'"
expect_exit 0
run_weir run
expect_exit 0
expect_query "SELECT x FROM sales.m" "x
1"
# A stock DuckDB shell opened with open.sql starts in the spec's schema.
expect_file_contains storage/open.sql 'USE "spark_catalog"."sales";'
# Any other schema that exists is Spark's SCHEMA_ALREADY_EXISTS.
run_weir query "CREATE SCHEMA other"
expect_exit 0
run_weir query "CREATE SCHEMA other"
expect_exit 2
expect_stderr_contains "[SCHEMA_ALREADY_EXISTS] Cannot create schema \`other\` because it already exists."
run_weir query "CREATE SCHEMA IF NOT EXISTS other"
expect_exit 0
