#!/usr/bin/env bash
# Crash harness: measures weir's exactly-once promise under SIGKILL.
#
# A pipeline with a streaming table from JSON files (bronze), a streaming
# table from a table with drop, warn and quarantine expectations (silver,
# fed by bronze and by an append flow from an external table), a
# materialized view (gold) and, when the build supports parquet sinks, a
# sink fed from silver. Each trial lands new files (and sometimes new rows
# in the external table), starts `weir run`, kills it with SIGKILL at a
# random instant, sometimes kills the recovery run too, then runs to
# completion and compares every table and the sink with the exactly-once
# result computed from the inputs: expected counts by arithmetic (the data
# is generated from formulas), expected contents by multiset difference
# (EXCEPT ALL, both ways) against the same formulas evaluated in SQL.
# Random choices come from --seed, so a run is reproducible up to
# scheduling.
#
#   tools/crash.sh [--trials N | --long] [--seed S] [--weir PATH]
#                  [--work DIR] [--report FILE] [--sink auto|on|off]
#                  [--full-refresh-every K] [--epoch K] [--keep] [--keep-going]
#
# --long is 500 trials; every --epoch trials (default 100) the project
# starts afresh, so that the data and the checks stay small. The summary
# line and, with --report, a key=value file give: trials, kills
# (mid-update, while flows ran, before the update started, after it ended),
# double kills, full refreshes, rows compared, violations. Exit 0
# when there is no violation, 1 otherwise (the storage of the first
# violating trial is kept under DIR/violation-<trial>), 2 on bad usage or a
# broken setup.
set -uo pipefail

trials=50
seed=1
weir=${WEIR:-}
work=
report=
sink=auto
fr_every=10
epoch=100
keep=
keep_going=

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
    --trials) trials=$2; shift ;;
    --long) trials=500 ;;
    --seed) seed=$2; shift ;;
    --weir) weir=$2; shift ;;
    --work) work=$2; shift ;;
    --report) report=$2; shift ;;
    --sink) sink=$2; shift ;;
    --full-refresh-every) fr_every=$2; shift ;;
    --epoch) epoch=$2; shift ;;
    --keep) keep=1 ;;
    --keep-going) keep_going=1 ;;
    -h | --help) usage ;;
    *) echo "crash.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$weir" ] || weir="$root/build/weir"
if [ ! -x "$weir" ]; then
    echo "crash.sh: no weir binary at '$weir' (use --weir PATH)" >&2
    exit 2
