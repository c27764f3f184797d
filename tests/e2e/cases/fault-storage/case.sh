# Trouble with the storage folder is detected and reported, never silently
# skipped or reprocessed: a full disk (a real 3 MB tmpfs when we may mount
# one, else ENOSPC from the fault shim), a read-only storage folder (a
# read-only bind mount, or file modes when not root, else EROFS from the
# shim), a corrupted, truncated or emptied catalog file, a corrupted
# write-ahead log. After each fault is removed the next update ends with
# exactly the expected rows. Deleted checkpoints, manifests and catalog
# files: see fault-regressions.

gen="$E2E_LIB/../../bench/gen.py"
shim=${WEIR_FAULT_LIB:-$(dirname "$WEIR")/tests/libweirfault.so}
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
rows=0 files=0
land() { # rows
    python3 "$gen" orders landing "$1" --files 1 --start "$files" --first-id $((rows + 1))
    files=$((files + 1))
    rows=$((rows + $1))
}
check_exact() {
    expect_query "SELECT (SELECT count(*) FROM bronze) AS n, (SELECT count(DISTINCT order_id) FROM bronze) AS d, (SELECT count(*) FROM silver) - (SELECT count(*) FROM bronze WHERE amount IS NOT NULL) AS diff, (SELECT sum(n) FROM gold) - (SELECT count(*) FROM silver) AS gold" "n,d,diff,gold
$rows,$rows,0,0"
}
# The state weir keeps: table rows, checkpoints and the file manifest.
fingerprint() {
    "$WEIR" query --format csv "SELECT (SELECT count(*) FROM bronze) AS b, (SELECT count(*) FROM silver) AS s, (SELECT count(*) FROM spark_catalog._weir.checkpoints) AS c, (SELECT count(*) FROM spark_catalog._weir.files) AS f" 2>&1
}
in_private_mounts() { # can we mount file systems in a private namespace?
    [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null
}

land 300
run_weir run
expect_exit 0
check_exact

# --- A full disk --------------------------------------------------------------
mkdir -p full/landing full/mnt full/transformations
cp transformations/pipeline.sql full/transformations/
printf 'name: full\nstorage: mnt/storage\nconfiguration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\nlibraries:\n  - glob:\n      include: transformations/**\n' \
    >full/spark-pipeline.yml
python3 "$gen" orders full/landing 100 --files 1 --start 0
if in_private_mounts && unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m tmpfs "$1"' sh full/mnt 2>/dev/null; then
    echo "full disk: a 3 MB tmpfs" >&2
    (cd full && unshare -m --propagation private bash "$E2E_WORK/full-disk.sh" "$E2E_WORK/full/mnt" "$gen")
    expect_equal "first update on the small disk" "$(cat "$E2E_OUT/full-1.rc")" 0
    expect_equal "update on the full disk" "$(cat "$E2E_OUT/full-2.rc")" 1
    expect_file_contains "$E2E_OUT/full-2.out" "No space left on device"
    # The update fails in a flow, or (the disk already full) before it
    # could even be recorded: either way with an error.
    grep -qE "Run is FAILED|weir: error:" "$E2E_OUT/full-2.out" ||
        e2e_fail "the update on the full disk did not report a failure"
    expect_equal "rows after the failed update" "$(tail -n 1 "$E2E_OUT/full-2.rows")" 100
    expect_equal "update after the disk grew" "$(cat "$E2E_OUT/full-3.rc")" 0
    expect_equal "rows after recovery" "$(tail -n 1 "$E2E_OUT/full-3.rows")" "30100,30100"
else
    # No mounts here: the shim makes every write under storage fail.
    echo "full disk: simulated with the fault shim (ENOSPC), mounting is not allowed" >&2
    (cd full && "$WEIR" run >/dev/null 2>&1) || e2e_fail "first update of the full-disk project failed"
    python3 "$gen" orders full/landing 30000 --files 3 --start 1 --first-id 101
    (cd full && env WEIR_FAULT_ERRNO=ENOSPC WEIR_FAULT_PATH="$E2E_WORK/full/mnt/storage/*" \
        LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" "$WEIR" run >"$E2E_OUT/full-2.out" 2>&1) &&
        e2e_fail "the update on a full disk succeeded"
    expect_file_contains "$E2E_OUT/full-2.out" "No space left on device"
    (cd full && "$WEIR" run >/dev/null 2>&1) || e2e_fail "the update after the disk was freed failed"
    expect_equal "rows after recovery" "$(cd full && "$WEIR" query --format csv "SELECT count(*) AS n, count(DISTINCT order_id) AS d FROM bronze" | tail -n 1)" "30100,30100"
fi

# --- A read-only storage folder -------------------------------------------------
land 200
before=$(fingerprint)
if in_private_mounts; then
    echo "read-only storage: a read-only bind mount" >&2
    unshare -m --propagation private sh -c 'mount --bind storage storage && mount -o remount,bind,ro storage && "$WEIR" run' \
        >"$E2E_OUT/ro.out" 2>&1 && e2e_fail "an update on read-only storage succeeded"
elif [ "$(id -u)" != 0 ]; then
    echo "read-only storage: file modes" >&2
    chmod -R a-w storage
    "$WEIR" run >"$E2E_OUT/ro.out" 2>&1 && e2e_fail "an update on read-only storage succeeded"
    chmod -R u+w storage
else
    echo "read-only storage: simulated with the fault shim (EROFS)" >&2
    env WEIR_FAULT_ERRNO=EROFS WEIR_FAULT_OPS=open,write,pwrite,rename WEIR_FAULT_PATH="$E2E_WORK/storage/*" \
        LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" "$WEIR" run >"$E2E_OUT/ro.out" 2>&1 &&
        e2e_fail "an update on read-only storage succeeded"
fi
grep -qE "Read-only file system|Permission denied" "$E2E_OUT/ro.out" ||
    e2e_fail "the failed update on read-only storage does not say why: $(tail -n 3 "$E2E_OUT/ro.out")"
expect_equal "state after the refused update" "$(fingerprint)" "$before"
run_weir run
expect_exit 0
check_exact

# --- Damaged database files -----------------------------------------------------
# flip FILE: overwrite 16 bytes in every 12 KB of a file, past its header.
flip() {
    python3 -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for off in range(8192 + 100, len(b) - 16, 12288):
    b[off:off + 16] = bytes(x ^ 0xFF for x in b[off:off + 16])
open(p, "wb").write(b)' "$1"
}
cp storage/spark_catalog.duckdb "$E2E_OUT/catalog.bak"
land 100
for damage in flip truncate empty; do
    case $damage in
    flip) flip storage/spark_catalog.duckdb ;;
    truncate) truncate -s $(($(stat -c %s storage/spark_catalog.duckdb) / 2)) storage/spark_catalog.duckdb ;;
    empty) : >storage/spark_catalog.duckdb ;;
    esac
    run_weir run
    expect_exit 1
    expect_stdout_not_contains "Run is COMPLETED."
    grep -qE "Corrupt database file|not a valid DuckDB database file|Could not read enough bytes" \
        "$WEIR_STDOUT" "$WEIR_STDERR" || e2e_fail "$damage: the damage is not reported"
    grep -qF "spark_catalog.duckdb" "$WEIR_STDOUT" "$WEIR_STDERR" ||
        e2e_fail "$damage: the damaged file is not named"
    cp "$E2E_OUT/catalog.bak" storage/spark_catalog.duckdb
