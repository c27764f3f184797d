# CSV fields as Spark's reader gives them (answers taken from Spark 4.1's
# spark.read.csv of landing/data.csv): an empty unquoted field is NULL
# whatever nullValue is; a field equal to nullValue is NULL; a quoted empty
# string is NULL by default and '' once nullValue is set (Spark's
# emptyValue), so CAST(score AS DOUBLE) never meets ''.
run_weir run
expect_exit 0
expect_query "SELECT id, name, score FROM readings ORDER BY id" 'id,name,score
1,,2.5
2,,
3,"",
4,x,3.0'
# batch reads, with and without nullValue
expect_query "SELECT id, name, score FROM read_files('landing/data.csv', format => 'csv', header => true, nullValue => 'NA') ORDER BY id" 'id,name,score
1,,2.5
2,,
3,"",
4,x,3.0'
expect_query "SELECT id, name, score FROM read_files('landing/data.csv', format => 'csv', header => true, inferColumnTypes => false) ORDER BY id" 'id,name,score
1,,2.5
2,NA,
3,,NA
4,x,3'
# emptyValue, and the float markers nanValue, positiveInf and negativeInf
# (answers of Spark 4.1's spark.read.csv of marks/marks.csv with the same
# options): a quoted empty string is emptyValue, a quoted nullValue is NULL
# as an unquoted one; NaN, Inf and -Inf are the defaults. (Row 2's Inf is
# NULL in Spark once positiveInf is another value; DuckDB still reads it.)
expect_query "SELECT id, s, d FROM read_files('marks/marks.csv', format => 'csv', header => true, inferColumnTypes => false, emptyValue => 'E', nullValue => 'NA') ORDER BY id" 'id,s,d
1,E,NaN
2,,Inf
3,x,-Inf
4,,1.5
5,,Infinity
6,y,'
expect_query "SELECT id, s, CAST(d AS STRING) AS d FROM read_files('marks/marks.csv', format => 'csv', header => true, schema => 'id INT, s STRING, d DOUBLE', emptyValue => 'E', nanValue => 'NA') ORDER BY id" 'id,s,d
1,E,NaN
2,,Infinity
3,x,-Infinity
4,NA,1.5
5,NA,Infinity
6,y,NaN'
expect_query "SELECT id, CAST(d AS STRING) AS d FROM read_files('marks/marks.csv', format => 'csv', header => true, schema => 'id INT, s STRING, d FLOAT', nanValue => 'NA', positiveInf => 'Infinity', negativeInf => '-Inf') WHERE id > 2 ORDER BY id" 'id,d
3,-Infinity
4,1.5
5,Infinity
6,NaN'
# A custom marker cannot guide DuckDB's type inference: refused, naming it.
run_weir query "SELECT * FROM read_files('marks/marks.csv', format => 'csv', header => true, nanValue => 'NA')"
expect_exit 2
expect_stderr_contains "nanValue, positiveInf or negativeInf 'NA' with inferred column types is not supported by weir"
