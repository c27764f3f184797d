# The Kafka source under read_committed (the default) with transactional
# producers: aborted messages and transaction markers leave gaps in the
# offsets, batches (maxOffsetsPerTrigger => 2) end inside them, and an open
# transaction ends the batch at the last stable offset without waiting.

kafka_start
mkdir -p transformations
sed "s/@KAFKA@/$KAFKA/g" kafka.sql.in > transformations/kafka.sql

# Committed, aborted, committed; then one held open.
ktool create tx 1 >/dev/null
ktool produce-txn tx 3 -p 0
ktool produce-txn tx 3 -p 0 -a
ktool produce-txn tx 2 -p 0
run_weir run
expect_exit 0
expect_query "SELECT v, \`offset\` FROM committed ORDER BY 2" "v,offset
x0,0
x1,1
x2,2
x0,8
x1,9"
ktool produce-txn tx 2 -p 0 -w 6 > open.txt &
txn=$!
for i in $(seq 50); do grep -q open open.txt && break; sleep 0.2; done
printf 'after\tthe open one\n' | ktool produce tx -p 0
run_weir run
expect_exit 0
kill -0 $txn 2>/dev/null || e2e_fail "the update waited for the open transaction"
expect_query "SELECT count(*) AS n FROM committed" "n
5"
wait $txn
run_weir run
expect_exit 0
expect_query "SELECT v FROM committed WHERE \`offset\` > 9 ORDER BY \`offset\`" "v
x0
x1
the open one"
