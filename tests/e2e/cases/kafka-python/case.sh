# A Python pipeline on the real broker, as written for Spark: Kafka topic ->
# bronze (spark.readStream.format("kafka")) -> silver (from_json with a
# StructType, a filter) -> Kafka sink (dp.create_sink + append_flow of
# to_json(struct(..)) AS value), and the other spellings (options(**...),
# subscribePattern, includeHeaders, maxOffsetsPerTrigger, selectExpr, a DDL
# schema, to_json(struct("*"))). Checked with a read_committed consumer of
# the sink topics and weir query; a second run takes only new messages; the
# seed document's Kafka sink example runs against the broker.
root=$(cd "$E2E_LIB/../.." && pwd)
WEIR_PYTHON=$("$root/scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

kafka_start
ktool create events 2 >/dev/null
ktool create refunds 1 >/dev/null
ktool create out 1 >/dev/null
ktool create out_refunds 1 >/dev/null
cd project
sed "s/@KAFKA@/$KAFKA/g" transformations/pipeline.py.in >transformations/pipeline.py
rm transformations/pipeline.py.in

printf '%s\n' 'e1	{"id": 1, "kind": "buy", "amount": 10.5}' \
    'e2	{"id": 2, "kind": "refund", "amount": -3}' 'e3	not json' | ktool produce events -p 0
printf '%s\n' 'e4	{"id": 4, "kind": "view", "amount": 0.25}' | ktool produce events -p 1
printf '%s\n' 'r1	{"id": 1, "reason": "late"}' 'r2	{"id": 2, "reason": "broken"}' \
    'r3	{"id": 3}' | ktool produce refunds -H src=shop

run_weir dry-run
expect_exit 0
expect_stdout_contains "streaming table spark_catalog.default.events_bronze  (transformations/pipeline.py:"
expect_stdout_contains "    partition      int"
expect_stdout_contains "sink events_out  (transformations/pipeline.py:54)
    format: kafka"

run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT topic, \`partition\`, \`offset\`, CAST(key AS STRING) AS k, typeof(value) AS t FROM events_bronze ORDER BY \`partition\`, \`offset\`" "topic,partition,offset,k,t
events,0,0,e1,binary
events,0,1,e2,binary
events,0,2,e3,binary
events,1,0,e4,binary"
expect_query "SELECT * FROM events_silver ORDER BY id" "key,id,kind,amount,partition,offset
e1,1,buy,10.5,0,0
e4,4,view,0.25,1,0"
expect_query "SELECT * FROM refunds ORDER BY key" "key,id,reason,h,hv,topic
r1,1,late,src,shop,refunds
r2,2,broken,src,shop,refunds
r3,3,,src,shop,refunds"
# The sink topics, as a read_committed consumer sees them.
ktool consume out | cut -f 3,4 | sort >"$E2E_OUT/out"
expect_equal "out topic" "$(cat "$E2E_OUT/out")" 'e1	{"id":1,"kind":"buy","amount":10.5}
e4	{"id":4,"kind":"view","amount":0.25}'
ktool consume out_refunds | cut -f 3,4 | sort >"$E2E_OUT/refunds"
expect_equal "out_refunds topic" "$(cat "$E2E_OUT/refunds")" '\N	{"key":"r1","id":1,"reason":"late","h":"src","hv":"shop","topic":"refunds"}
\N	{"key":"r2","id":2,"reason":"broken","h":"src","hv":"shop","topic":"refunds"}
\N	{"key":"r3","id":3,"h":"src","hv":"shop","topic":"refunds"}'

# Nothing new: nothing read, nothing published.
run_weir run
expect_exit 0
expect_equal "out after a run with nothing new" "$(ktool consume out -n)" 2
# New messages: only they go through.
printf '%s\n' 'e5	{"id": 5, "kind": "buy", "amount": 7}' | ktool produce events -p 1
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, max(id) AS m FROM events_silver" "n,m
3,5"
ktool consume out | cut -f 3,4 | sort >"$E2E_OUT/out"
expect_equal "out topic after new messages" "$(cat "$E2E_OUT/out")" 'e1	{"id":1,"kind":"buy","amount":10.5}
e4	{"id":4,"kind":"view","amount":0.25}
e5	{"id":5,"kind":"buy","amount":7.0}'
expect_equal "out_refunds after new messages" "$(ktool consume out_refunds -n)" 3

# The seed document's Kafka sink (examples/seeds/000-kafka-sink) with this
# broker for "host:port".
cd "$E2E_WORK"
cp -r "$root/examples/seeds/000-kafka-sink" seed
cd seed
sed -i "s/host:port/$KAFKA/" transformations/kafka.py
ktool create my_topic 1 >/dev/null
run_weir run
expect_exit 0
ktool consume my_topic | cut -f 4 | sort >"$E2E_OUT/seed"
expect_equal "seed sink topic" "$(wc -l <"$E2E_OUT/seed")" "$(wc -l <data/events/events-0001.json)"
grep -q '^{"' "$E2E_OUT/seed" || e2e_fail "the seed sink did not write JSON values: $(head -3 "$E2E_OUT/seed")"
