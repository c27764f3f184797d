# Sink options that DuckDB would refuse (or crash on) when the batch is
# written are refused by `weir dry-run`, with the option's name and the
# location of the CREATE SINK (docs/reliability.md, "Sink options checked
# before a run").
#
# Before the fix these passed the dry run; the update then failed with a
# raw "Binder Error" (a CSV delimiter equal to the quote character, a NULL
# string holding the delimiter) or an INTERNAL error that invalidated the
# whole database (a partition column named twice).

printf 'name: options\nstorage: storage\nconfiguration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
mkdir transformations

sink() { # FORMAT OPTIONS: the pipeline with one sink
    cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE src AS SELECT id, concat('s', id) AS s, id % 3 AS k FROM STREAM range(10);

CREATE SINK out USING $1 OPTIONS (path 'out/x', $2);
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT * FROM STREAM src;
SQL
}
refused() { # FORMAT OPTIONS MESSAGE (its start)
    sink "$1" "$2"
    run_weir dry-run
    expect_exit 2
    expect_stderr_contains "transformations/p.sql:3:1: error: [INVALID_SINK_OPTION] Sink out: $3"
    expect_stderr_not_contains "Binder Error"
    expect_no_file storage
}

refused csv "delimiter '\"'" "option delimiter = '\"' is the same character as the default quote '\"'"
refused csv "sep '|', quote '|'" "option sep = '|' is the same character as option quote = '|'"
refused csv "escape ','" "the default delimiter ',' is the same character as option escape = ','"
refused csv "delimiter ';', escape ';'" "option delimiter = ';' is the same character as option escape = ';'"
refused csv "nullValue 'a,b'" "option nullValue = 'a,b' contains the default delimiter ','"
refused csv "nullValue '\\\\N', escape '\\\\'" "option nullValue"
refused csv "nullValue 'x\"y'" "option nullValue"
refused csv "delimiter '::'" "option delimiter = '::' must be one ASCII character"
refused csv "delimiter 'é'" "option delimiter"
refused csv "compression 'snappy'" "option compression"
refused csv "partitionBy 'id, s, k'" "option partitionBy = 'id, s, k' names every column"
refused parquet "partitionBy 'k, K'" "option partitionBy = 'k, K' names column K twice"
refused parquet "partitionBy 'nope'" "option partitionBy names column nope, which the sink's flows do not write"
refused json "compression 'brotli'" "option compression"
refused delta "partitionBy '[\"k\", \"k\"]'" "option partitionBy"

# Options that fit together still work, end to end.
sink csv "delimiter ';', quote '''', escape '\\\\', nullValue 'NA', header 'true'"
run_weir dry-run
expect_exit 0
run_weir run
expect_exit 0
expect_equal "csv rows" "$(cat out/x/*.csv | wc -l)" 11
