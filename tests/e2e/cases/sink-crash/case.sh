# Crash safety of sinks: `weir run` is killed with SIGKILL at random
# (seeded) instants while four flows write a batch each into a Delta, a
# Parquet, a JSON and a CSV sink; every kill is followed by a normal run,
# after which each sink holds every source row exactly once -- checked
# with stock DuckDB and, for Delta, the deltalake package. Half of the
# kills wait for a batch to be staged first and then land at a random
# moment of the writes, commits and publishes that follow.
# WEIR_SINK_CRASH_TRIALS (6 in the default suite, 12 in heavy/sink-crash)
# and WEIR_SINK_CRASH_SEED (default 11) tune it.

trials=${WEIR_SINK_CRASH_TRIALS:-$(e2e_size 6 12)}
RANDOM=${WEIR_SINK_CRASH_SEED:-11}
per_trial=100000
py=$(weir_python)

run_weir query "CREATE TABLE src (id BIGINT, k INT, s STRING)"
expect_exit 0
rows=0
add_rows() {
    run_weir query "INSERT INTO src SELECT id, CAST(id % 4 AS INT), concat('row-', id) FROM range($rows, $((rows + per_trial))) AS t(id)"
    expect_exit 0
    rows=$((rows + per_trial))
}

# Every id 0..rows-1 exactly once in each sink (one Python for all four).
check_all() {
    "$py" - "$rows" >"$E2E_OUT/check.txt" 2>&1 <<'PY' ||
import os, sys
import duckdb
from deltalake import DeltaTable
n = int(sys.argv[1])
con = duckdb.connect()
con.register("d", DeltaTable("out/delta").to_pyarrow_table())
bad = 0
for name, rel in (("delta", "d"),
                  ("parquet", "read_parquet('out/parquet/*/*.parquet')"),
                  ("json", "read_json('out/json/*.json')"),
                  ("csv", "read_csv('out/csv/*.csv', header = false, names = ['id', 'k', 's'])")):
    got = con.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM %s" % rel).fetchone()
    print(name, got)
    bad |= tuple(got) != (n, n, 0, n - 1)
sys.stdout.flush()
os._exit(1 if bad else 0)
PY
        e2e_fail "a sink does not hold every row exactly once: $(cat "$E2E_OUT/check.txt")"
    e2e_pass
}

# Baseline: how long an update of one trial's rows takes (the second one:
# the first also creates the storage).
add_rows
run_weir run
expect_exit 0
add_rows
start=$(date +%s%N)
run_weir run
expect_exit 0
dur_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_all

staged() { # a batch is being written somewhere
    compgen -G "storage/sinks/*/*/g*" >/dev/null ||
        compgen -G "out/delta/_weir_stage-*" >/dev/null
}

killed=0 mid_batch=0
# On a busy machine the baseline misleads: up to as many trials again
# until enough kills have landed inside updates and while staged.
t=0
while [ "$t" -lt "$trials" ] ||
      { [ "$t" -lt $((2 * trials)) ] &&
        { [ "$killed" -lt $((trials / 2)) ] || [ "$mid_batch" -lt $((trials / 4)) ]; }; }; do
    t=$((t + 1))
    add_rows
    "$WEIR" run >"$E2E_OUT/killed-$t.out" 2>&1 &
    pid=$!
    if ((t % 2)); then
        delay_ms=$(( RANDOM % (dur_ms * 12 / 10 + 1) ))
        how="after ${delay_ms} ms"
    else
        for _ in $(seq 1 2000); do
            staged && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.005
        done
        delay_ms=$(( RANDOM % (dur_ms / 2 + 1) ))
        how="${delay_ms} ms after staging began"
    fi
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "Run is COMPLETED." "$E2E_OUT/killed-$t.out" || killed=$((killed + 1))
    if staged || compgen -G "storage/sinks/*/*/g*.delta.json" >/dev/null; then
        mid_batch=$((mid_batch + 1))
        how="$how (left a batch staged)"
    fi
    echo "trial $t: kill $how" >>"$E2E_OUT/log"
    run_weir run
    expect_exit 0
    check_all
done
echo "sink-crash: $killed of $t runs killed, $mid_batch with a batch staged (baseline ${dur_ms} ms)" >&2
[ "$killed" -ge $((trials / 2)) ] || e2e_fail "only $killed kills landed during an update"
[ "$mid_batch" -ge $((trials / 4)) ] || e2e_fail "only $mid_batch kills landed while a batch was staged"

# The full checks (file names, no staging leftovers, the Delta history),
# nothing left staged, every batch published, and weir reads the same rows
# from the Delta log as deltalake does.
for spec in "delta out/delta --partitions k" "parquet out/parquet" "json out/json" "csv out/csv"; do
    # shellcheck disable=SC2086
    "$py" "$E2E_CASE/../sink-common/check.py" $spec --ids "$rows" \
        >"$E2E_OUT/check.txt" 2>"$E2E_OUT/check.err" ||
        e2e_fail "$(cat "$E2E_OUT/check.txt" "$E2E_OUT/check.err")"
    e2e_pass
done
expect_equal "staged files" "$(find storage/sinks -type f | wc -l)" 0
expect_query "SELECT count(*) AS n FROM spark_catalog._weir.sink_batches WHERE state <> 'published'" "n
0"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM delta.\`out/delta\`" "n,d
$rows,$rows"
