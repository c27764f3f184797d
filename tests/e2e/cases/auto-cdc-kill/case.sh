# AUTO CDC is exactly once under kill -9: each trial lands a batch of
# random changes (auto-cdc-oracle's generator), kills `weir run` with
# SIGKILL at a seeded random instant of the update, runs again, and
# compares the SCD 1 and SCD 2 tables, with and without IGNORE NULL
# UPDATES (SCD 1 with truncates), with the oracle computed from the whole
# change log: a batch's MERGE and its checkpoint commit together or not at
# all, and a kill that merges two updates' files into one batch changes no
# table. WEIR_CDC_KILLS (6 kills in the default suite, 50 in
# heavy/auto-cdc-kill) and WEIR_CDC_SEED (default 3).
src="$E2E_LIB/cases/auto-cdc-oracle"
mkdir transformations
cp "$src/spark-pipeline.yml" .
cp "$src/transformations/"*.sql transformations/
oracle="python3 $src/cdc_oracle.py"
kills=${WEIR_CDC_KILLS:-$(e2e_size 6 50)}
RANDOM=${WEIR_CDC_SEED:-3}
per_batch=150

all_tables=$($oracle query) # the six targets in one query
compare() {
    $oracle all log.jsonl >expected.csv
    run_weir query --format csv "$all_tables"
    expect_exit 0
    compare_files "the six tables after trial $1" expected.csv "$WEIR_STDOUT"
}

# Baseline: the duration of an incremental update of one batch.
$oracle gen log.jsonl landing 1 "$per_batch"
run_weir run
expect_exit 0
$oracle gen log.jsonl landing 2 "$per_batch"
kill_measure "$E2E_OUT/baseline.out"
expect_equal "baseline exit status" "$kill_status" 0
dur_ms=$kill_est_ms
compare 0

# Kills at instants in [0, 1.2 x an update's length], which lib.sh's
# kill_run follows as the machine's load changes.
killed=0
for t in $(seq 1 "$kills"); do
    $oracle gen log.jsonl landing $((t + 2)) "$per_batch"
    kill_run "$E2E_OUT/killed-$t.out" 120
    killed=$((killed + kill_landed))
    echo "trial $t: kill ${kill_delay_ms} ms into the update, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
    run_weir run
    expect_exit 0
    compare "$t"
done
echo "auto-cdc-kill: $killed of $kills runs killed mid-update (update ${dur_ms} ms at first, ${kill_est_ms} ms at the end)" >&2
[ "$killed" -ge $((kills / 3)) ] || e2e_fail "only $killed of $kills kills landed during an update"
e2e_pass
