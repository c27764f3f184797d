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
