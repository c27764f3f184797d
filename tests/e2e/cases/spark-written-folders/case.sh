# Folders written by Spark: hidden files (.crc checksums, _SUCCESS,
# _committed_*, _started_*) are not data, in batch and streaming reads and
# direct queries. The folder is Spark's own output (the JSON file sink of
# tests/spark/checkpoint-fixtures.sh, kept in import-checkpoint/): 11 part
# files of 2 rows, a .crc beside each.
cp -r "$E2E_CASE/../import-checkpoint/spark-4.1/out" out
: > out/_SUCCESS
printf 'x\n' > out/_committed_123
printf 'x\n' > out/_started_123
run_weir run
expect_exit 0
expect_query "SELECT n, total FROM batch_read" "n,total
22,1331"
expect_query "SELECT count(*) AS n FROM stream_read" "n
22"
expect_query "SELECT count(*) AS n FROM json.\`out\`" "n
22"
expect_query "SELECT count(*) AS n FROM read_files('out', format => 'json', pathGlobFilter => '*.json')" "n
22"
