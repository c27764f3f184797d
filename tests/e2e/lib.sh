# Helpers for end-to-end cases, sourced by run-case.sh before case.sh.
#
# run_weir runs the binary and records its exit code, stdout and stderr
# (it never stops the case); the expect_* functions check the last run or
# the files around it, and the first one that fails ends the case with a
# clear message. Output comparisons mask what changes between runs: times
# (YYYY-MM-DD HH:MM:SS[.ffffff][Z], with a space or T) become <TS>, UUIDs
# <UUID>, and the case's temporary folder <WORK>.

E2E_CHECKS=0
WEIR_EXIT=
WEIR_CMD=
WEIR_STDOUT="$E2E_OUT/stdout"
WEIR_STDERR="$E2E_OUT/stderr"

e2e_begin() {
    set -eE
    trap 'e2e_on_err $? "$BASH_COMMAND"' ERR
    : >"$E2E_OUT/log"
}

e2e_end() {
    trap - ERR
    set +eE
    echo "e2e/$E2E_NAME: passed ($E2E_CHECKS checks)"
    # Servers the case started stop before their folders go (their pid
    # files are there).
    local c
    for c in "${E2E_AT_EXIT[@]}"; do $c; done
    E2E_AT_EXIT=()
    trap - EXIT
    if [ -z "${E2E_KEEP:-}" ]; then
        cd / && rm -rf "$E2E_ROOT"
    else
        echo "kept $E2E_ROOT"
    fi
    exit 0
}

# The line of case.sh that is running, for messages.
e2e_where() {
    local i
    for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
        case "${BASH_SOURCE[$i]}" in
        *case.sh) echo "case.sh:${BASH_LINENO[$((i - 1))]}"; return ;;
        esac
    done
    echo "case.sh"
}

e2e_show() { # label file
    echo "--- $1 ---"
    if [ -s "$2" ]; then head -n 60 "$2"; else echo "(empty)"; fi
}

# A command failed outside an expectation (or a subshell ended by
# e2e_fail, which has said everything already).
e2e_on_err() { # status command
    [ ! -f "$E2E_OUT/failed" ] || exit 1
    e2e_fail "command failed (exit $1): $2"
}

# Stop the case: what failed, where, and the last weir call's output.
e2e_fail() {
    trap - ERR
    set +eE
    : >"$E2E_OUT/failed"
    {
        echo "FAIL e2e/$E2E_NAME at $(e2e_where): $*"
        [ ! -e "$E2E_OUT/spread" ] ||
            echo "short sweeps: E2E_SPREAD_OFFSET=$E2E_SPREAD_OFFSET repeats their choice of positions"
        if [ -n "$WEIR_CMD" ]; then
            echo "last command: $WEIR_CMD  (exit $WEIR_EXIT)"
            e2e_show stdout "$WEIR_STDOUT"
            e2e_show stderr "$WEIR_STDERR"
        fi
        echo "work folder kept: $E2E_ROOT"
    } >&2
    exit 1
}

e2e_pass() { E2E_CHECKS=$((E2E_CHECKS + 1)); }

# e2e_at_exit COMMAND: run COMMAND (once) when the case ends, passed or
# failed (servers and brokers a case started).
E2E_AT_EXIT=()
e2e_at_exit() {
    local c
    for c in "${E2E_AT_EXIT[@]}"; do [ "$c" = "$1" ] && return 0; done
    E2E_AT_EXIT+=("$1")
    trap 'for c in "${E2E_AT_EXIT[@]}"; do $c; done' EXIT
}

# --- Short and full sweeps -------------------------------------------------------
# Sweeps and soaks (fault positions, kill trials, load) run a short version
# in the default suite and their full one under the ctest label heavy
# (heavy/<case>, which sets WEIR_E2E_HEAVY=1; tests/CMakeLists.txt).

# e2e_heavy: true when the case runs its full version.
e2e_heavy() { [ "${WEIR_E2E_HEAVY:-0}" = 1 ]; }

