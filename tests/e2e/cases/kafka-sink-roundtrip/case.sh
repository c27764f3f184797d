# Kafka sink round trip against a real broker: string and binary values,
# keys, headers, an explicit partition, a per-row topic, the topic option
# winning over a topic column, message timestamps, and
# to_json(struct(*)) AS value. A run
# without new rows publishes nothing; new rows are one more batch, and a
# read_committed consumer sees every row once.
kafka_start
ktool create out 3
ktool create even 2
ktool create odd 2
ktool create other 1
# Its messages carry 2024 timestamps, older than the broker's retention
# (7 days, enforced every second by scripts/kafka.sh's broker): the topic
# keeps them (retention.ms=-1), as a user's topic for old events would.
ktool create stamped 1 -c retention.ms=-1

write_spec kafka_sink
cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS SELECT * FROM STREAM src;

-- JSON values, string keys, headers; Java's partitioner (murmur2 of the key).
CREATE SINK json_out USING kafka
OPTIONS ('kafka.bootstrap.servers' '$KAFKA', topic 'out');
CREATE FLOW to_json AS INSERT INTO json_out BY NAME
SELECT to_json(struct(*)) AS value, CAST(id AS STRING) AS key,
       array(named_struct('key', 'src', 'value', CAST(s AS BINARY)),
             named_struct('key', 'empty', 'value', CAST(NULL AS BINARY))) AS headers
FROM STREAM events;

-- No topic option: each row names its topic and partition; binary values.
CREATE SINK routed USING kafka OPTIONS (kafka.bootstrap.servers '$KAFKA');
CREATE FLOW to_routed AS INSERT INTO routed BY NAME
SELECT IF(id % 2 = 0, 'even', 'odd') AS topic, CAST(id % 4 / 2 AS INT) AS partition,
       concat(unhex('00FF'), CAST(s AS BINARY)) AS value
FROM STREAM events;

-- The topic option wins over the topic column (as in Spark).
CREATE SINK pinned USING kafka
OPTIONS ('kafka.bootstrap.servers' = '$KAFKA', 'topic' = 'other');
CREATE FLOW to_pinned AS INSERT INTO pinned BY NAME
SELECT 'nowhere' AS topic, s AS value, id AS ignored FROM STREAM events;

-- Message timestamps from a timestamp column.
CREATE SINK stamped USING kafka OPTIONS ('kafka.bootstrap.servers' '$KAFKA', topic 'stamped');
CREATE FLOW to_stamped AS INSERT INTO stamped BY NAME
SELECT s AS value, timestamp_millis(1704164645678 + id * 1000) AS timestamp
FROM STREAM events;
SQL

run_weir query "CREATE TABLE src (id BIGINT, s STRING)"
expect_exit 0
run_weir query "INSERT INTO src SELECT id, concat('s', id) FROM range(0, 6) AS t(id)"
expect_exit 0
run_weir dry-run
expect_exit 0
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."

consume() { # TOPIC: its messages, sorted, without partition and offset
    ktool consume "$1" >"$E2E_OUT/$1.txt" || e2e_fail "ktool consume $1 failed"
    cut -f3- "$E2E_OUT/$1.txt" | sort
}
expect_equal "out" "$(consume out)" '0	{"id":0,"s":"s0"}	src=s0;empty=
1	{"id":1,"s":"s1"}	src=s1;empty=
2	{"id":2,"s":"s2"}	src=s2;empty=
3	{"id":3,"s":"s3"}	src=s3;empty=
4	{"id":4,"s":"s4"}	src=s4;empty=
5	{"id":5,"s":"s5"}	src=s5;empty='
# Keys decide partitions as in Java clients (murmur2): key "1" -> 0 of 3.
expect_equal "partition of key 1" "$(awk -F'\t' '$3 == "1" { print $1 }' "$E2E_OUT/out.txt")" 0
expect_equal "even" "$(ktool consume even | cut -f1,3,4 | sort)" '0	\N	\x00\xffs0
0	\N	\x00\xffs4
1	\N	\x00\xffs2'
expect_equal "odd" "$(ktool consume odd | cut -f1,3,4 | sort)" '0	\N	\x00\xffs1
0	\N	\x00\xffs5
1	\N	\x00\xffs3'
expect_equal "other" "$(consume other)" '\N	s0	
\N	s1	
\N	s2	
\N	s3	
\N	s4	
\N	s5	'
expect_equal "stamped" "$(ktool consume stamped -T | cut -f4,6 | sort)" 's0	1704164645678
s1	1704164646678
s2	1704164647678
s3	1704164648678
s4	1704164649678
s5	1704164650678'
expect_equal "staged files left" "$(find storage/sinks -type f | wc -l)" 0

# Nothing new: nothing is published (the topics' end offsets stay).
before=$(for t in out even odd other stamped; do ktool offsets $t; done)
run_weir run
expect_exit 0
expect_equal "offsets after an idle run" "$(for t in out even odd other stamped; do ktool offsets $t; done)" "$before"

# New rows: one more batch each, every row once for read_committed readers.
run_weir query "INSERT INTO src SELECT id, concat('s', id) FROM range(6, 1006) AS t(id)"
run_weir run
expect_exit 0
expect_equal "out rows" "$(ktool consume out -n)" 1006
expect_equal "out distinct" "$(consume out | sort -u | wc -l)" 1006
expect_equal "even+odd rows" "$(( $(ktool consume even -n) + $(ktool consume odd -n) ))" 1006
expect_equal "other rows" "$(ktool consume other -n)" 1006
expect_query "SELECT sink, state, count(*) AS n, sum(rows) AS r FROM spark_catalog._weir.sink_batches GROUP BY ALL ORDER BY sink" "sink,state,n,r
json_out,published,2,1006
pinned,published,2,1006
routed,published,2,1006
stamped,published,2,1006"
# The old-timestamped messages are all still there (seconds after the
# broker's retention checks began).
expect_equal "stamped rows" "$(ktool consume stamped -n)" 1006