fi
weir=$(cd "$(dirname "$weir")" && pwd)/$(basename "$weir")
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/weir-crash.XXXXXX")
    [ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
proj="$work/project"
logf="$work/crash.log"
export NO_COLOR=1 TZ=UTC LC_ALL=C
RANDOM=$seed

log() { echo "$*" >>"$logf"; }
die() { echo "crash.sh: $*" >&2; log "setup error: $*"; exit 2; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
rnd() { echo $((RANDOM % $1)); } # 0 .. N-1

# --- The project ------------------------------------------------------------------

write_project() { # with_sink
    rm -rf "$proj"
    mkdir -p "$proj/transformations" "$proj/landing" "$proj/.staging"
    cat >"$proj/spark-pipeline.yml" <<'EOF'
name: crash
storage: storage
configuration:
  spark.sql.pipelines.execution.watchdog.minRetryTime: "100ms"
  spark.sql.pipelines.execution.watchdog.maxRetryTime: "200ms"
libraries:
  - glob:
      include: transformations/**
EOF
    cat >"$proj/transformations/pipeline.sql" <<'EOF'
-- Files -> bronze -> silver (drop, warn and quarantine expectations), an
-- append flow from an external table into silver, gold over silver.
CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE silver (
  CONSTRAINT has_amount EXPECT (amount IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT small EXPECT (amount < 200),
  CONSTRAINT not_cancelled EXPECT (status <> 'cancelled') ON VIOLATION QUARANTINE
) AS SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, status
FROM STREAM(bronze);

CREATE FLOW manual_orders AS INSERT INTO silver BY NAME
SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, 'manual' AS status
FROM STREAM(manual);

CREATE MATERIALIZED VIEW gold AS
SELECT status, count(*) AS n, sum(amount) AS revenue FROM silver GROUP BY status;
EOF
    if [ "$1" = 1 ]; then
        cat >"$proj/transformations/sink.sql" <<'EOF'
-- Every silver row, once, as Parquet files.
CREATE SINK orders_out USING parquet OPTIONS (path 'sink-out');
CREATE FLOW to_sink AS INSERT INTO orders_out BY NAME
SELECT order_id, customer_id, amount, status FROM STREAM(silver);
EOF
    fi
}

# Whether this build runs parquet sinks: a one-off pipeline with a sink.
sink_supported() {
    local d="$work/sink-probe"
    rm -rf "$d" && mkdir -p "$d/transformations"
    printf 'name: probe\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
        >"$d/spark-pipeline.yml"
    cat >"$d/transformations/a.sql" <<'EOF'
CREATE STREAMING TABLE src AS SELECT id FROM STREAM range(3);
CREATE SINK out USING parquet OPTIONS (path 'out');
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT id FROM STREAM(src);
EOF
    local ok=1
    (cd "$d" && timeout 120 "$weir" run >/dev/null 2>&1) &&
        [ "$(cd "$d" && timeout 60 "$weir" query --format csv \
            "SELECT count(*) AS n FROM read_files('out', format => 'parquet')" 2>/dev/null |
            tail -n 1)" = 3 ] || ok=0
    rm -rf "$d"
    [ "$ok" = 1 ]
}

# --- Inputs and their exactly-once expectations ------------------------------------

next_id=1     # first order id of the next file
n_files=0
manual_rows=0
# Expected counts, kept by arithmetic on the generating formulas:
# amount is NULL when id % 17 == 0, >= 200 when id % 1000 >= 800,
# status is cancelled when id % 5 == 4.
exp_bronze=0
exp_silver_files=0 # bronze rows with an amount and not cancelled
exp_quarantine=0   # bronze rows that are cancelled (with or without amount)

# How many i in [first, first + n) have i % m == r (first >= 1, 0 <= r < m).
count_mod() { # first n m r
    local last=$(($1 + $2 - 1)) before=$(($1 - 1)) m=$3 r=$4
    local upto_last=0 upto_before=0
    [ "$last" -lt "$r" ] || upto_last=$(((last - r) / m + 1))
    [ "$before" -lt "$r" ] || upto_before=$(((before - r) / m + 1))
    echo $((upto_last - upto_before))
}

land_file() { # rows: write a JSON-lines file and move it into landing
    local n=$1 first=$next_id
    local name
    name=$(printf 'part-%05d.json' "$n_files")
    awk -v a="$first" -v n="$n" 'BEGIN {
        split("placed shipped delivered returned cancelled", S, " ")
        for (i = a; i < a + n; i++) {
            amt = (i % 17 == 0) ? "null" : sprintf("%.2f", (i % 1000) / 4)
            printf("{\"order_id\":%d,\"customer_id\":%d,\"amount\":%s,\"status\":\"%s\"}\n",
                   i, i % 97, amt, S[i % 5 + 1])
        }
    }' >"$proj/.staging/$name"
    mv "$proj/.staging/$name" "$proj/landing/$name"
    local nulls cancelled both
    nulls=$(count_mod "$first" "$n" 17 0)
    cancelled=$(count_mod "$first" "$n" 5 4)
    both=$(count_mod "$first" "$n" 85 34)
    exp_bronze=$((exp_bronze + n))
    exp_silver_files=$((exp_silver_files + n - nulls - cancelled + both))
    exp_quarantine=$((exp_quarantine + cancelled))
    next_id=$((first + n))
    n_files=$((n_files + 1))
}

add_manual() { # rows: append to the external table (not under test: never killed)
    local n=$1
    (cd "$proj" && "$weir" query "INSERT INTO manual SELECT 100000000 + id, 1, 9.5 FROM range($manual_rows, $((manual_rows + n)))" \
        >/dev/null 2>>"$logf") || die "cannot insert into manual"
    manual_rows=$((manual_rows + n))
}

# One query computes, for each table, its row count and the rows it has too
# many and too few (multiset differences, EXCEPT ALL) against the expected
# rows, which are generated in SQL from the same formulas as the files
# (range(1, next_id)) and from the external table.
check_sql() { # with_sink
    local cols="order_id, customer_id, amount, status"
    local src="SELECT id AS order_id, id % 97 AS customer_id, CASE WHEN id % 17 = 0 THEN NULL ELSE CAST(id % 1000 AS DOUBLE) / 4 END AS amount, CASE id % 5 WHEN 0 THEN 'placed' WHEN 1 THEN 'shipped' WHEN 2 THEN 'delivered' WHEN 3 THEN 'returned' ELSE 'cancelled' END AS status FROM range(1, $next_id)"
    local es="SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, status FROM src WHERE amount IS NOT NULL AND status <> 'cancelled' UNION ALL SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, 'manual' AS status FROM manual"
    local eq="SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount, status FROM src WHERE status = 'cancelled'"
    local eg="SELECT status, count(*) AS n, sum(amount) AS revenue FROM exp_silver GROUP BY status"
    local sql="WITH src AS ($src), exp_silver AS ($es), exp_quar AS ($eq), exp_gold AS ($eg) SELECT
 (SELECT count(*) FROM bronze) AS bronze_n,
 (SELECT count(*) FROM (SELECT $cols FROM bronze EXCEPT ALL SELECT * FROM src) a) AS bronze_extra,
 (SELECT count(*) FROM (SELECT * FROM src EXCEPT ALL SELECT $cols FROM bronze) b) AS bronze_missing,
 (SELECT count(*) FROM silver) AS silver_n,
 (SELECT count(*) FROM (SELECT $cols FROM silver EXCEPT ALL SELECT * FROM exp_silver) c) AS silver_extra,
 (SELECT count(*) FROM (SELECT * FROM exp_silver EXCEPT ALL SELECT $cols FROM silver) d) AS silver_missing,
 (SELECT count(*) FROM silver_quarantine) AS quarantine_n,
 (SELECT count(*) FROM (SELECT $cols FROM silver_quarantine EXCEPT ALL SELECT * FROM exp_quar) e) AS quarantine_extra,
 (SELECT count(*) FROM (SELECT * FROM exp_quar EXCEPT ALL SELECT $cols FROM silver_quarantine) f) AS quarantine_missing,
 (SELECT count(*) FROM gold) AS gold_n,
 (SELECT count(*) FROM (SELECT status, n, revenue FROM gold EXCEPT ALL SELECT * FROM exp_gold) g) AS gold_extra,
 (SELECT count(*) FROM (SELECT * FROM exp_gold EXCEPT ALL SELECT status, n, revenue FROM gold) h) AS gold_missing"
    if [ "$1" = 1 ]; then
        local so="SELECT $cols FROM read_files('sink-out', format => 'parquet')"
        sql="$sql,
 (SELECT count(*) FROM ($so) i) AS sink_n,
 (SELECT count(*) FROM ($so EXCEPT ALL SELECT * FROM exp_silver) j) AS sink_extra,
 (SELECT count(*) FROM (SELECT * FROM exp_silver EXCEPT ALL $so) k) AS sink_missing"
    fi
    printf '%s' "$sql"
}

# --- Runs --------------------------------------------------------------------------------

pid=
out=

alive() { # the background weir has not exited (a zombie counts as exited)
    [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status"
}

# Wait (at most 60 s) until the run prints a line matching ERE (default
# "Starting run") or ends.
wait_started() { # [ERE]
    local i re=${1:-Starting run}
    for ((i = 0; i < 6000; i++)); do
        grep -qE "$re" "$out" 2>/dev/null && return 0
        alive || return 1
        sleep 0.01
    done
    return 1
}

spawn() { # output-file args...
    out=$1
    shift
    (cd "$proj" && exec "$weir" run "$@") >"$out" 2>&1 &
    pid=$!
}

# Wait for the background weir; its exit status lands in $status.
reap() {
    status=0
    wait "$pid" 2>/dev/null || status=$?
}

# Where a killed run was when it died: before the update (loading the
# spec), mid-update (storage open, analysis, or flows running: "flows"
# once a flow started), or after the end was printed (closing the storage:
# DuckDB checkpoints the write-ahead log into the database files).
classify() { # output-file (missing when the kill beat the redirection)
    if [ ! -s "$1" ]; then
        echo before
    elif grep -q "Run is \(COMPLETED\|FAILED\|CANCELED\)" "$1"; then
        echo after
    elif grep -q "is RUNNING\.$" "$1"; then
        echo flows
    elif grep -q "Starting run" "$1"; then
        echo mid
    else
        echo before
    fi
}

est_total=1500  # ms, a clean run from start to exit (moving averages)
est_update=1000 # ms, from "Starting run..." to "Run is ..."
est_flows=500   # ms, from the first flow RUNNING to "Run is ..."

kills=0 kills_mid=0 kills_flows=0 kills_before=0 kills_after=0 double=0 refreshes=0
rows_compared=0 violations=0 first_violation=

# Start a run and kill it at a random instant. Sets the class in $landed.
killed_run() { # label args...
    local label=$1
    shift
    spawn "$work/out/$label.out" "$@"
    local t0 delay how
    t0=$(now_ms)
    local mode
    mode=$(rnd 10)
    if [ "$mode" -lt 5 ]; then
        # While flows run and commit: after the first flow starts.
        how=flows
        delay=$(rnd $((est_flows * 11 / 10 + 1)))
        wait_started 'is RUNNING\.$' || true
    elif [ "$mode" -lt 8 ]; then
        # Inside the update: after "Starting run..." (storage open, WAL
        # replay, analysis, flows), within its usual length.
        how=update
        delay=$(rnd $((est_update + 1)))
        wait_started || true
    else
        # Anywhere from process start (loading, storage open, WAL replay).
        how=start
        delay=$(rnd $((est_total * 12 / 10 + 1)))
    fi
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    reap
    landed=$(classify "$out")
    kills=$((kills + 1))
    case $landed in
    flows) kills_mid=$((kills_mid + 1)) kills_flows=$((kills_flows + 1)) ;;
    mid) kills_mid=$((kills_mid + 1)) ;;
    before) kills_before=$((kills_before + 1)) ;;
    after) kills_after=$((kills_after + 1)) ;;
    esac
    log "  $label: $* killed ${delay} ms after $how -> $landed ($(($(now_ms) - t0)) ms)"
}

clean_run() { # label
    spawn "$work/out/$1.out"
    local t0 ts tf te st t1
    t0=$(now_ms)
    wait_started || true
    ts=$(now_ms)
    wait_started 'is RUNNING\.$' || true
    tf=$(now_ms)
    wait_started 'Run is ' || true
    te=$(now_ms)
    reap
    st=$status
    t1=$(now_ms)
    if [ "$st" != 0 ] || ! grep -q "Run is COMPLETED." "$out"; then
        log "  $1: recovery run failed (exit $st)"
        sed 's/^/    /' "$out" | tail -n 30 >>"$logf"
        return 1
    fi
    # How long the phases took (moving averages): the whole process, the
    # update (to its last line), the flows (first flow running to the end).
    est_total=$(((est_total * 3 + (t1 - t0)) / 4))
    est_update=$(((est_update * 3 + (te - ts)) / 4))
    est_flows=$(((est_flows * 3 + (te - tf)) / 4))
    return 0
}

# Compare every table (and the sink) with the exactly-once result.
check() { # trial
    local res
    res=$(cd "$proj" && timeout 300 "$weir" query --format csv "$(check_sql "$with_sink")" 2>>"$logf" | tail -n 1)
    local -a v
    IFS=, read -r -a v <<<"$res"
    if [ "${#v[@]}" -lt 12 ]; then
        log "  check query failed: '$res'"
        return 1
    fi
    local exp_silver=$((exp_silver_files + manual_rows))
    local problems=""
    [ "${v[0]}" = "$exp_bronze" ] || problems+=" bronze has ${v[0]} rows, expected $exp_bronze;"
    [ "${v[3]}" = "$exp_silver" ] || problems+=" silver has ${v[3]} rows, expected $exp_silver;"
    [ "${v[6]}" = "$exp_quarantine" ] || problems+=" silver_quarantine has ${v[6]} rows, expected $exp_quarantine;"
    local i names=(bronze_n bronze_extra bronze_missing silver_n silver_extra silver_missing
        quarantine_n quarantine_extra quarantine_missing gold_n gold_extra gold_missing
        sink_n sink_extra sink_missing)
    for i in 1 2 4 5 7 8 10 11 13 14; do
        [ "$i" -lt "${#v[@]}" ] || continue
        [ "${v[$i]}" = 0 ] || problems+=" ${names[$i]}=${v[$i]};"
    done
    if [ "${#v[@]}" -ge 15 ] && [ "${v[12]}" != "$exp_silver" ]; then
        problems+=" sink has ${v[12]} rows, expected $exp_silver;"
    fi
    rows_compared=$((rows_compared + v[0] + v[3] + v[6] + v[9]))
    [ "${#v[@]}" -lt 15 ] || rows_compared=$((rows_compared + v[12]))
    log "  check: $res"
    if [ -n "$problems" ]; then
        log "  VIOLATION:$problems"
        echo "crash.sh: trial $1 (seed $seed): VIOLATION:$problems" >&2
        return 1
    fi
    return 0
}

# --- Main ---------------------------------------------------------------------------------

: >"$logf"
mkdir -p "$work/out"
with_sink=0
case $sink in
on) with_sink=1 ;;
off) ;;
auto) sink_supported && with_sink=1 ;;
*) die "--sink must be auto, on or off" ;;
esac
[ "$with_sink" = 0 ] || fr_every=0 # a full refresh re-sends everything to a sink
# A fresh project: storage, inputs and expectations start from nothing
# (every --epoch trials too, so that the checks stay fast in long runs).
new_project() {
    write_project "$with_sink"
    next_id=1 n_files=0 manual_rows=0
    exp_bronze=0 exp_silver_files=0 exp_quarantine=0
    (cd "$proj" && "$weir" query "CREATE TABLE manual (order_id BIGINT, customer_id BIGINT, amount DOUBLE)" \
        >/dev/null 2>>"$logf") || die "cannot create the external table (see $logf)"
    land_file 500
    add_manual 20
    clean_run "setup-$1" || die "the first run failed (see $logf)"
    check "setup-$1" || die "the first run does not hold the expected data (see $logf)"
}

log "crash.sh: seed $seed, $trials trials, sink $([ $with_sink = 1 ] && echo yes || echo no), weir $weir"
new_project 0

started=$(now_ms)
for ((t = 1; t <= trials; t++)); do
    if [ $((t % epoch)) = 0 ]; then
        log "new project (epoch $((t / epoch)))"
        new_project "$t"
    fi
    log "trial $t"
    for ((k = 0, nf = 1 + $(rnd 2); k < nf; k++)); do
        land_file $((50 + $(rnd 950)))
    done
    [ "$(rnd 3)" != 0 ] || add_manual $((1 + $(rnd 100)))
    args=()
    if [ "$fr_every" -gt 0 ] && [ $((t % fr_every)) = 0 ]; then
        args=(--full-refresh silver)
        refreshes=$((refreshes + 1))
    fi
    killed_run "t$t-kill" "${args[@]}"
    if [ "$(rnd 5)" = 0 ]; then
        killed_run "t$t-kill2"
        double=$((double + 1))
    fi
    ok=1
    clean_run "t$t-recover" || ok=0
    [ "$ok" = 0 ] || check "$t" || ok=0
    if [ "$ok" = 0 ]; then
        violations=$((violations + 1))
        if [ -z "$first_violation" ]; then
            first_violation=$t
            cp -R "$proj" "$work/violation-$t"
            echo "crash.sh: trial $t: storage kept in $work/violation-$t; log $logf" >&2
            trap - EXIT
        fi
        [ -n "$keep_going" ] || break
    fi
    if [ $((t % 50)) = 0 ]; then
        echo "crash.sh: $t trials, $kills_mid kills mid-update, $violations violations" >&2
    fi
done
elapsed=$((($(now_ms) - started) / 1000))
trials_done=$((t > trials ? trials : t))

summary="crash.sh: seed $seed: $trials_done trials, $kills kills ($kills_mid mid-update of which $kills_flows while flows ran, $kills_before before the update, $kills_after after it ended), $double double kills, $refreshes full refreshes, sink $([ $with_sink = 1 ] && echo included || echo 'not supported by this build'), $rows_compared rows compared, $violations violations, ${elapsed}s"
echo "$summary"
log "$summary"
if [ -n "$report" ]; then
    cat >"$report" <<EOF
seed=$seed
trials=$trials_done
kills=$kills
kills_mid_update=$kills_mid
kills_while_flows_ran=$kills_flows
kills_before_update=$kills_before
kills_after_update=$kills_after
double_kills=$double
full_refreshes=$refreshes
sink=$with_sink
files=$n_files
rows_compared=$rows_compared
violations=$violations
seconds=$elapsed
EOF
fi
[ "$violations" = 0 ]
