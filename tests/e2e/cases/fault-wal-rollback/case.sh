# A disk that stays broken under a write-ahead log: from the Nth call on,
# every write, fsync and ftruncate of the WAL fails (EIO, ENOSPC, EDQUOT),
# so a commit that cannot write its WAL cannot take its bytes back out of
# it either. DuckDB 1.4.4 aborted the process there (std::terminate from
# its noexcept commit, exit 134); each update must now end with exit 1 (or
# 0 when only the close was hit), never a signal, and after the fault is
# gone the next update ends with exactly the expected rows everywhere.
# Swept over a catalog's WAL and weir.duckdb's. The default suite sweeps
# the first positions; the full version (ctest -L heavy,
# heavy/fault-wal-rollback, or WEIR_FAULT_SWEEP=full) every position, with each errno, on both.

shim=${WEIR_FAULT_LIB:-$(dirname "$WEIR")/tests/libweirfault.so}
[ -f "$shim" ] || e2e_fail "the fault shim is not built: $shim"
gen="$E2E_LIB/../../bench/gen.py"
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
ops=write,pwrite,fsync,fdatasync,ftruncate

rows=0 files=0 manual=0
land() { # rows: one more file of orders
    python3 "$gen" orders landing "$1" --files 1 --start "$files" --first-id $((rows + 1))
    files=$((files + 1))
    rows=$((rows + $1))
}

# run_faulty VAR=VALUE...: `weir run` under the shim; $injected is the
# number of calls it failed.
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
    grep -q "terminate called" "$WEIR_STDERR" && e2e_fail "DuckDB aborted under faults: $*"
    [ "$WEIR_EXIT" -lt 128 ] || e2e_fail "weir died of a signal under faults: $*"
}

# Every table and the sink hold exactly the rows of the inputs, once; the
# same query adds 7 rows to the external table for the next update.
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

total=0 failed=0
# sweep FILE ERRNO LAST: for N = 1 .. LAST (WEIR_FAULT_NTH), new data, an
# update under the lasting fault, then a clean update and the exact check.
# Stops once N lies past the update's last call on FILE.
sweep() {
    local file=$1 errno=$2 last=$3 n
    for n in $(seq 1 "$last"); do
        land $((50 + n * 3))
        run_faulty WEIR_FAULT_ERRNO="$errno" WEIR_FAULT_OPS="$ops" \
            WEIR_FAULT_PATH="$E2E_WORK/storage/$file" WEIR_FAULT_NTH="$n"
        total=$((total + 1))
        echo "$file $errno NTH=$n: $injected calls failed, exit $WEIR_EXIT" >>"$E2E_OUT/sweeps"
        case $WEIR_EXIT in
        1)
            # The update failed, and said so.
            grep -qE "Run is FAILED|weir: error:" "$WEIR_STDOUT" "$WEIR_STDERR" ||
                e2e_fail "$file NTH=$n: the failed update does not say it failed"
            failed=$((failed + 1))
            ;;
        0)
            # Only closing the storage was hit: every flow completed.
            expect_stdout_contains "Run is COMPLETED."
            ;;
        *) e2e_fail "$file NTH=$n: exit $WEIR_EXIT under a fault" ;;
        esac
        run_weir run
        expect_exit 0
        expect_stdout_contains "Run is COMPLETED."
        check_exact
        [ "$injected" != 0 ] || break
    done
}

if [ "${WEIR_FAULT_SWEEP:-$(e2e_size quick full)}" = full ]; then
    for errno in EIO ENOSPC EDQUOT; do
        sweep spark_catalog.duckdb.wal "$errno" 60
        sweep weir.duckdb.wal "$errno" 60
    done
else
    # The first commits of each file: a failed write or fsync in the
    # middle of a commit's WAL bytes, then the failed truncate.
    sweep spark_catalog.duckdb.wal EIO 5
    sweep weir.duckdb.wal ENOSPC 4
fi

cat "$E2E_OUT/sweeps" >&2
echo "fault-wal-rollback: $total updates under faults, $failed failed with exit 1, all recovered exactly" >&2
[ "$failed" -ge 5 ] || e2e_fail "only $failed faults made an update fail"
