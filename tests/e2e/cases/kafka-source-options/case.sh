# read_kafka(...) options are checked by dry runs without a broker: bad
# ones are graph errors (exit 2) with the location of the call; a batch
# read of Kafka is refused; an unreachable broker is a clear error of the
# dry run, in bounded time.

# Bad options are graph errors of a dry run, with the call's location (no
# broker needed).
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.sql:3:10: error: [INVALID_KAFKA_OPTION] read_kafka(): use one of subscribe, subscribePattern and assign, not 'subscribe' and 'assign'"
sed -i "s/assign => '{\"a\": \[0\]}'/startingOffsets => 'middle'/" transformations/bad.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.sql:3:10: error: [INVALID_KAFKA_OPTION] read_kafka(): startingOffsets must be"
sed -i "s/startingOffsets => 'middle'/\`kafka.no.such.setting\` => 'x'/" transformations/bad.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "[INVALID_KAFKA_OPTION] Kafka option 'kafka.no.such.setting' = 'x': not a setting of the Kafka client"
sed -i "s/\`kafka.no.such.setting\` => 'x'/wat => 1/" transformations/bad.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "read_kafka(): unknown option 'wat'"
# Without STREAM: a batch read of Kafka is refused.
sed -i "s/STREAM read_kafka/read_kafka/; s/, wat => 1//" transformations/bad.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.sql:3:3: error: [UNSUPPORTED_KAFKA_BATCH_READ]"
# An unreachable broker: a clear error from the dry run, in bounded time;
# exit 1 as for any source that cannot be reached (the pipeline is valid).
sed -i "s/read_kafka(bootstrapServers => '127.0.0.1:1'/STREAM read_kafka(\`kafka.socket.timeout.ms\` => 2000, bootstrapServers => '127.0.0.1:1'/" transformations/bad.sql
start=$(date +%s)
run_weir dry-run
expect_exit 1
expect_stderr_contains "[KAFKA_BROKER_UNREACHABLE] no Kafka broker answered at 127.0.0.1:1 within 2000 ms"
[ $(($(date +%s) - start)) -lt 20 ] || e2e_fail "the dry run took too long"