# e2e_size SHORT FULL: a sweep's or soak's size for this version.
e2e_size() { if e2e_heavy; then echo "$2"; else echo "$1"; fi; }

# e2e_spread STRIDE ITEM...: the items a sweep tries: all of them in the
# full version; in the short one the first, the last and every STRIDE-th
# from an offset drawn once per case run, so that successive runs cover
# every item between them. E2E_SPREAD_OFFSET=N repeats a run's choice (a
# failure prints it).
E2E_SPREAD_OFFSET=${E2E_SPREAD_OFFSET:-$RANDOM}
e2e_spread() {
    local stride=$1 i=0 last=$# item
    shift
    e2e_heavy || : >"$E2E_OUT/spread"
    for item in "$@"; do
        if e2e_heavy || [ "$i" = 0 ] || [ "$i" = $((last - 2)) ] ||
            [ $((i % stride)) = $((E2E_SPREAD_OFFSET % stride)) ]; then
            echo "$item"
        fi
        i=$((i + 1))
    done
}

# --- Running weir -----------------------------------------------------------

# run_weir ARGS...: run weir in the current directory with the caller's
# stdin (empty unless redirected, e.g. run_weir query - <<<"SELECT 1").
run_weir() {
    WEIR_CMD="weir $*"
    WEIR_EXIT=0
    "$WEIR" "$@" >"$WEIR_STDOUT" 2>"$WEIR_STDERR" || WEIR_EXIT=$?
    printf '$ %s  -> %s\n' "$WEIR_CMD" "$WEIR_EXIT" >>"$E2E_OUT/log"
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
        "$WEIR_STDERR"; then
        e2e_fail "sanitizer report from: $WEIR_CMD"
    fi
    return 0
}

# --- Masking ------------------------------------------------------------------

