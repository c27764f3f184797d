# Kafka sink options and columns are checked before a run, as Spark's Kafka
# sink checks them: `weir dry-run` exits 2 with the error at the CREATE
# SINK, and a sink whose broker does not answer is reported within the
# socket timeout, exit 1 (the pipeline is valid; its server is not there). No broker is needed (127.0.0.1:1 refuses connections).
printf 'name: options\nstorage: storage\nconfiguration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
mkdir transformations
run_weir query "CREATE TABLE src (id BIGINT, s STRING)"
expect_exit 0

sink() { # OPTIONS SELECT-LIST: the pipeline with one Kafka sink
    cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS SELECT * FROM STREAM src;
CREATE SINK out USING kafka OPTIONS ($1);
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT $2 FROM STREAM events;
SQL
}
refused() { # OPTIONS SELECT-LIST CLASS MESSAGE
    sink "$1" "$2"
    run_weir dry-run
    expect_exit 2
    expect_stderr_contains "transformations/p.sql:2:1: error: [$3] Sink out: $4"
}
ok="'kafka.bootstrap.servers' '127.0.0.1:1', topic 'out', 'kafka.socket.timeout.ms' '1000'"

refused "$ok" "s AS v" INVALID_KAFKA_SINK_SCHEMA "Required attribute 'value' not found"
refused "$ok" "id AS value" INVALID_KAFKA_SINK_SCHEMA "value attribute unsupported type bigint. value must be a(n) string or binary"
refused "$ok" "s AS value, id AS key" INVALID_KAFKA_SINK_SCHEMA "key attribute unsupported type bigint. key must be a(n) string or binary"
refused "$ok" "s AS value, id % 2 AS partition" INVALID_KAFKA_SINK_SCHEMA "partition attribute unsupported type bigint. partition must be a(n) int"
refused "$ok" "s AS value, array(s) AS headers" INVALID_KAFKA_SINK_SCHEMA "headers attribute unsupported type array<string>. headers must be a(n) array<struct<key:string,value:binary>>"
refused "'kafka.bootstrap.servers' '127.0.0.1:1'" "s AS value" INVALID_KAFKA_SINK_SCHEMA "topic option required when no 'topic' attribute is present. Use the topic option for setting a topic."
refused "'kafka.bootstrap.servers' '127.0.0.1:1'" "s AS value, id AS topic" INVALID_KAFKA_SINK_SCHEMA "topic attribute unsupported type bigint. topic must be a(n) string"
refused "$ok, path 'x'" "s AS value" UNKNOWN_SINK_OPTION "option 'path' is not known to the kafka sink"
refused "$ok, 'kafka.transactional.id' 'mine'" "s AS value" INVALID_SINK_OPTION "option 'kafka.transactional.id' is not supported"
refused "$ok, 'kafka.acks' '1'" "s AS value" INVALID_SINK_OPTION "option 'kafka.acks' = '1' is not supported"
refused "$ok, 'kafka.no.such.setting' 'x'" "s AS value" INVALID_KAFKA_OPTION "Kafka option 'kafka.no.such.setting' = 'x': not a setting of the Kafka client"
refused "topic 'out'" "s AS value" INVALID_KAFKA_OPTION "Kafka needs the broker list: option 'kafka.bootstrap.servers'"
refused "'kafka.bootstrap.servers' '127.0.0.1:1', topic ''" "s AS value" INVALID_SINK_OPTION "option topic must name a Kafka topic"
expect_no_file storage/sinks

# Valid, but nothing answers at the address: a clear error within the
# timeout, not a hang.
sink "$ok" "s AS value, CAST(id AS STRING) AS key"
start=$(date +%s)
run_weir dry-run
expect_exit 1
expect_stderr_contains "transformations/p.sql:2:1: error: [KAFKA_BROKER_UNREACHABLE] Sink out: no Kafka broker answered at 127.0.0.1:1 within 1000 ms"
[ $(( $(date +%s) - start )) -lt 15 ] || e2e_fail "the dry run took $(( $(date +%s) - start )) s"
e2e_pass

# Values that only the data shows fail the batch when it is staged, before
# anything commits or reaches Kafka: a NULL topic, a header without a name.
sink "'kafka.bootstrap.servers' '127.0.0.1:1'" "s AS value, IF(id = 3, NULL, 'x') AS topic"
run_weir query "INSERT INTO src SELECT id, 's' FROM range(0, 5) AS t(id)"
run_weir run
expect_exit 1
expect_stdout_contains "[INVALID_KAFKA_SINK_SCHEMA] null topic present in the data. Use the topic option for setting a default topic."
expect_equal "staged files" "$(find storage/sinks -type f | wc -l)" 0
sink "$ok" "s AS value, array(named_struct('key', CAST(NULL AS STRING), 'value', CAST(s AS BINARY))) AS headers"
run_weir run
expect_exit 1
expect_stdout_contains "[INVALID_KAFKA_SINK_SCHEMA] a header of the data has a null key"
expect_query "SELECT count(*) AS n FROM spark_catalog._weir.sink_batches" "n
0"
