# weir run --sample N on a Kafka source: each batch takes the first N
# records of what is new, into <storage>-sample; the source advances within
# the sample; the real storage is untouched and a normal run reads every
# record. A Kafka sink of a sample run appends to the sample storage's
# local topics (as in weir test): no message reaches the real topic, not
# even in an aborted transaction.

kafka_start
mkdir -p transformations
sed "s/@KAFKA@/$KAFKA/g" kafka.sql.in > transformations/kafka.sql
sed 's|^storage: .*|storage: storage-sample|' spark-pipeline.yml > inspect.yml
ktool create events 1 >/dev/null
ktool create out 1 >/dev/null
for i in $(seq 0 19); do printf 'k%s\tv%s\n' "$i" "$i"; done | ktool produce events

run_weir run --quiet --sample 4
expect_exit 0
expect_query "SELECT count(*) AS n, min(\`offset\`) AS lo, max(\`offset\`) AS hi FROM bronze" "n,lo,hi
4,0,3" --spec inspect.yml
expect_no_file storage/weir.duckdb
expect_equal "messages on the real topic" "$(ktool consume out -u -n)" 0
expect_query "SELECT count(*) AS n, min(\`offset\`) AS lo, max(\`offset\`) AS hi, min(CAST(value AS STRING)) AS v FROM weir_kafka.messages WHERE topic = 'out'" "n,lo,hi,v
4,0,3,v0" --spec inspect.yml

# New records: the next sample batch starts after the first batch's end.
for i in $(seq 20 29); do printf 'k%s\tv%s\n' "$i" "$i"; done | ktool produce events
run_weir run --quiet --sample 4
expect_exit 0
expect_query "SELECT count(*) AS n, max(\`offset\`) AS hi FROM bronze WHERE \`offset\` >= 20" "n,hi
4,23" --spec inspect.yml
expect_equal "messages on the real topic" "$(ktool consume out -u -n)" 0
expect_query "SELECT count(*) AS n FROM weir_kafka.messages WHERE topic = 'out'" "n
8" --spec inspect.yml

# A normal run reads all 30 records into the real storage.
run_weir run --quiet
expect_exit 0
expect_query "SELECT count(*) AS n FROM bronze" "n
30"
expect_query "SELECT count(*) AS n FROM bronze" "n
8" --spec inspect.yml
# ... and its sink publishes them all, once.
expect_equal "messages on the real topic" "$(ktool consume out -n)" 30
