# Folders written by Spark: hidden files (.crc checksums, _SUCCESS,
# _committed_*, _started_*) are not data, in batch and streaming reads and
# direct queries. A folder with a _spark_metadata log (Spark's file sink)
# is read through the log, as Spark reads it: a part file the log does not
# commit (a batch whose job died) is not data. The folder is Spark's own
# output (the JSON file sink of tests/spark/checkpoint-fixtures.sh, kept in
# import-checkpoint/): 11 part files of 2 rows, a .crc beside each, the log
# compacted at batch 9 (9.compact, then 10), written to another path.
cp -r "$E2E_CASE/../import-checkpoint/spark-4.1/out" out
printf '{"id":1000,"name":"uncommitted"}\n' > out/part-00000-99999999-dead-beef-0000-000000000000-c000.json
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

# Without the log, every visible part file is data (the stray one too).
mv out/_spark_metadata out/_moved_away_metadata
expect_query "SELECT count(*) AS n FROM read_files('out', format => 'json')" "n
23"
# A log that commits a file that is gone: an error naming it.
mv out/_moved_away_metadata out/_spark_metadata
rm out/part-00000-cd95efef-c55b-48d8-bd3c-c54d48be0888-c000.json
run_weir query "SELECT count(*) AS n FROM read_files('out', format => 'json')"
expect_failure
expect_stderr_contains "part-00000-cd95efef-c55b-48d8-bd3c-c54d48be0888-c000.json is listed as committed by the file sink log"
