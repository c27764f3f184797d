# A batch that committed in weir but is not in Kafka yet is published by the
# next update, exactly once. The broker does not answer at publish time: the
# flow fails with KAFKA_BROKER_UNREACHABLE and the address within a bounded
# time (and `weir dry-run` says so too, exit 1 as well), the batch stays
# committed; with the broker back the next run publishes it. A batch that
# Kafka has already committed (its staged file put back, its row set back
# to committed, as a crash right after the Kafka commit leaves them) is not
# sent again: the marker the transaction committed says Kafka has it. A full refresh (new
# checkpoint generation) sends every row again, as for other sinks. A
# broker that is back before a retry of the flow: the update completes.
kafka_start
ktool create out 1
py=$(weir_python)
write_spec kafka_sink_recover
cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS SELECT * FROM STREAM src;
CREATE SINK out USING kafka
OPTIONS ('kafka.bootstrap.servers' '$KAFKA', topic 'out', 'kafka.socket.timeout.ms' '2000');
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT to_json(struct(*)) AS value FROM STREAM events;
SQL
run_weir query "CREATE TABLE src (id BIGINT)"
run_weir query "INSERT INTO src SELECT id FROM range(0, 500) AS t(id)"
expect_exit 0
# The broker's transaction and offset logs exist from the first batch on.
run_weir run
expect_exit 0
expect_equal "first batch" "$(ktool consume out -n)" 500

elapsed() { echo $(( ($(date +%s%N) - $1) / 1000000000 )); }
kafka_pause
run_weir query "INSERT INTO src SELECT id FROM range(500, 1500) AS t(id)"
start=$(date +%s%N)
run_weir run
expect_exit 1
expect_stdout_contains "[KAFKA_BROKER_UNREACHABLE] no Kafka broker answered at $KAFKA within 2000 ms"
[ "$(elapsed "$start")" -lt 30 ] || e2e_fail "the failed run took $(elapsed "$start") s"
e2e_pass
expect_query "SELECT batch_id, state, rows FROM spark_catalog._weir.sink_batches ORDER BY batch_id" "batch_id,state,rows
0,published,500
1,committed,1000"
staged=$(find storage/sinks -name 'g0-b1.kafka')
[ -n "$staged" ] || e2e_fail "the committed batch is not staged"
cp "$staged" "$E2E_OUT/staged-batch"
start=$(date +%s%N)
run_weir dry-run
expect_exit 1
expect_stderr_contains "transformations/p.sql:2:1: error: [KAFKA_BROKER_UNREACHABLE] Sink out: no Kafka broker answered at $KAFKA within 2000 ms"
[ "$(elapsed "$start")" -lt 20 ] || e2e_fail "the dry run took $(elapsed "$start") s"
e2e_pass

# The broker is back. A staged batch that is damaged (here cut short, its
# end missing) fails the update and sends nothing; once repaired, the
# committed batch is published, once.
kafka_resume
head -c -9 "$E2E_OUT/staged-batch" >"$staged"
run_weir run
expect_exit 1
expect_stdout_contains "[KAFKA_SINK_STAGE_DAMAGED] staged batch"
expect_equal "after a damaged batch" "$(ktool consume out -n)" 500
cp "$E2E_OUT/staged-batch" "$staged"
run_weir run
expect_exit 0
expect_equal "after recovery" "$(ktool consume out -n)" 1500
ktool consume out | cut -f4 | sort -u >"$E2E_OUT/values"
expect_equal "distinct after recovery" "$(wc -l <"$E2E_OUT/values")" 1500
expect_equal "staged files" "$(find storage/sinks -type f | wc -l)" 0
run_weir run
expect_exit 0
expect_equal "after an idle run" "$(ktool consume out -n)" 1500

# A crash after the Kafka commit, before weir recorded the batch as
# published: the staged file is still there and the row says committed.
cp "$E2E_OUT/staged-batch" "$staged"
"$py" - <<'PY' || e2e_fail "could not set the batch back to committed"
import duckdb
con = duckdb.connect("storage/spark_catalog.duckdb")
con.execute("UPDATE _weir.sink_batches SET state = 'committed' WHERE batch_id = 1")
con.close()
PY
run_weir run
expect_exit 0
expect_equal "after publishing a batch Kafka had" "$(ktool consume out -n)" 1500
expect_equal "staged files after that" "$(find storage/sinks -type f | wc -l)" 0
expect_query "SELECT count(*) AS n FROM spark_catalog._weir.sink_batches WHERE state <> 'published'" "n
0"

# Full refresh: a new generation, every row again.
run_weir run --full-refresh out
expect_exit 0
expect_equal "after a full refresh" "$(ktool consume out -n)" 3000
expect_equal "distinct after a full refresh" "$(ktool consume out | cut -f4 | sort -u | wc -l)" 1500

# The broker goes away during an update and comes back while the flow
# waits for its retry (the flow retry policy): the same update publishes
# the batch, once.
sed -i 's/maxFlowRetryAttempts: "0"/maxFlowRetryAttempts: "3"\n  spark.sql.pipelines.execution.watchdog.minRetryTime: "2s"/' spark-pipeline.yml
run_weir query "INSERT INTO src SELECT id FROM range(1500, 1600) AS t(id)"
kafka_pause
"$WEIR" run >"$E2E_OUT/retried.out" 2>&1 &
pid=$!
# The broker comes back once an attempt has failed (however slowly this
# machine got there), before the retry that must succeed.
for _ in $(seq 1 600); do
    grep -q "KAFKA_BROKER_UNREACHABLE" "$E2E_OUT/retried.out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
kafka_resume
wait "$pid" || e2e_fail "the run with retries failed: $(cat "$E2E_OUT/retried.out")"
grep -q "KAFKA_BROKER_UNREACHABLE" "$E2E_OUT/retried.out" || e2e_fail "no attempt failed: $(cat "$E2E_OUT/retried.out")"
grep -q "Run is COMPLETED." "$E2E_OUT/retried.out" || e2e_fail "the update did not complete: $(cat "$E2E_OUT/retried.out")"
e2e_pass
expect_equal "after the retried update" "$(ktool consume out -n)" 3100
expect_equal "distinct after the retried update" "$(ktool consume out | cut -f4 | sort -u | wc -l)" 1600

# Reading the batch's rows fails part way (test hook: a statement on the
# reading connection closes DuckDB's stream, whose fetch then ends with no
# error): the flow fails, nothing is sent or committed, and the next run
# publishes the whole batch, once.
sed -i 's/maxFlowRetryAttempts: "3"/maxFlowRetryAttempts: "0"/' spark-pipeline.yml
batches() {
    run_weir query --format csv "SELECT count(*) AS n FROM spark_catalog._weir.sink_batches"
    tail -n1 "$WEIR_STDOUT"
}
before=$(batches)
run_weir query "INSERT INTO src SELECT id FROM range(1600, 11600) AS t(id)"
expect_exit 0
WEIR_TEST_FETCH_FAIL_AFTER=1 run_weir run
expect_exit 1
expect_stdout_contains "internal error: a streaming query result was closed after 1 chunk(s), before its end, by another statement on its connection"
expect_equal "sent after a failed read" "$(ktool consume out -n)" 3100
expect_equal "batches after a failed read" "$(batches)" "$before"
expect_equal "staged files after a failed read" "$(find storage/sinks -type f | wc -l)" 0
run_weir run
expect_exit 0
expect_equal "after the read succeeded" "$(ktool consume out -n)" 13100
expect_equal "distinct after the read succeeded" "$(ktool consume out | cut -f4 | sort -u | wc -l)" 11600
