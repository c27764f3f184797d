# The Kafka source when things go wrong: the broker down when an update
# starts (a clear error in bounded time, retried, nothing committed; the
# rows arrive once it is up), paused while a flow runs (retried, nothing
# lost or duplicated), offsets lost to retention or a recreated topic
# (KAFKA_DATA_LOSS, or a warning with failOnDataLoss => false), and
# kill -9 of `weir run` in the middle of batches (exactly once).

project() { # KAFKA TOPIC FAIL MAX RETRIES
    mkdir -p transformations
    sed "s/@KAFKA@/$1/; s/@TOPIC@/$2/; s/@FAIL@/$3/; s/@MAX@/$4/; s/@RETRIES@/$5/" \
        kafka.sql.in > transformations/kafka.sql
}
count() { # SQL -> the single value
    run_weir query --format csv "$1"
    expect_exit 0
    tail -n 1 "$WEIR_STDOUT"
}

# --- No broker: the update fails with the address, after the retries,
# within bounded time, and nothing is committed.
project 127.0.0.1:1 t true 1000 1
start=$(date +%s)
run_weir run
expect_exit 1
expect_stdout_contains "[KAFKA_BROKER_UNREACHABLE] no Kafka broker answered at 127.0.0.1:1 within 2000 ms"
expect_stdout_contains "has FAILED more than 1 times and will not be restarted"
[ $(($(date +%s) - start)) -lt 40 ] || e2e_fail "the failing update took too long"
expect_query "SELECT count(*) AS n FROM _weir.checkpoints WHERE batch_id >= 0" "n
0"

kafka_start
ktool create t 2 >/dev/null
printf 'a\t1\nb\t2\n' | ktool produce t -p 0
printf 'c\t3\n' | ktool produce t -p 1
project "$KAFKA" t true 1000 2
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT k) AS d FROM events" "n,d
3,3"

# --- The broker paused when the update starts: the first attempt times
# out, the retry after it resumes reads the new rows once.
printf 'd\t4\ne\t5\n' | ktool produce t -p 1
run_broker_paused
expect_query "SELECT count(*) AS n, count(DISTINCT k) AS d FROM events" "n,d
5,5"

# --- Lost offsets: records deleted before the flow read them.
printf 'f\t6\ng\t7\nh\t8\n' | ktool produce t -p 0
ktool delete-records t 0 4 >/dev/null
run_weir run
expect_exit 1
expect_stdout_contains "[KAFKA_DATA_LOSS] Flow 'spark_catalog.default.events': Kafka topic t partition 0: offsets 2 to 3 no longer exist (the earliest is 4)."
expect_stdout_contains "set failOnDataLoss => 'false'"
# Not retried: it would fail the same way.
expect_equal "attempts" "$(grep -c 'KAFKA_DATA_LOSS' "$WEIR_STDOUT")" 1
expect_query "SELECT count(*) AS n FROM events" "n
5"
project "$KAFKA" t false 1000 2
run_weir run
expect_exit 0
expect_stdout_contains "offsets 2 to 3 no longer exist (the earliest is 4). Some data may have been lost"
expect_stdout_contains "It goes on from the earliest offset available (failOnDataLoss is false)."
expect_query "SELECT k FROM events ORDER BY k" "k
a
b
c
d
e
h"

# --- A recreated topic: the flow's offsets are past its end.
ktool delete t >/dev/null
ktool create t 1 >/dev/null
printf 'i\t9\n' | ktool produce t -p 0
run_weir run
expect_exit 0
expect_stdout_contains "the flow's offset 5 is past the latest offset 1"
expect_stdout_contains "Kafka topic t partition 1: the partition no longer exists"
expect_query "SELECT count(*) AS n, max(k) AS k FROM events" "n,k
7,i"

# --- kill -9 in the middle of an update, again and again: every message
# lands exactly once.
ktool create bulk 3 >/dev/null
ktool produce-n bulk 30000 -s 64 >/dev/null
project "$KAFKA" bulk true 2500 2
sed -i 's/CREATE STREAMING TABLE events/CREATE STREAMING TABLE bulk/' transformations/kafka.sql
for delay in 0.4 0.8 1.2 1.6 2.0 2.4 2.8; do
    "$WEIR" run >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
done
# Some kills landed while batches were being committed.
run_weir query --format csv "SELECT count(DISTINCT update_id) AS n FROM _weir.checkpoints WHERE flow LIKE '%bulk'"
expect_exit 0
echo "updates that committed bulk batches before the last run: $(tail -n 1 "$WEIR_STDOUT")"
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT k) AS d FROM bulk" "n,d
30000,30000"
