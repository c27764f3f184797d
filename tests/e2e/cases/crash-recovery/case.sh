# Crash safety: `weir run` is killed with SIGKILL at random (seeded)
# instants of streaming updates, each followed by a normal run; every time
# the tables hold exactly the expected rows: nothing lost, nothing twice,
# and the incrementally refreshed views equal a recomputation.
# WEIR_CRASH_TRIALS (8 in the default suite, 30 in heavy/crash-recovery)
# and WEIR_CRASH_SEED (default 7) tune it.

gen="$E2E_LIB/../../bench/gen.py"
trials=${WEIR_CRASH_TRIALS:-$(e2e_size 8 30)}
RANDOM=${WEIR_CRASH_SEED:-7}
rows_per_file=2500

run_weir query "CREATE TABLE manual (order_id BIGINT, customer_id BIGINT, amount DOUBLE)"
expect_exit 0

# Baseline: how long an update of one trial's data takes (an incremental
# update, like the trials': the first one also creates the tables).
python3 "$gen" orders landing $((2 * rows_per_file)) --files 2 --start 0
run_weir run
expect_exit 0
python3 "$gen" orders landing $((2 * rows_per_file)) --files 2 --start 2
kill_measure "$E2E_OUT/baseline.out"
expect_equal "baseline exit status" "$kill_status" 0
dur_ms=$kill_est_ms
files=4
manual=0

check() { # after a complete run: exact counts
    local bronze=$((files * rows_per_file))
    run_weir query --format csv "SELECT count(*) AS n, count(DISTINCT order_id) AS d FROM bronze"
    expect_stdout_contains "n,d
$bronze,$bronze"
    # silver = bronze rows with an amount + manual rows, each once
    run_weir query --format csv "SELECT (SELECT count(*) FROM silver) - (SELECT count(*) FROM bronze WHERE amount IS NOT NULL) - (SELECT count(*) FROM manual) AS diff, (SELECT count(*) - count(DISTINCT order_id) FROM silver) AS dups"
    expect_stdout_contains "diff,dups
0,0"
    run_weir query --format csv "SELECT (SELECT sum(n) FROM gold) = (SELECT count(*) FROM silver) AS ok"
    expect_stdout_contains "ok
true"
    local ids="SELECT status, count(*) AS n, min(order_id) AS lo, max(order_id) AS hi, avg(amount) AS mean_amount FROM silver GROUP BY status"
    local big="SELECT order_id, amount FROM silver WHERE amount > 100"
    run_weir query --format csv "SELECT (SELECT count(*) FROM ((SELECT * FROM gold_ids EXCEPT ALL ($ids)) UNION ALL (($ids) EXCEPT ALL SELECT * FROM gold_ids))) + (SELECT count(*) FROM ((SELECT * FROM big_orders EXCEPT ALL ($big)) UNION ALL (($big) EXCEPT ALL SELECT * FROM big_orders))) AS diff"
    expect_stdout_contains "diff
0"
}
check

killed=0
need=20
[ "$trials" -ge 30 ] || need=$((trials / 2))
# At least $trials trials; more (up to twice as many) while fewer than
# $need kills landed during an update (a kill after the end tells nothing
# about crash safety; lib.sh's kill_run adapts the instants to the
# machine's pace as it goes).
t=0
while [ "$t" -lt "$trials" ] || { [ "$killed" -lt "$need" ] && [ "$t" -lt $((2 * trials)) ]; }; do
    t=$((t + 1))
    # New data for this trial: two files and a few manual rows.
    python3 "$gen" orders landing $((2 * rows_per_file)) --files 2 --start "$files"
    files=$((files + 2))
    run_weir query "INSERT INTO manual SELECT 10000000 + id, 1, 9.5 FROM range($manual, $((manual + 50)))"
    manual=$((manual + 50))
    # Kill somewhere in [0, 1.2 x an update's length].
    kill_run "$E2E_OUT/killed-$t.out" 120
    killed=$((killed + kill_landed))
    echo "trial $t: kill ${kill_delay_ms} ms into the update, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
    run_weir run
    expect_exit 0
    check
done
echo "crash-recovery: $killed of $t runs killed mid-update (update ${dur_ms} ms at first, ${kill_est_ms} ms at the end)" >&2
[ "$killed" -ge "$need" ] || e2e_fail "only $killed kills landed during an update (need $need)"
# The views above were refreshed incrementally between the kills.
expect_query "SELECT count(*) > 0 AS ok FROM weir.event_log WHERE dataset_name LIKE '%.gold_ids' AND get_json_object(details, '\$.planning_information.technique') = 'GROUP_AGGREGATE'" "ok
true"
expect_query "SELECT count(*) > 0 AS ok FROM weir.event_log WHERE dataset_name LIKE '%.big_orders' AND get_json_object(details, '\$.planning_information.technique') = 'APPEND_ONLY'" "ok
true"
