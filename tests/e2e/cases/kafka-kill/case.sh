# Exactly once from Kafka to Kafka across kill -9: Kafka source -> streaming
# table -> Kafka sink, while a producer keeps adding messages to the source
# topic (rounds of distinct ids). `weir run` is killed with SIGKILL at
# seeded random instants WEIR_KAFKA_KILLS times (25 in the default suite,
# 100 in heavy/kafka-kill); the run after
# a kill recovers what it left (a batch read but not committed, a batch
# staged for the sink but not published), and is itself the next one
# killed. Then the producer stops and a clean run finishes. Every source
# message must be in the table exactly once and in the sink topic exactly
# once for a read_committed consumer (0 lost, 0 duplicated); enough kills
# must have landed mid-update and mid-publish (a staged sink batch left
# behind, aborted transactions that a read_uncommitted consumer sees).
# WEIR_KAFKA_KILL_SEED (default 15) seeds the kill instants.
kills=${WEIR_KAFKA_KILLS:-$(e2e_size 25 100)}
RANDOM=${WEIR_KAFKA_KILL_SEED:-15}
round=300 # messages per producer round

kafka_start
ktool create src 3 >/dev/null
ktool create out 2 >/dev/null
write_spec kafka_kill
# Several batches per update (maxOffsetsPerTrigger): more instants to land in.
cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS
SELECT CAST(key AS STRING) AS id, CAST(value AS STRING) AS v, \`partition\`, \`offset\`
FROM STREAM read_kafka(bootstrapServers => '$KAFKA', subscribe => 'src',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => 1500);
CREATE SINK out USING kafka OPTIONS ('kafka.bootstrap.servers' '$KAFKA', topic 'out');
CREATE FLOW to_out AS INSERT INTO out BY NAME
SELECT id AS key, concat(id, ':', v) AS value FROM STREAM events;
SQL

# produce_round R: ids R*round .. R*round+round-1, key "i<id>", value "v<id>".
produce_round() {
    seq $(($1 * round)) $(($1 * round + round - 1)) |
        awk '{ printf "i%d\tv%d\n", $1, $1 }' | ktool produce src
}
rounds=0
produce_round $rounds; rounds=$((rounds + 1))
# Baseline: an update with one round of new messages (the first update
# also sets up the storage and the broker's transaction logs: not it).
run_weir run
expect_exit 0
produce_round $rounds; rounds=$((rounds + 1))
kill_measure "$E2E_OUT/baseline.out"
expect_equal "baseline exit status" "$kill_status" 0
dur_ms=$kill_est_ms

# The producer: a round every 0.2 s until told to stop; it records how many
# rounds it finished (the ids it produced are 0 .. rounds*round-1).
: >"$E2E_OUT/rounds"
(
    r=$rounds
    while [ ! -e "$E2E_OUT/stop" ]; do
        produce_round "$r" || exit 1
        r=$((r + 1))
        echo "$r" >"$E2E_OUT/rounds"
        sleep 0.2
    done
) &
producer=$!

staged() { compgen -G "storage/sinks/*/*/g*.kafka" >/dev/null; }
mid_update=0 mid_publish=0 in_recovery=0 recovering=0 progressed=0
for k in $(seq 1 "$kills"); do
    # This run starts with what the last kill left: it recovers first.
    staged && recovering=1 || recovering=0
    kill_spawn "$E2E_OUT/killed.out"
    kill_started || true
    if ((k % 3 == 0)); then
        # Wait until a batch is staged for the sink, then kill at a random
        # moment of its publication.
        for _ in $(seq 1 1000); do
            staged && break
            kill_exited && break
            sleep 0.005
        done
        delay_ms=$(( RANDOM % (kill_est_ms / 3 + 1) ))
    else
        # A recovery run does more than the baseline (publishing what was
        # staged, reading a larger backlog): up to twice an update's length
        # (lib.sh's kill_at follows it as the machine's load changes).
        delay_ms=$(( RANDOM % (kill_est_ms * 2 + 1) ))
    fi
    kill_at "$delay_ms"
    if [ "$kill_landed" = 1 ]; then
        mid_update=$((mid_update + 1))
        in_recovery=$((in_recovery + recovering))
    fi
    staged && mid_publish=$((mid_publish + 1))
    # Progress despite the kills: a flow of this run committed a batch.
    grep -q "has COMPLETED" "$E2E_OUT/killed.out" && progressed=$((progressed + 1))
    echo "kill $k: after ${delay_ms} ms, recovering=$recovering, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
done
touch "$E2E_OUT/stop"
wait "$producer" || e2e_fail "the producer failed"
rounds=$(cat "$E2E_OUT/rounds")
total=$((rounds * round))

# A clean run catches up with everything (and publishes what is staged).
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
run_weir query --format csv "SELECT count(*), count(DISTINCT id), count(DISTINCT id) FILTER (WHERE v = 'v' || substr(id, 2)) FROM events"
expect_exit 0
IFS=, read -r t_rows t_ids t_ok < <(tail -n 1 "$WEIR_STDOUT")
ktool consume out | awk -F '\t' '{ print $3 "\t" $4 }' >"$E2E_OUT/out.txt" ||
    e2e_fail "ktool consume out failed"
s_rows=$(wc -l <"$E2E_OUT/out.txt")
s_ids=$(cut -f 1 "$E2E_OUT/out.txt" | sort -u | wc -l)
s_ok=$(awk -F '\t' '{ split($2, p, ":"); if (p[1] == $1 && p[2] == "v" substr($1, 2)) print $1 }' \
    "$E2E_OUT/out.txt" | sort -u | wc -l)
aborted=$(( $(ktool consume out -u -n) - s_rows ))
# The ids are exactly 0 .. total-1 (none outside it).
run_weir query --format csv "SELECT count(*) FROM events WHERE CAST(substr(id, 2) AS BIGINT) NOT BETWEEN 0 AND $((total - 1))"
outside=$(tail -n 1 "$WEIR_STDOUT")
echo "kafka-kill: $kills kills: $mid_update mid-update ($in_recovery of them in recovery runs), $mid_publish left a sink batch staged, $progressed completed a flow; $aborted aborted records (read_uncommitted); update ${dur_ms} ms at first, ${kill_est_ms} ms at the end" >&2
echo "kafka-kill: $total messages; table: $t_rows rows, $t_ids ids ($((total - t_ids)) lost, $((t_rows - t_ids)) duplicated); sink topic (read_committed): $s_rows records, $s_ids ids ($((total - s_ids)) lost, $((s_rows - s_ids)) duplicated)" >&2
expect_equal "table rows" "$t_rows" "$total"
expect_equal "table ids" "$t_ids" "$total"
expect_equal "table values" "$t_ok" "$total"
expect_equal "table ids outside the produced range" "$outside" 0
expect_equal "sink records" "$s_rows" "$total"
expect_equal "sink ids" "$s_ids" "$total"
expect_equal "sink values" "$s_ok" "$total"
[ "$mid_update" -ge $((kills * 2 / 5)) ] || e2e_fail "only $mid_update of $kills kills landed during an update"
[ "$in_recovery" -ge $((kills / 10)) ] || e2e_fail "only $in_recovery kills landed in recovery runs"
[ "$mid_publish" -ge $((kills / 10)) ] || e2e_fail "only $mid_publish kills left a sink batch staged"
[ "$progressed" -ge $((kills / 20)) ] || e2e_fail "only $progressed killed runs completed a flow: no progress between kills"
expect_equal "staged files" "$(find storage/sinks -name '*.kafka' | wc -l)" 0
