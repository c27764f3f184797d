# I/O faults: the LD_PRELOAD shim (tests/fault) makes write, fsync and
# rename calls fail with ENOSPC or EIO while `weir run` updates a pipeline
# with a file source, a table source, expectations, an MV and a parquet
# sink. The faults stay (a full disk stays full): the update must fail with
# an error that names the problem, or complete untouched when the fault only
# hit closing the storage; after the fault is removed, the next update ends
# with exactly the expected rows everywhere (nothing lost, nothing twice).
# One-shot faults (a failed commit, then more commits in the same process)
# are covered by fault-regressions. The default suite tries every 6th
# position of each sweep (the first, the last, and an offset that changes
# from run to run: e2e_spread in lib.sh); heavy/fault-io tries them all.

shim=${WEIR_FAULT_LIB:-$(dirname "$WEIR")/tests/libweirfault.so}
[ -f "$shim" ] || e2e_fail "the fault shim is not built: $shim"
gen="$E2E_LIB/../../bench/gen.py"
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

rows=0 files=0 manual=0 pending=0
land() { # rows: one more file of orders (and, with the next check, a few
    # rows for the manual flow)
    python3 "$gen" orders landing "$1" --files 1 --start "$files" --first-id $((rows + 1))
    files=$((files + 1))
    rows=$((rows + $1))
}

# run_faulty VAR=VALUE...: `weir run` with the shim and these WEIR_FAULT_*
# settings; $injected is the number of calls the shim failed.
run_faulty() {
    : >"$E2E_OUT/faults"
    WEIR_CMD="weir run  [faults: $*]"
    WEIR_EXIT=0
    env "$@" WEIR_FAULT_LOG="$E2E_OUT/faults" LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" \
        "$WEIR" run >"$WEIR_STDOUT" 2>"$WEIR_STDERR" || WEIR_EXIT=$?
    printf '$ %s  -> %s\n' "$WEIR_CMD" "$WEIR_EXIT" >>"$E2E_OUT/log"
    injected=$(grep -c ' fail$' "$E2E_OUT/faults" || true)
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$WEIR_STDERR"; then
        e2e_fail "sanitizer report under faults: $*"
    fi
    [ "$WEIR_EXIT" -lt 128 ] || e2e_fail "weir died of a signal under faults: $*"
}

# Every table and the sink hold exactly the rows of the inputs, once; one
# query, which also adds 7 rows to the external table for the next update.
check_exact() {
    local sink="SELECT order_id, customer_id, amount, status FROM read_files('sink-out', format => 'parquet')"
    local cols="order_id, customer_id, amount, status"
    expect_query "INSERT INTO manual SELECT 10000000 + id, 1, 9.5 FROM range($manual, $((manual + 7))); SELECT (SELECT count(*) FROM bronze) AS n, (SELECT count(DISTINCT order_id) FROM bronze) AS d, (SELECT count(*) FROM silver) - (SELECT count(*) FROM bronze WHERE amount IS NOT NULL) AS diff, (SELECT count(*) - count(DISTINCT order_id) FROM silver) AS dups, (SELECT count(*) FROM silver WHERE status = 'manual') AS manual, (SELECT sum(n) FROM gold) - (SELECT count(*) FROM silver) AS gold, (SELECT count(*) FROM ($sink EXCEPT ALL SELECT $cols FROM silver) a) AS sink_extra, (SELECT count(*) FROM (SELECT $cols FROM silver EXCEPT ALL $sink) b) AS sink_missing" "n,d,diff,dups,manual,gold,sink_extra,sink_missing
$rows,$rows,$manual,0,$manual,0,0,0"
    manual=$((manual + 7))
}

run_weir query "CREATE TABLE manual (order_id BIGINT, customer_id BIGINT, amount DOUBLE)"
expect_exit 0
land 400
run_weir run
expect_exit 0
check_exact

total=0 failed_clearly=0
# sweep ERRNO_TEXT STEP VAR=VALUE...: for N = 1, 1 + STEP, ...
# (WEIR_FAULT_NTH), new data, an update under the fault, then a clean update
# and the exact check. Stops once N lies past the last matching call.
sweep() {
    local text=$1 step=$2 n
    shift 2
    for n in $(e2e_spread 6 $(seq 1 "$step" 60)); do
        land $((50 + n * 3))
        run_faulty "$@" WEIR_FAULT_NTH="$n"
        if [ "$injected" = 0 ]; then
            expect_exit 0
            run_weir run
            expect_exit 0
            check_exact
            break
        fi
        total=$((total + 1))
        echo "fault $* NTH=$n: $injected calls failed, exit $WEIR_EXIT" >>"$E2E_OUT/sweeps"
        case $WEIR_EXIT in
        1)
            # A clear error: the errno text, and no completed run.
            grep -qF "$text" "$WEIR_STDOUT" "$WEIR_STDERR" ||
                e2e_fail "NTH=$n: the failed update does not say '$text'"
            # The flows completed but recording the update's end failed:
            # the error says so.
            grep -qF "the update's data is committed" "$WEIR_STDERR" ||
                expect_stdout_not_contains "Run is COMPLETED."
            failed_clearly=$((failed_clearly + 1))
            ;;
        0)
            # Only closing the storage was hit: every flow completed.
            expect_stdout_contains "Run is COMPLETED."
            expect_stdout_not_contains "has FAILED"
            ;;
        *) e2e_fail "NTH=$n: exit $WEIR_EXIT under a fault" ;;
        esac
        run_weir run
        expect_exit 0
        expect_stdout_contains "Run is COMPLETED."
        check_exact
    done
}

# A full disk under the catalog's write-ahead log (every commit of a flow),
# then EIO anywhere in storage, then failing fsyncs, then failing renames of
# the sink's publication.
sweep "No space left on device" 1 WEIR_FAULT_ERRNO=ENOSPC WEIR_FAULT_PATH='*/spark_catalog.duckdb.wal'
sweep "Input/output error" 3 WEIR_FAULT_ERRNO=EIO WEIR_FAULT_PATH="$E2E_WORK/storage/*" WEIR_FAULT_OPS=write,pwrite
sweep "fsync" 2 WEIR_FAULT_ERRNO=EIO WEIR_FAULT_PATH="$E2E_WORK/storage/spark_catalog.duckdb*" WEIR_FAULT_OPS=fsync,fdatasync
sweep "No space left on device" 1 WEIR_FAULT_ERRNO=ENOSPC WEIR_FAULT_PATH="$E2E_WORK/sink-out/*" WEIR_FAULT_OPS=rename

cat "$E2E_OUT/sweeps" >&2
echo "fault-io: $total updates under faults, $failed_clearly failed with a clear error, all recovered exactly" >&2
[ "$failed_clearly" -ge "$(e2e_size 3 10)" ] || e2e_fail "only $failed_clearly faults made an update fail"
