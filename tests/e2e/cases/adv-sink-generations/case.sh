# Sink batch files are named uniquely across storage generations, and a
# file already at a batch file's destination is never taken for that batch
# because its size matches (docs/reliability.md, "Sink files across
# storage generations").
#
# Before the fix, deleting the storage folder made the next update name its
# batch files exactly as the first update had; the new files had the same
# sizes as the old ones (same row count, values of the same length), so
# publishing took them for already published and dropped them: exit 0, the
# parquet, json, csv and Delta sinks kept only the old rows.

py=$(weir_python)
shim=${WEIR_FAULT_LIB:-$(dirname "$WEIR")/tests/libweirfault.so}
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

fill() { # LETTER: 100 source rows id 0..99, s = LETTER || id
    run_weir query "CREATE TABLE IF NOT EXISTS src (id BIGINT, s STRING)"
    expect_exit 0
    run_weir query "INSERT INTO src SELECT id, concat('$1', id) FROM range(0, 100) AS t(id)"
    expect_exit 0
}
# Rows per first letter of s in each folder sink: "pq:a=100,b=100 js:... cs:..."
folders() {
    "$py" - <<'PY'
import duckdb
out = []
for name, rel in (("pq", "read_parquet('out/pq/*.parquet')"),
                  ("js", "read_json('out/js/*.json', columns={'id': 'BIGINT', 's': 'VARCHAR'})"),
                  ("cs", "read_csv('out/cs/*.csv', header=false, columns={'id': 'BIGINT', 's': 'VARCHAR'})")):
    rows = duckdb.sql("SELECT left(s, 1) AS l, count(*) FROM %s GROUP BY l ORDER BY l" % rel).fetchall()
    out.append(name + ":" + ",".join("%s=%d" % r for r in rows))
print(" ".join(out))
PY
}
delta_rows() {
    expect_query "SELECT left(s, 1) AS l, count(*) AS n FROM delta.\`out/dl\` GROUP BY l ORDER BY l" "$1"
}

fill a
run_weir run
expect_exit 0
expect_equal "folder sinks after the first update" "$(folders)" "pq:a=100 js:a=100 cs:a=100"
delta_rows "l,n
a,100"

# The storage folder goes (the sinks' folders stay); the same row count
# again, with other values of the same length.
rm -rf storage
fill b
run_weir run
# The folder sinks receive the new rows next to the old ones.
expect_equal "folder sinks after the storage was recreated" "$(folders)" "pq:a=100,b=100 js:a=100,b=100 cs:a=100,b=100"
# The Delta table already has this flow's txn at this batch: refused before
# anything commits, not skipped.
expect_exit 1
expect_stdout_contains "[DELTA_TXN_CONFLICT]"
delta_rows "l,n
a,100"
# A full refresh of the sink starts a generation past the table's txn.
run_weir run --full-refresh dl
expect_exit 0
delta_rows "l,n
a,100
b,100"

# A committed batch whose publish failed (renames into out/pq fail), then a
# different file of the same size at its destination: the next update's
# recovery must not take it for the batch.
run_weir query "INSERT INTO src SELECT id, concat('c', id) FROM range(100, 200) AS t(id)"
env LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" WEIR_FAULT_OPS=rename WEIR_FAULT_ERRNO=EIO \
    WEIR_FAULT_PATH="$PWD/out/pq/*" "$WEIR" run >"$E2E_OUT/faulty.out" 2>&1 && st=0 || st=$?
expect_equal "the update with failing renames" "$st" 1
staged=$(find storage/sinks/pq -name 'part-*.parquet')
expect_equal "staged files of the unpublished batch" "$(echo "$staged" | wc -l)" 1
"$py" - "$staged" "out/pq/$(basename "$staged")" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0xff
open(sys.argv[2], "wb").write(data)
PY
run_weir run
expect_exit 1
expect_stdout_contains "[SINK_FILE_CONFLICT]"
expect_file_exists "$staged"
