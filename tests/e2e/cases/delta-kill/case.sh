# Crash safety of a streaming table stored as Delta: `weir run` is killed
# with SIGKILL at random (seeded) instants while its flow writes a batch
# (Parquet files, the DuckDB commit of its positions, the Delta commit);
# every kill is followed by a normal run, after which the table holds
# every source row exactly once as the deltalake package reads it, its
# log is complete (versions 0..n, no version committed twice) and weir
# reads the same rows. Half of the kills wait for the batch to be staged.
# WEIR_DELTA_KILL_TRIALS (3 in the default suite, 200 in heavy/delta-kill)
# and WEIR_DELTA_KILL_SEED (default 7) tune it.

trials=${WEIR_DELTA_KILL_TRIALS:-$(e2e_size 3 200)}
RANDOM=${WEIR_DELTA_KILL_SEED:-7}
per_trial=50000
py=$(weir_python)
table=storage/tables/spark_catalog/default/dt

run_weir query "CREATE TABLE src (id BIGINT, k INT, s STRING)"
expect_exit 0
rows=0
add_rows() {
    run_weir query "INSERT INTO src SELECT id, CAST(id % 4 AS INT), concat('row-', id) FROM range($rows, $((rows + per_trial))) AS t(id)"
    expect_exit 0
    rows=$((rows + per_trial))
}

# Every id 0..rows-1 exactly once, the history complete, the txn of the
# flow one per batch.
check() {
    "$py" - "$rows" "$table" >"$E2E_OUT/check.txt" 2>&1 <<'PY' ||
import os, sys
import duckdb
from deltalake import DeltaTable
n, path = int(sys.argv[1]), sys.argv[2]
dt = DeltaTable(path)
con = duckdb.connect()
con.register("d", dt.to_pyarrow_table())
got = con.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM d").fetchone()
versions = sorted(h["version"] for h in dt.history())
print(got, dt.version(), dt.transaction_version("spark_catalog.default.dt"))
sys.stdout.flush()
ok = tuple(got) == (n, n, 0, n - 1) and versions == list(range(dt.version() + 1))
os._exit(0 if ok else 1)
PY
        e2e_fail "the Delta table does not hold every row exactly once: $(cat "$E2E_OUT/check.txt")"
    e2e_pass
}

# Baseline: how long an update of one trial's rows takes.
add_rows
start=$(date +%s%N)
run_weir run
expect_exit 0
dur_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check

staged() { compgen -G "storage/sinks/*/*/g*" >/dev/null; }
killed=0
for t in $(seq 1 "$trials"); do
    add_rows
    "$WEIR" run >"$E2E_OUT/killed-$t.out" 2>&1 &
    pid=$!
    if ((t % 2)); then
        delay_ms=$(( RANDOM % (dur_ms + 1) ))
    else
        for _ in $(seq 1 2000); do
            staged && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.005
        done
        delay_ms=$(( RANDOM % (dur_ms / 3 + 1) ))
    fi
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "Run is COMPLETED." "$E2E_OUT/killed-$t.out" || killed=$((killed + 1))
    echo "trial $t: kill after ${delay_ms} ms" >>"$E2E_OUT/log"
    run_weir run
    expect_exit 0
    check
done
echo "delta-kill: $killed of $trials runs killed (baseline ${dur_ms} ms)" >&2
[ "$killed" -ge 1 ] || e2e_fail "no kill landed during an update"
expect_equal "staged files" "$(find storage/sinks -type f | wc -l)" 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM dt" "n,d
$rows,$rows"