done
run_weir run
expect_exit 0
check_exact

# A corrupted write-ahead log: leave one behind (the checkpoint at close
# cannot write the database file), then damage the middle of it.
land 150
env WEIR_FAULT_ERRNO=EIO WEIR_FAULT_OPS=pwrite WEIR_FAULT_PATH="$E2E_WORK/storage/spark_catalog.duckdb" \
    LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" "$WEIR" run >"$E2E_OUT/wal.out" 2>&1 || true
expect_file_exists storage/spark_catalog.duckdb.wal
cp storage/spark_catalog.duckdb.wal "$E2E_OUT/wal.bak"
python3 -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for i in range(len(b) // 3, len(b) // 3 + 16):
    b[i] ^= 0xFF
open(p, "wb").write(b)' storage/spark_catalog.duckdb.wal
run_weir run
expect_exit 1
expect_stderr_contains "Corrupt WAL file"
expect_stderr_contains "spark_catalog.duckdb.wal"
cp "$E2E_OUT/wal.bak" storage/spark_catalog.duckdb.wal
run_weir run
expect_exit 0
check_exact

# A lost system database (weir.duckdb: the event log and the update list)
# loses history, not data: checkpoints live with the tables.
rm -f storage/weir.duckdb storage/weir.duckdb.wal
land 50
run_weir run
expect_exit 0
check_exact
