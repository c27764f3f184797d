# Exactly once into Kafka across crashes: `weir run` is killed with SIGKILL
# at random (seeded) instants, most of them while it publishes a batch (its
# staged file exists: between the DuckDB commit and the Kafka commit, or
# after it but before the batch is recorded as published). Each killed run
# is followed by more rows and another killed run; a final run finishes.
# A read_committed consumer then sees every row exactly once, while a
# read_uncommitted one sees the aborted transactions' messages too (so the
# kills did land mid-publish). WEIR_KAFKA_SINK_CRASH_TRIALS (8 in the
# default suite, 20 in heavy/kafka-sink-crash) and
# WEIR_KAFKA_SINK_CRASH_SEED (default 5) tune it.
trials=${WEIR_KAFKA_SINK_CRASH_TRIALS:-$(e2e_size 8 20)}
RANDOM=${WEIR_KAFKA_SINK_CRASH_SEED:-5}
per_trial=5000

kafka_start
ktool create out 2
write_spec kafka_sink_crash
cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS SELECT * FROM STREAM src;
CREATE SINK out USING kafka OPTIONS ('kafka.bootstrap.servers' '$KAFKA', topic 'out');
CREATE FLOW to_out AS INSERT INTO out BY NAME
SELECT CAST(id AS STRING) AS key, concat(CAST(id AS STRING), ':', pad) AS value FROM STREAM events;
SQL

run_weir query "CREATE TABLE src (id BIGINT, pad STRING)"
expect_exit 0
rows=0
add_rows() {
    run_weir query "INSERT INTO src SELECT id, repeat('x', 200) FROM range($rows, $((rows + per_trial))) AS t(id)"
    expect_exit 0
    rows=$((rows + per_trial))
}
publishing() { compgen -G "storage/sinks/*/*/g*.kafka" >/dev/null; }
staged() { compgen -G "storage/sinks/*/*/g*.kafka" | LC_ALL=C sort || true; }

# Baseline: how long an update of one trial's rows takes, and how long
# its batch is being published (the first update also sets up the broker's
# transaction and offset logs: it is not the baseline).
add_rows
run_weir run
expect_exit 0
add_rows
start=$(date +%s%N)
"$WEIR" run >"$E2E_OUT/baseline.out" 2>&1 &
pid=$!
staged_at=0 published_at=0
while kill -0 "$pid" 2>/dev/null; do
    if publishing; then
        [ "$staged_at" -gt 0 ] || staged_at=$(date +%s%N)
    elif [ "$staged_at" -gt 0 ] && [ "$published_at" -eq 0 ]; then
        published_at=$(date +%s%N)
    fi
    sleep 0.005
done
wait "$pid" || e2e_fail "the baseline run failed: $(cat "$E2E_OUT/baseline.out")"
dur_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$published_at" -gt 0 ] || published_at=$(date +%s%N)
pub_ms=$(( (published_at - staged_at) / 1000000 ))
[ "$staged_at" -gt 0 ] || pub_ms=$((dur_ms / 2))

killed=0 mid_publish=0
trial() { # t
    local t=$1
    add_rows
    # A batch a killed run left staged is published first by this run: wait
    # for this run's own batch (a staged file not there before it started).
    local before
    before=$(staged)
    "$WEIR" run >"$E2E_OUT/killed-$t.out" 2>&1 &
    pid=$!
    if ((t % 4 == 0)); then
        delay_ms=$(( RANDOM % (dur_ms + 1) ))
        how="after ${delay_ms} ms"
    else
        for _ in $(seq 1 3000); do
            [ -n "$(LC_ALL=C comm -13 <(echo "$before") <(staged))" ] && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.005
        done
        delay_ms=$(( RANDOM % (pub_ms * 11 / 10 + 1) ))
        how="${delay_ms} ms after the batch was staged"
    fi
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "Run is COMPLETED." "$E2E_OUT/killed-$t.out" || killed=$((killed + 1))
    if publishing; then
        mid_publish=$((mid_publish + 1))
        how="$how (left a batch to publish)"
    fi
    echo "trial $t: kill $how" >>"$E2E_OUT/log"
}
# Enough kills must land inside updates, mid-publish, and at least one in
# an open Kafka transaction (aborted messages read_uncommitted): on a busy
# machine, up to as many trials again until they have.
aborted() { [ "$(ktool consume out -u -n)" -gt "$(ktool consume out -n)" ]; }
t=0
while [ "$t" -lt "$trials" ] ||
      { [ "$t" -lt $((2 * trials)) ] &&
        { [ "$killed" -lt $((trials / 2)) ] || [ "$mid_publish" -lt $((trials / 3)) ] ||
          ! aborted; }; }; do
    t=$((t + 1))
    trial "$t"
done
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
echo "kafka-sink-crash: $killed of $t runs killed, $mid_publish while publishing (baseline ${dur_ms} ms, publishing ${pub_ms} ms)" >&2
[ "$killed" -ge $((trials / 2)) ] || e2e_fail "only $killed kills landed during an update"
[ "$mid_publish" -ge $((trials / 3)) ] || e2e_fail "only $mid_publish kills landed while a batch was being published"

ktool consume out >"$E2E_OUT/out.txt" || e2e_fail "ktool consume failed"
expect_equal "read_committed rows" "$(wc -l <"$E2E_OUT/out.txt")" "$rows"
expect_equal "distinct values" "$(cut -f4 "$E2E_OUT/out.txt" | sort -u | wc -l)" "$rows"
expect_equal "keys match values" "$(awk -F'\t' 'index($4, $3 ":") != 1' "$E2E_OUT/out.txt" | wc -l)" 0
uncommitted=$(ktool consume out -u -n)
echo "kafka-sink-crash: $uncommitted messages read_uncommitted for $rows rows" >&2
[ "$uncommitted" -gt "$rows" ] || e2e_fail "no aborted message in the topic: no kill landed mid-transaction"
expect_equal "staged files" "$(find storage/sinks -type f | wc -l)" 0
expect_query "SELECT count(*) FILTER (WHERE state <> 'published') AS n, sum(rows) AS r FROM spark_catalog._weir.sink_batches" "n,r
0,$rows"
