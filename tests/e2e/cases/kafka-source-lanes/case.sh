# Batches large enough to be read in lanes (a consumer per lane, the lanes
# filled by DuckDB's threads at once; sources/kafka_read.c LANE_MESSAGES): every
# message is stored once, each partition's messages in offset order, and
# the batches' offsets are where the next batch starts; also when the
# broker stops answering while the lanes read (the attempt fails in bounded
# time, the retry reads the batch again) and when `weir run` is killed
# while they read and store.

kafka_start
mkdir -p transformations
# project [OPTIONS [HEADER]]: both tables read topic big in lanes; OPTIONS
# are more read_kafka options, HEADER SQL before the tables.
project() {
    cat > transformations/kafka.sql <<SQL
${2:-}
CREATE STREAMING TABLE raw AS
SELECT * FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'big',
                                startingOffsets => 'earliest'${1:-});
CREATE STREAMING TABLE capped AS
SELECT * FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'big',
                                startingOffsets => 'earliest',
                                maxOffsetsPerTrigger => 130000${1:-});
SQL
}
project
ktool create big 4 >/dev/null
ktool produce-n big 200000 -s 20 >/dev/null

# The table's rows in storage order, each partition's offsets ascending
# one by one: a stored row out of place or missing shows as a gap.
in_order() { # table
    expect_query "SELECT count(*) AS n, count(DISTINCT concat(\`partition\`, ':', \`offset\`)) AS d, sum(CASE WHEN \`offset\` = prev + 1 OR prev IS NULL THEN 0 ELSE 1 END) AS gaps FROM (SELECT \`partition\`, \`offset\`, lag(\`offset\`) OVER (PARTITION BY \`partition\` ORDER BY rowid) AS prev FROM $1)" "$2"
}

update_holds() { # messages: an update, then both tables hold them all
    run_weir run
    expect_exit 0
    in_order raw "n,d,gaps
$1,$1,0"
    in_order capped "n,d,gaps
$1,$1,0"
}

update_holds 200000
# Two batches (the cap is shared out over the partitions, as Spark's).
expect_query "SELECT count(*) AS batches, sum(rows) AS n, bool_and(rows BETWEEN 60000 AND 130000) AS capped FROM _weir.checkpoints WHERE flow = 'spark_catalog.default.capped' AND batch_id >= 0" "batches,n,capped
2,200000,true"

# More messages: a next batch in lanes goes on where the last one ended.
ktool produce-n big 100000 -s 20 >/dev/null
update_holds 300000

# --- The broker stops answering while the lanes read: the attempt fails
# with the broker's address in bounded time, and the retry once it is back
# reads every message once.
# A small prefetch queue (2 MiB a lane): the lanes' consumers fetch from
# the broker all along the read.
project ", \`kafka.queued.max.messages.kbytes\` => '2048', \`kafka.socket.timeout.ms\` => '2000'" \
    "SET spark.sql.pipelines.maxFlowRetryAttempts = 3;
SET spark.sql.pipelines.execution.watchdog.minRetryTime = 1s;"
ktool produce-n big 300000 -s 100 >/dev/null
run_broker_paused "raw is RUNNING" 0.5
grep -E "RUNNING|FAILED|UNREACHABLE|COMPLETED" paused.out
in_order raw "n,d,gaps
600000,600000,0"
in_order capped "n,d,gaps
600000,600000,0"

# --- kill -9 while the lanes read and store, again and again: every
# message lands once, in order.
ktool produce-n big 300000 -s 100 >/dev/null
for delay in 0.5 1.0 1.5 2.0 2.5; do
    "$WEIR" run >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
done
update_holds 900000
