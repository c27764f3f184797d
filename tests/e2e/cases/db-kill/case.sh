# Exactly once from a database across kill -9 (issue 44): STREAM
# read_jdbc(..., cursorColumn => 'seq') of a PostgreSQL table while a
# writer keeps inserting rows whose cursor values repeat across its rounds
# (ties at every boundary). `weir run` is killed with SIGKILL at seeded
# random instants (5 times in the default suite, 100 in heavy/db-kill); a
# clean run then catches up. Every source row must be in the table exactly
# once (0 lost, 0 duplicated). WEIR_DB_KILL_SEED (default 44) seeds the
# kill instants.
kills=${WEIR_DB_KILLS:-$(e2e_size 5 100)}
RANDOM=${WEIR_DB_KILL_SEED:-44}
round=200 # rows per writer round

pg_start
pg_sql "CREATE TABLE src (id bigint PRIMARY KEY, seq bigint, v text)"
write_spec db_kill
cat >transformations/p.sql <<SQL
CREATE STREAMING TABLE events AS
SELECT * FROM STREAM read_jdbc(url => 'jdbc:postgresql://$PG/weir', dbtable => 'src',
                               user => 'weir', password => '$PG_PASSWORD',
                               cursorColumn => 'seq');
SQL

# write_round R: ids R*round .. R*round+round-1, seq = id / 300 (a value
# spans rounds, so rows keep arriving at the value a batch ended at).
write_round() {
    pg_sql "INSERT INTO src SELECT i, i / 300, 'v' || i FROM generate_series($(($1 * round)), $(($1 * round + round - 1))) i"
}
rounds=0
write_round $rounds; rounds=$((rounds + 1))
run_weir run
expect_exit 0
write_round $rounds; rounds=$((rounds + 1))
kill_measure "$E2E_OUT/baseline.out"
expect_equal "baseline exit status" "$kill_status" 0

: >"$E2E_OUT/rounds"
(
    r=$rounds
    while [ ! -e "$E2E_OUT/stop" ]; do
        write_round "$r" || exit 1
        r=$((r + 1))
        echo "$r" >"$E2E_OUT/rounds"
        sleep 0.2
    done
) &
writer=$!

landed=0
for k in $(seq 1 "$kills"); do
    kill_run "$E2E_OUT/killed.out" 100
    landed=$((landed + kill_landed))
    echo "kill $k: after ${kill_delay_ms} ms, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
done
touch "$E2E_OUT/stop"
wait "$writer" || e2e_fail "the writer failed"
total=$(( $(cat "$E2E_OUT/rounds") * round ))

run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
run_weir query --format csv "SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE v = 'v' || id), count(*) FILTER (WHERE id NOT BETWEEN 0 AND $((total - 1))) FROM events"
expect_exit 0
IFS=, read -r rows ids ok outside < <(tail -n 1 "$WEIR_STDOUT")
echo "db-kill: $kills kills, $landed during an update; $total rows; table: $rows rows, $ids ids ($((total - ids)) lost, $((rows - ids)) duplicated)" >&2
expect_equal "table rows" "$rows" "$total"
expect_equal "table ids" "$ids" "$total"
expect_equal "table values" "$ok" "$total"
expect_equal "ids outside the written range" "$outside" 0
[ "$landed" -ge $((kills / 4)) ] || e2e_fail "only $landed of $kills kills landed during an update"
