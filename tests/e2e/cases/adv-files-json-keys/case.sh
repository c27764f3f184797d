# JSON keys match columns case-insensitively, as in Spark: a column takes
# the key spelled like it (else the other spelling), and the spellings no
# column took go to _rescued_data. Keys that cannot be column names ("",
# or with a NUL) are rescued too, never dropped, and never break the read.

mkdir -p landing/cased landing/odd landing/both
printf '{"ID": 3, "id": 4}\n' > landing/cased/a.json
printf '{"id": 100}\n' > landing/cased/b.json
printf '{"": 1, "a\\u0000b": 2, "x": 3}\n' > landing/odd/a.json
printf '{"ID": 3, "id": 4, "": 5, "a\\u0000b": 6}\n{"id": 100}\n' > landing/both/a.json

run_weir run
expect_exit 0
expect_query "SELECT * FROM cased LIMIT 0" "ID,_rescued_data"
expect_query "SELECT ID, regexp_replace(_rescued_data, ',\"_file_path\":\"[^\"]*\"', '') AS rescued FROM cased ORDER BY 1" "ID,rescued
3,\"{\"\"id\"\":4}\"
100,"
expect_query "SELECT * FROM odd LIMIT 0" "x,_rescued_data"
expect_query "SELECT x, regexp_replace(_rescued_data, ',\"_file_path\":\"[^\"]*\"', '') AS rescued FROM odd" "x,rescued
3,\"{\"\"\"\":1,\"\"a\\u0000b\"\":2}\""
expect_query "SELECT * FROM both_kinds LIMIT 0" "ID,_rescued_data"
expect_query "SELECT ID, regexp_replace(_rescued_data, ',\"_file_path\":\"[^\"]*\"', '') AS rescued FROM both_kinds ORDER BY 1" "ID,rescued
3,\"{\"\"id\"\":4,\"\"\"\":5,\"\"a\\u0000b\"\":6}\"
100,"

# A later file with the other spelling only: it fills the column.
printf '{"Id": 7}\n' > landing/cased/c.json
run_weir run
expect_exit 0
expect_query "SELECT ID, _rescued_data IS NULL AS clean FROM cased ORDER BY ID" "ID,clean
3,false
7,true
100,true"