# mask FILE: print FILE with run-specific text replaced by placeholders.
mask() {
    local text
    text=$(cat "$1"; echo x)
    text=${text%x}
    text=${text//"$E2E_WORK"/<WORK>}
    text=${text//"$E2E_ROOT"/<ROOT>}
    printf '%s' "$text" | sed -E \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z?/<TS>/g' \
        -e 's/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/<UUID>/g'
}

# compare_files WHAT EXPECTED ACTUAL: exact comparison with a diff.
compare_files() {
    if ! diff -u --label "expected $1" --label "actual $1" "$2" "$3" \
        >"$E2E_OUT/diff"; then
        e2e_fail "$1 differs:
$(head -n 80 "$E2E_OUT/diff")"
    fi
    e2e_pass
}

# --- Expectations on the last run_weir --------------------------------------------

expect_exit() { # N
    [ "$WEIR_EXIT" = "$1" ] || e2e_fail "expected exit code $1, got $WEIR_EXIT"
    e2e_pass
}

expect_failure() { # any non-zero exit code
    [ "$WEIR_EXIT" != 0 ] || e2e_fail "expected a failure, got exit code 0"
    e2e_pass
}

# Substring tests on the whole file, so TEXT may span lines.
e2e_contains() { # what file text
    local content
    content=$(cat "$2")
    [[ "$content" == *"$3"* ]] || e2e_fail "$1 does not contain: $3"
    e2e_pass
}

e2e_lacks() { # what file text
    local content
    content=$(cat "$2")
    if [[ "$content" == *"$3"* ]]; then e2e_fail "$1 contains: $3"; fi
    e2e_pass
}

expect_stdout_contains() { e2e_contains stdout "$WEIR_STDOUT" "$1"; }
expect_stderr_contains() { e2e_contains stderr "$WEIR_STDERR" "$1"; }
expect_stdout_not_contains() { e2e_lacks stdout "$WEIR_STDOUT" "$1"; }
expect_stderr_not_contains() { e2e_lacks stderr "$WEIR_STDERR" "$1"; }

expect_stdout_matches() { # ERE
    grep -qE -- "$1" "$WEIR_STDOUT" || e2e_fail "no stdout line matches: $1"
    e2e_pass
}

expect_stderr_matches() { # ERE
    grep -qE -- "$1" "$WEIR_STDERR" || e2e_fail "no stderr line matches: $1"
    e2e_pass
}

expect_stdout_empty() {
    [ ! -s "$WEIR_STDOUT" ] || e2e_fail "stdout is not empty"
    e2e_pass
}

expect_stderr_empty() {
    [ ! -s "$WEIR_STDERR" ] || e2e_fail "stderr is not empty"
    e2e_pass
}

# expect_stdout_equals TEXT: masked stdout is TEXT (a final newline is
# added to TEXT when it has none).
expect_stdout_equals() {
    printf '%s\n' "${1%$'\n'}" >"$E2E_OUT/expected"
    mask "$WEIR_STDOUT" >"$E2E_OUT/actual"
    compare_files stdout "$E2E_OUT/expected" "$E2E_OUT/actual"
}

expect_stderr_equals() {
    printf '%s\n' "${1%$'\n'}" >"$E2E_OUT/expected"
    mask "$WEIR_STDERR" >"$E2E_OUT/actual"
    compare_files stderr "$E2E_OUT/expected" "$E2E_OUT/actual"
}

# expect_stdout_file FILE: masked stdout is exactly FILE (relative to the
# case folder). E2E_UPDATE=1 writes the actual output back into the case.
expect_stdout_file() {
    mask "$WEIR_STDOUT" >"$E2E_OUT/actual"
    if [ -n "${E2E_UPDATE:-}" ]; then
        cp "$E2E_OUT/actual" "$E2E_CASE/$1"
        cp "$E2E_OUT/actual" "$1"
    fi
    [ -f "$1" ] || e2e_fail "no expected-output file $1"
    compare_files "stdout (vs $1)" "$1" "$E2E_OUT/actual"
}

expect_stderr_file() {
    mask "$WEIR_STDERR" >"$E2E_OUT/actual"
    if [ -n "${E2E_UPDATE:-}" ]; then
        cp "$E2E_OUT/actual" "$E2E_CASE/$1"
        cp "$E2E_OUT/actual" "$1"
    fi
    [ -f "$1" ] || e2e_fail "no expected-output file $1"
    compare_files "stderr (vs $1)" "$1" "$E2E_OUT/actual"
}

# expect_json_lines: every stdout line is one JSON value (needs jq or
# python3; skipped when neither is there).
expect_json_lines() {
    local line n=0
    if command -v jq >/dev/null; then
        while IFS= read -r line; do
            n=$((n + 1))
            printf '%s' "$line" | jq -e . >/dev/null 2>&1 ||
                e2e_fail "stdout line $n is not JSON: $line"
        done <"$WEIR_STDOUT"
    elif command -v python3 >/dev/null; then
        python3 -c 'import json,sys
for n, l in enumerate(sys.stdin, 1):
    try: json.loads(l)
    except ValueError: sys.exit("stdout line %d is not JSON: %s" % (n, l))' \
            <"$WEIR_STDOUT" || e2e_fail "stdout is not JSON lines"
    fi
    e2e_pass
}

# --- Queries -------------------------------------------------------------------

# expect_query SQL EXPECTED [weir query options...]: `weir query --format
# csv SQL` exits 0 and prints EXPECTED (the header line included; NULL is
# an empty field). Not masked: query results are data.
expect_query() {
    local sql=$1 expected=$2
    shift 2
    run_weir query --format csv "$@" "$sql"
    [ "$WEIR_EXIT" = 0 ] || e2e_fail "query failed (exit $WEIR_EXIT): $sql"
    printf '%s\n' "${expected%$'\n'}" >"$E2E_OUT/expected"
    cp "$WEIR_STDOUT" "$E2E_OUT/actual"
    compare_files "result of: $sql" "$E2E_OUT/expected" "$E2E_OUT/actual"
}

# --- Files -----------------------------------------------------------------------

expect_file_exists() { # PATH
    [ -f "$1" ] || e2e_fail "missing file $1"
    e2e_pass
}

expect_dir_exists() { # PATH
    [ -d "$1" ] || e2e_fail "missing folder $1"
    e2e_pass
}

expect_no_file() { # PATH
    [ ! -e "$1" ] || e2e_fail "$1 exists"
    e2e_pass
}

expect_file_contains() { # PATH TEXT
    expect_file_exists "$1"
    e2e_contains "$1" "$1" "$2"
}

# --- Anything else ------------------------------------------------------------

# expect_equal WHAT ACTUAL EXPECTED, e.g.
#   expect_equal "order files" "$(ls data | wc -l)" 3
expect_equal() {
    [ "$2" = "$3" ] || e2e_fail "$1: expected '$3', got '$2'"
    e2e_pass
}

# --- Scenarios shared by several cases -----------------------------------------

# expect_python_scaffold_runs CLIENT_VERSION: with the pyspark-client of
# that version as WEIR_PYTHON (exported), `weir init --language python
# demo` scaffolds the medallion as Python files, `weir run` imports them
# and builds the same tables as the SQL scaffold, and a second run
# processes nothing new. Leaves the case in demo/.
expect_python_scaffold_runs() {
    WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" "$1")
    export WEIR_PYTHON

    run_weir init --language python demo
    expect_exit 0
    expect_file_exists demo/transformations/orders_bronze.py
    expect_file_contains demo/transformations/orders_silver.py "from pyspark import pipelines as dp"
    expect_no_file demo/transformations/orders_bronze.sql
    cd demo

    run_weir run
    expect_exit 0
    expect_stdout_contains "transformations/orders_bronze.py..."
    expect_stdout_matches "Importing .*/demo/transformations/daily_revenue.py\.\.\.$"
    expect_stdout_contains "Run is COMPLETED."
    expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
    expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
    expect_query "SELECT order_date, orders, revenue FROM daily_revenue ORDER BY order_date" \
"order_date,orders,revenue
2026-01-05,9,572.13
2026-01-06,9,460.93
2026-01-07,10,735.57"

    # Again: every file was read already.
    run_weir run
    expect_exit 0
    expect_stdout_contains "Run is COMPLETED."
    expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
    expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
}

# --- Independent readers ---------------------------------------------------------

# weir_python: the Python of the test environment (stock DuckDB, deltalake),
# created on first use by scripts/pyenv.sh.
weir_python() {
    "$E2E_LIB/../../scripts/pyenv.sh"
}

# --- Projects written by a case ------------------------------------------------
# write_spec NAME: spark-pipeline.yml for a project whose transformations/
# the case writes itself: storage in `storage`, no flow retries (a failure
# shows at once), every file under transformations/ (created).
write_spec() {
    mkdir -p transformations
    cat >spark-pipeline.yml <<YML
name: $1
storage: storage
configuration:
  spark.sql.pipelines.maxFlowRetryAttempts: "0"
libraries:
  - glob:
      include: transformations/**
YML
}

# --- Kill harnesses ---------------------------------------------------------
# Cases that kill `weir run` with SIGKILL at random instants of its update
# and check the data after each recovery (crash-recovery, auto-cdc-kill,
# kafka-kill). A kill *landed* when the run had started its update
# ("Starting run...") and not ended it ("Run is COMPLETED/FAILED/
# CANCELED."): only those test crash safety, and the cases require enough
# of them. Instants are drawn against kill_est_ms, the length of an update
# (from "Starting run..." to its end), which the case seeds (kill_measure)
# and which follows the runs as they go: a run that ends before its kill
# gives its length, a kill that lands later than kill_est_ms says updates
# take longer. A baseline timed at a load peak, or load that comes and goes
# during the case, thus neither leaves most kills after the end nor
# crowds them at its start.
#
#   kill_spawn OUT [ARGS] start `weir run [ARGS]` in the background (output
#                         in OUT)
#   kill_started          wait until it prints "Starting run..." or exits
#   kill_at MS            SIGKILL it MS ms from now (unless it exited) and
#                         reap it; sets kill_landed (0/1), kill_status
#   kill_run OUT PCT [ARGS]  all three, MS drawn from $RANDOM, uniform in
#                         [0, PCT% of kill_est_ms]; sets kill_delay_ms too
#   kill_measure OUT [ARGS]  a run not killed: its exit status in
#                         kill_status, its update's length in kill_est_ms
kill_est_ms=1000
kill_pid=
kill_out=
kill_t0=0

kill_clock() { kill_ms=$((${EPOCHREALTIME//[^0-9]/} / 1000)); }

# The background run exited (a zombie not reaped yet did).
kill_exited() {
    local st=
    read -r st 2>/dev/null <"/proc/$kill_pid/stat" || return 0
    st=${st##*) }
    [ "${st%% *}" = Z ]
}

# (OUT is missing until the background shell opens it.)
kill_ended_update() { grep -qsE "Run is (COMPLETED|FAILED|CANCELED)" "$kill_out"; }
kill_began_update() { grep -qs "Starting run" "$kill_out"; }

kill_spawn() { # OUT [ARGS...]
    kill_out=$1 kill_t0=0
    "$WEIR" run "${@:2}" >"$kill_out" 2>&1 &
    kill_pid=$!
}

kill_started() {
    local i
    for ((i = 0; i < 6000; i++)); do
        if kill_began_update; then
            kill_clock
            kill_t0=$kill_ms
            return 0
        fi
        kill_exited && return 1
        sleep 0.01
    done
    return 1
}

# Wait for the run: kill_status; a sanitizer report fails the case.
kill_reap() {
    kill_status=0
    wait "$kill_pid" 2>/dev/null || kill_status=$?
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$kill_out"; then
        e2e_fail "sanitizer report from weir run: $(head -n 40 "$kill_out")"
    fi
}

# The update ended (seen now): its length moves the estimate.
kill_learn_end() {
    [ "$kill_t0" != 0 ] || return 0
    kill_est_ms=$(((kill_est_ms + kill_ms - kill_t0) / 2))
    kill_t0=0
}

kill_at() { # MS
    kill_clock
    local deadline=$((kill_ms + $1)) t0=$kill_t0 left exited=0
    while [ "$kill_ms" -lt "$deadline" ]; do
        if kill_exited; then
            exited=1
            break
        fi
        [ "$kill_t0" = 0 ] || ! kill_ended_update || kill_learn_end
        left=$((deadline - kill_ms))
        [ "$left" -le 10 ] || left=10
        printf -v left '0.0%02d' "$left"
        sleep "$left"
        kill_clock
    done
    kill -9 "$kill_pid" 2>/dev/null || true
    kill_reap
    kill_landed=0
    if kill_ended_update; then
        kill_learn_end # (when the run exited between two looks)
    elif [ "$exited" = 0 ] && [ "$t0" != 0 ]; then
        kill_landed=1
        # Later than the estimate, and still inside: updates take longer.
        local at=$((kill_ms - t0))
        [ "$at" -le "$kill_est_ms" ] || kill_est_ms=$(((kill_est_ms + at) / 2))
    fi
}

kill_run() { # OUT PCT [ARGS...]
    kill_spawn "$1" "${@:3}"
    kill_started || true
    local range=$((kill_est_ms * $2 / 100 + 1))
    kill_delay_ms=$(((RANDOM * 32768 + RANDOM) % range))
    kill_at "$kill_delay_ms"
}

kill_measure() { # OUT [ARGS...]
    kill_spawn "$@"
    local t0=0
    kill_started && t0=$kill_t0
    while ! kill_exited; do
        if [ "$kill_t0" != 0 ] && kill_ended_update; then
            kill_clock
            kill_est_ms=$((kill_ms - t0)) kill_t0=0
        fi
        sleep 0.01
    done
    if [ "$kill_t0" != 0 ] && kill_ended_update; then
        kill_clock
        kill_est_ms=$((kill_ms - t0)) kill_t0=0
    fi
    kill_reap
}

# --- weir serve ---------------------------------------------------------------
# start_server ARGS...: `weir serve --port 0 ARGS` in the background (its
# output in $E2E_OUT/serve.out and serve.err); sets url and token.
# stop_server SIGNAL: it must then exit 0 within 60 s without sanitizer
# reports. The server and the pids in bg_pids are killed when the case
# ends.
srv_pid=
bg_pids=()
serve_cleanup() {
    local p
    for p in "${bg_pids[@]}" $srv_pid; do
        # the server runs under timeout(1): its child too
        pkill -KILL -P "$p" 2>/dev/null || true
        kill -KILL "$p" 2>/dev/null || true
    done
}
start_server() {
    e2e_at_exit serve_cleanup
    : >"$E2E_OUT/serve.out"
    # Bounded: killed after 5 minutes whatever happens (timeout passes our
    # signals on to weir and exits with its status). --foreground: only to
    # weir; without it timeout also signals its process group, and weir,
    # which takes a second SIGTERM as "stop now", would see ours twice.
    timeout --foreground -s KILL 300 "$WEIR" serve --port 0 "$@" >"$E2E_OUT/serve.out" \
        2>"$E2E_OUT/serve.err" &
    srv_pid=$!
    url=
    for _ in $(seq 1 300); do
        url=$(grep -m1 -o '^sc://localhost:[0-9]*/;token=[^ ]*$' "$E2E_OUT/serve.out" || true)
        [ -n "$url" ] && break
        kill -0 "$srv_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$url" ] || e2e_fail "weir serve did not start: $(cat "$E2E_OUT/serve.err")"
    token=${url##*token=}
}

stop_server() {
    kill "-$1" "$srv_pid"
    for _ in $(seq 1 600); do
        kill -0 "$srv_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$srv_pid" 2>/dev/null && e2e_fail "weir serve did not stop on $1"
    local rc=0
    wait "$srv_pid" || rc=$?
    srv_pid=
    expect_equal "weir serve exit status after $1" "$rc" 0
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
        "$E2E_OUT/serve.err"; then
        e2e_fail "sanitizer report from weir serve: $(head -40 "$E2E_OUT/serve.err")"
    fi
    grep -q "Stopped\.$" "$E2E_OUT/serve.out" || e2e_fail "no 'Stopped.' line"
}

# --- Kafka ------------------------------------------------------------------
# kafka_start: a real broker for this case (scripts/kafka.sh, KRaft on a
# free loopback port, data under the case's folder); sets KAFKA to its
# bootstrap address. It is stopped when the case ends, passed or failed.
# ktool ARGS...: the test tool (tests/kafka/ktool.c) against that broker.
kafka_start() {
    KAFKA_DIR="$E2E_ROOT/kafka"
    KAFKA=$("$WEIR_KAFKA_SH" start "$KAFKA_DIR") \
        || e2e_fail "the Kafka broker did not start"
    e2e_at_exit kafka_cleanup
    export KAFKA
}
kafka_cleanup() { "$WEIR_KAFKA_SH" stop "$KAFKA_DIR" >/dev/null 2>&1; }
kafka_stop() { "$WEIR_KAFKA_SH" stop "$KAFKA_DIR"; }
kafka_pause() { "$WEIR_KAFKA_SH" pause "$KAFKA_DIR"; }
kafka_resume() { "$WEIR_KAFKA_SH" resume "$KAFKA_DIR"; }
ktool() { "$WEIR_KTOOL" -b "$KAFKA" "$@"; }

# s3_start: a real S3-compatible server for this case (scripts/s3.sh:
# S3Proxy on a free loopback port, buckets under the case's folder); sets
# S3_ENDPOINT. Stopped when the case ends. s3 put URL FILE | mb BUCKET |
# rm URL: requests to it, signed with its key (S3_KEY, S3_SECRET).
s3_start() {
    S3_DIR="$E2E_ROOT/s3"
    S3_ENDPOINT=$("$WEIR_S3_SH" start "$S3_DIR") \
        || e2e_fail "the S3 server did not start"
    e2e_at_exit s3_cleanup
    S3_KEY=weir-test S3_SECRET=weir-test-secret
}
s3_cleanup() { "$WEIR_S3_SH" stop "$S3_DIR" >/dev/null 2>&1; }
s3() { local op=$1; shift; "$WEIR_S3_SH" "$op" "$S3_DIR" "$@"; }
# s3_project NAME [ENDPOINT]: spark-pipeline.yml of project NAME (files
# t/**, storage/) reading S3 at ENDPOINT (default $S3_ENDPOINT) with
# path-style access; sets conf to the --conf pair of the credentials, which
# stay off the spec.
s3_project() {
    cat > spark-pipeline.yml <<YML
name: $1
storage: storage
libraries:
  - glob:
      include: t/**
configuration:
  spark.hadoop.fs.s3a.endpoint: ${2:-$S3_ENDPOINT}
  spark.hadoop.fs.s3a.path.style.access: "true"
YML
    conf=(--conf "spark.hadoop.fs.s3a.access.key=$S3_KEY"
          --conf "spark.hadoop.fs.s3a.secret.key=$S3_SECRET")
}
# pg_start: a throwaway PostgreSQL server for this case (scripts/pg.sh:
# the machine's PostgreSQL on a free loopback port, its cluster under the
# case's folder); sets PG (HOST:PORT), PG_USER and PG_PASSWORD. Stopped
# when the case ends. pg_sql SQL: run SQL in its database "weir";
# pg_stop / pg_resume: stop it and start it again on the same port.
# mysql_start / mysql_sql: the same for MariaDB (scripts/mysql.sh; sets
# MYSQL). A machine without the server skips the case (exit 77) saying so.
pg_start() {
    PG_DIR="$E2E_ROOT/pg"
    if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
        echo "SKIPPED: PostgreSQL is not installed (scripts/bootstrap.sh installs it)"
        exit 77
    fi
    PG=$("$WEIR_PG_SH" start "$PG_DIR") || e2e_fail "PostgreSQL did not start"
    e2e_at_exit pg_cleanup
    PG_USER=weir PG_PASSWORD=weir-test-pw
}
pg_cleanup() { "$WEIR_PG_SH" stop "$PG_DIR" >/dev/null 2>&1; }
pg_sql() { "$WEIR_PG_SH" sql "$PG_DIR" "$1"; }
pg_stop() { "$WEIR_PG_SH" stop "$PG_DIR"; }
pg_resume() { "$WEIR_PG_SH" resume "$PG_DIR"; }
mysql_start() {
    MYSQL_DIR="$E2E_ROOT/mysql"
    if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
        echo "SKIPPED: MariaDB is not installed (scripts/bootstrap.sh installs it)"
        exit 77
    fi
    MYSQL=$("$WEIR_MYSQL_SH" start "$MYSQL_DIR") || e2e_fail "MariaDB did not start"
    e2e_at_exit mysql_cleanup
}
mysql_cleanup() { "$WEIR_MYSQL_SH" stop "$MYSQL_DIR" >/dev/null 2>&1; }
mysql_sql() { "$WEIR_MYSQL_SH" sql "$MYSQL_DIR" "$1"; }
# s3_proxy_start (after s3_start): tests/s3/proxy.py in front of the
# server; sets S3_PROXY (its endpoint), S3_PROXY_LOG (a line per request:
# METHOD PATH STATUS) and S3_PROXY_RULES (errors it answers instead;
# see the proxy). Stopped with the server.
s3_proxy_start() {
    S3_PROXY=$("$WEIR_S3_SH" proxy "$S3_DIR") || e2e_fail "the S3 proxy did not start"
    S3_PROXY_LOG=$S3_DIR/proxy.log S3_PROXY_RULES=$S3_DIR/proxy.rules
}
# s3_requests KIND: how many requests the proxy logged since the log was
# last emptied: LIST (bucket listings), HEAD, GET (of objects), PUT.
s3_requests() {
    case "$1" in
    LIST) grep -c '^GET [^ ]*?[^ ]*list-type' "$S3_PROXY_LOG" || true ;;
    GET) { grep -v 'list-type' "$S3_PROXY_LOG" || true; } | grep -c '^GET ' || true ;;
    *) grep -c "^$1 " "$S3_PROXY_LOG" || true ;;
    esac
}
# run_broker_paused [PATTERN DELAY]: `weir run` (its output in paused.out)
# meets a paused broker: paused from the start, or DELAY seconds after
# PATTERN shows in the output; resumed once an attempt fails with
# KAFKA_BROKER_UNREACHABLE (30 s at most). The update must then complete.
run_broker_paused() {
    [ -n "${1:-}" ] || kafka_pause
    "$WEIR" run > paused.out 2>&1 &
    local runner=$! i code=0
    if [ -n "${1:-}" ]; then
        for i in $(seq 150); do
            grep -q "$1" paused.out && break
            sleep 0.1
        done
        sleep "$2"
        kafka_pause
    fi
    for i in $(seq 300); do
        grep -q KAFKA_BROKER_UNREACHABLE paused.out && break
        sleep 0.1
    done
    kafka_resume
    wait $runner || code=$?
    expect_equal "exit of the update that met the paused broker" "$code" 0
    grep -q "KAFKA_BROKER_UNREACHABLE" paused.out || e2e_fail "no attempt met the paused broker"
    grep -q "Run is COMPLETED." paused.out || e2e_fail "the update did not complete after the broker resumed"
}

# --- weir ui (the pipeline UI cases) -------------------------------------------
# start_ui [ARGS...]: `weir ui --port 0 ARGS` in the background, bounded to
# 10 minutes; sets ui_pid, url (with its token), token, base and auth (curl
# arguments presenting the token). stop_ui: SIGTERM, then a clean exit 0
# without a sanitizer report.
ui_cleanup() { # weir runs under timeout(1): its child too
    [ -n "${ui_pid:-}" ] || return 0
    pkill -KILL -P "$ui_pid" 2>/dev/null || true
    kill -KILL "$ui_pid" 2>/dev/null || true
}
start_ui() {
    e2e_at_exit ui_cleanup
    timeout --foreground -s KILL 600 "$WEIR" ui --port 0 "$@" \
        >"$E2E_OUT/ui.out" 2>"$E2E_OUT/ui.err" &
    ui_pid=$!
    url=
    for _ in $(seq 1 900); do
        url=$(grep -m1 -o '^http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*$' "$E2E_OUT/ui.out" || true)
        [ -n "$url" ] && break
        kill -0 "$ui_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$url" ] || e2e_fail "weir ui did not start: $(cat "$E2E_OUT/ui.err")"
    token=${url##*token=}
    base=${url%%/\?*}
    auth=(-H "Authorization: Bearer $token")
}
stop_ui() {
    kill -TERM "$ui_pid"
    local rc=0
    wait "$ui_pid" || rc=$?
    ui_pid=
    expect_equal "weir ui exit status" "$rc" 0
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$E2E_OUT/ui.err"; then
        e2e_fail "sanitizer report from weir ui: $(head -40 "$E2E_OUT/ui.err")"
    fi
    expect_file_contains "$E2E_OUT/ui.out" "Stopped."
}
