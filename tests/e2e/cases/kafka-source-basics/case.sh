# The Kafka source against a real broker: Spark's columns and types, two
# topics, a pattern, assign, startingOffsets (earliest, latest, JSON),
# maxOffsetsPerTrigger (several batches in one update), a run with nothing
# new, partitions added mid-stream, topics that appear later, full refresh.

kafka_start
mkdir -p transformations
sed "s/@KAFKA@/$KAFKA/g" kafka.sql.in > transformations/kafka.sql
ktool create orders 3 >/dev/null
ktool create refunds 1 >/dev/null
ktool create other 1 >/dev/null
# Binary and NULL keys, binary values, a header.
printf 'k0\tv0\n\xff\x01x\tv1\nv2\n' | ktool produce orders -p 0
printf 'k3\t\xfe\xfd\nk4\tv4\n' | ktool produce orders -p 1
printf 'k5\tv5\nk6\tv6\n' | ktool produce orders -p 2
printf 'r0\tback\n' | ktool produce refunds -H src=shop -H n=2
printf 'o0\tnot read\n' | ktool produce other

run_weir dry-run
expect_exit 0
expect_stdout_contains "streaming table spark_catalog.default.bronze  (transformations/kafka.sql:2)
    key            binary
    value          binary
    topic          string
    partition      int
    offset         bigint
    timestamp      timestamp
    timestampType  int
    headers        array<struct<key:string,value:binary>>"
expect_stdout_contains "external inputs: read_kafka(subscribe => 'orders, refunds')"
expect_stdout_contains "external inputs: read_kafka(subscribePattern => 'ord.*')"

run_weir run --json
expect_exit 0
cp "$WEIR_STDOUT" run1.json
expect_query "SELECT topic, \`partition\`, \`offset\`, hex(key) AS k, hex(value) AS v, timestampType, timestamp > TIMESTAMP '2026-01-01' AS ts, headers FROM bronze ORDER BY topic, \`partition\`, \`offset\`" "topic,partition,offset,k,v,timestampType,ts,headers
orders,0,0,6B30,7630,0,true,
orders,0,1,FF0178,7631,0,true,
orders,0,2,,7632,0,true,
orders,1,0,6B33,FEFD,0,true,
orders,1,1,6B34,7634,0,true,
orders,2,0,6B35,7635,0,true,
orders,2,1,6B36,7636,0,true,
refunds,0,0,7230,6261636B,0,true,\"[{'key': src, 'value': shop}, {'key': n, 'value': 2}]\""
expect_query "SELECT typeof(key) AS k, typeof(value) AS v, typeof(topic) AS t, typeof(\`partition\`) AS p, typeof(\`offset\`) AS o, typeof(timestamp) AS ts, typeof(timestampType) AS tt FROM bronze LIMIT 1" "k,v,t,p,o,ts,tt
binary,binary,string,int,bigint,timestamp,int"
expect_query "SELECT topic, count(*) AS n FROM by_pattern GROUP BY topic" "topic,n
orders,7"
expect_query "SELECT count(*) AS n, min(\`partition\`) AS p FROM assigned" "n,p
2,1"
expect_query "SELECT \`partition\`, \`offset\` FROM from_json ORDER BY 1, 2" "partition,offset
0,1
0,2
1,0
1,1"
expect_query "SELECT count(*) AS n FROM from_latest" "n
0"
expect_query "SELECT count(*) AS n, count(DISTINCT v) AS d FROM capped" "n,d
7,7"
# The capped flow took two batches (3 offsets, then 4) in this update.
if command -v jq >/dev/null; then
    expect_equal "batches of capped" \
        "$(jq -r 'select(.flow_name == "spark_catalog.default.capped" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.batches | map(.sources[0].numInputRows) | join(",")' run1.json)" "3,4"
    expect_equal "end offsets of bronze" \
        "$(jq -c 'select(.flow_name == "spark_catalog.default.bronze" and .details.flow_progress.status == "COMPLETED") | .details.flow_progress.checkpoint.sources[0].endOffset' run1.json)" '{"orders":{"0":3,"1":2,"2":2},"refunds":{"0":1}}'
fi
expect_query "SELECT batch_id, rows FROM _weir.checkpoints WHERE flow = 'spark_catalog.default.capped' ORDER BY batch_id" "batch_id,rows
0,3
1,4"
expect_query "SELECT count(*) AS n FROM later" "n
0"
expect_equal "sink rows" "$(cat out/orders/*.json | wc -l)" 7
expect_equal "sink batches" "$(ls out/orders | wc -l)" 2

# Nothing new.
run_weir run
expect_exit 0
expect_stdout_contains "(8 streaming flows had no new data)"

# New messages, and a partition added mid-stream (read from its earliest
# offset, as Spark does).
printf 'k7\tv7\n' | ktool produce orders -p 2
ktool add-partitions orders 4 >/dev/null
printf 'k8\tv8\nk9\tv9\n' | ktool produce orders -p 3
ktool create later 2 >/dev/null
printf 'l0\tw0\n' | ktool produce later -p 0
printf 'l1\tw1\n' | ktool produce later -p 1
run_weir run
expect_exit 0
expect_query "SELECT v FROM later ORDER BY v" "v
w0
w1"
expect_query "SELECT count(*) AS n, count(DISTINCT topic || \`partition\` || \`offset\`) AS d FROM bronze" "n,d
11,11"
expect_query "SELECT v FROM from_latest ORDER BY v" "v
v7
v8
v9"
expect_query "SELECT count(*) AS n, count(DISTINCT v) AS d FROM capped" "n,d
10,10"
expect_query "SELECT count(*) AS n FROM by_pattern" "n
10"
expect_query "SELECT count(*) AS n FROM assigned" "n
2"
expect_equal "distinct sink rows" "$(cat out/orders/*.json | sort -u | wc -l)" 10
expect_equal "sink rows" "$(cat out/orders/*.json | wc -l)" 10

# Full refresh: a new generation, from startingOffsets again.
run_weir run --full-refresh bronze,from_latest
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT topic || \`partition\` || \`offset\`) AS d FROM bronze" "n,d
11,11"
expect_query "SELECT count(*) AS n FROM from_latest" "n
0"
printf 'k10\tv10\n' | ktool produce orders -p 0
run_weir run
expect_exit 0
expect_query "SELECT v FROM from_latest" "v
v10"
expect_query "SELECT count(*) AS n FROM bronze" "n
12"


# A message with more headers than a DuckDB data chunk has rows (2048): the
# headers scan carries the rest into the next chunk, in order; a message
# without headers has none (NULL).
hdrs=()
for i in $(seq 0 2099); do hdrs+=(-H "h$i=v$i"); done
printf 'r1\tmany\n' | ktool produce refunds "${hdrs[@]}"
printf 'r2\tnone\n' | ktool produce refunds
run_weir run
expect_exit 0
expect_query "SELECT CAST(value AS STRING) AS v, size(headers) AS n, headers[0].key AS k0, CAST(try_element_at(headers, 2100).value AS STRING) AS last FROM bronze WHERE topic = 'refunds' ORDER BY \`offset\`" "v,n,k0,last
back,2,src,
many,2100,h0,v2099
none,,,"
expect_query "SELECT count(*) AS n FROM (SELECT posexplode(headers) FROM bronze WHERE CAST(value AS STRING) = 'many') WHERE col.key <> concat('h', pos)" "n
0"
