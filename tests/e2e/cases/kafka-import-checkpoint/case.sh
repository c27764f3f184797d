# import_checkpoint with a Kafka source (docs/import-checkpoint.md).
# spark-4.1/orders is the checkpoint of a real Spark 4.1 Structured
# Streaming query (spark-sql-kafka-0-10, captured with tests/spark/
# checkpoint-fixtures.sh --kafka-only; offset log v1, one offset line
# {"topic": {"partition": next offset}}, commits v1, the source's initial
# offsets in sources/0/0 after a NUL byte, Spark's .crc files): it read
# topic orders up to offset 3 of partition 0 and 2 of partition 1 (a0..a2,
# b0 b1), in two committed batches; spark-4.1/out is what it wrote.

kafka_start
ktool create orders 2 >/dev/null
printf 'a0\na1\na2\na3\na4\n' | ktool produce orders -p 0
printf 'b0\nb1\nb2\n' | ktool produce orders -p 1
# What the query wrote before it stopped (Spark's JSON sink: {"v", "p", "o"}).
spark_wrote=$(cat spark-4.1/out/part-*.json | sed 's/^{"v":"\([^"]*\)".*/\1/')
expect_equal "Spark's output" "$(printf '%s\n' $spark_wrote | sort | tr '\n' ' ')" "a0 a1 a2 b0 b1 "
query_id=$(sed 's/.*"id":"\([^"]*\)".*/\1/' spark-4.1/orders/metadata)

setup() { # TOPIC
    mkdir -p transformations cp
    sed "s/@KAFKA@/$KAFKA/g; s/@TOPIC@/$1/g" kafka.sql.in >transformations/kafka.sql
    rm -rf cp/orders storage
    cp -R spark-4.1/orders cp/orders
}
tree_sum() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum); }
expect_exactly_once() { # VALUES...: what the topic holds
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$( (printf '%s\n' $spark_wrote; "$WEIR" query --format csv "SELECT v FROM orders" | tail -n +2) | sort)
    expect_equal "Spark's and weir's rows" "$got" "$want"
}

setup orders
before=$(tree_sum cp/orders)
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.migrate' imported the Spark Structured Streaming checkpoint $PWD/cp/orders"
expect_query "SELECT v, p, o FROM orders ORDER BY p, o" "v,p,o
a3,0,3
a4,0,4
b2,1,2"
expect_exactly_once a0 a1 a2 a3 a4 b0 b1 b2
run_weir events --format json
expect_stdout_contains "\"import_checkpoint\": {\"path\": \"$PWD/cp/orders\", \"query_id\": \"$query_id\", \"batch_id\": 1, \"sources\": [{\"source\": "
expect_stdout_contains "\"kind\": \"kafka\", \"offset\": {\"orders\":{\"0\":3,\"1\":2}}}]}"
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/orders)" "$before"

# Later messages are read once; the option is ignored from now on.
printf 'a5\n' | ktool produce orders -p 0
printf 'b3\n' | ktool produce orders -p 1
run_weir run
expect_exit 0
expect_stdout_not_contains "imported"
expect_exactly_once a0 a1 a2 a3 a4 a5 b0 b1 b2 b3

# A full refresh reads the topic from the start (startingOffsets), no import.
run_weir run --full-refresh orders
expect_exit 0
expect_stdout_not_contains "imported"
expect_query "SELECT count(*) AS n FROM orders" "n
10"
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/orders)" "$before"

# A checkpoint of another topic does not match the flow's source.
ktool create other 1 >/dev/null
setup other
run_weir run
expect_exit 1
expect_stdout_contains "[IMPORT_CHECKPOINT_MISMATCH] Cannot import Spark checkpoint $PWD/cp/orders into flow 'spark_catalog.default.migrate': its Kafka source 0 read topic 'orders' partition 0, which the flow's read_kafka(subscribe => 'other') does not"

# Into a sink: the import works the same; with maxOffsetsPerTrigger the
# update runs several batches after it (batch 1 holds the import).
setup orders
cat >>transformations/kafka.sql <<SQL
CREATE SINK out USING json OPTIONS (path 'sink-out');
CREATE FLOW to_sink
OPTIONS (import_checkpoint 'cp/orders')
AS INSERT INTO out BY NAME
SELECT CAST(value AS STRING) AS v
FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => 2);
SQL
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'to_sink' imported the Spark Structured Streaming checkpoint"
expect_equal "import events" "$(grep -c "Flow 'to_sink' imported" "$WEIR_STDOUT")" 1
run_weir events --format json
expect_stdout_contains "\"batches\": [{\"generation\": 0, \"batch_id\": 1,"
expect_query "SELECT v FROM read_files('sink-out', format => 'json') ORDER BY v" "v
a3
a4
a5
b2
b3"
