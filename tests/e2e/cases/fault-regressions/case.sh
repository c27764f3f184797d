# Regressions for the bugs the reliability work found (docs/reliability.md),
# one check each: every check states the correct behaviour and failed while
# the bug was there. Run one or a few by hand:
#
#   bash tests/e2e/run-case.sh tests/e2e/cases/fault-regressions build/weir
#   CHECKS="deleted-checkpoints cte-twice" bash tests/e2e/run-case.sh ...
#
# The checks that sweep fault positions try a spread of them in the
# default suite (the first, the last, every 6th or 8th from an offset that
# changes from run to run: e2e_spread in lib.sh) and every one in
# heavy/fault-regressions (WEIR_E2E_HEAVY=1).

gen="$E2E_LIB/../../bench/gen.py"
shim=${WEIR_FAULT_LIB:-$(dirname "$WEIR")/tests/libweirfault.so}
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
py=$(weir_python)

# A fresh copy of the pipeline (bronze from files, silver from bronze and
# from the external table `manual`, gold) with one update done.
fresh() { # folder
    rm -rf "$E2E_WORK/$1"
    mkdir -p "$E2E_WORK/$1"
    cp -R "$E2E_WORK/spark-pipeline.yml" "$E2E_WORK/transformations" "$E2E_WORK/$1/"
    cd "$E2E_WORK/$1"
    "$WEIR" query "CREATE TABLE manual (order_id BIGINT, customer_id BIGINT, amount DOUBLE)" >/dev/null
    python3 "$gen" orders landing 1000 --files 2 --start 0
    "$WEIR" run >/dev/null
}
more_data() { # second batch: 1000 more orders, 50 manual rows
    python3 "$gen" orders landing 1000 --files 2 --start 2 --first-id 1001
    "$WEIR" query "INSERT INTO manual SELECT 10000000 + id, 1, 9.5 FROM range(0, 50)" >/dev/null
}
# bronze rows, distinct ids; silver rows, distinct ids, longest status
state() {
    "$WEIR" query --format csv "SELECT (SELECT count(*) FROM bronze) AS b, (SELECT count(DISTINCT order_id) FROM bronze) AS bd, (SELECT count(*) FROM silver) AS s, (SELECT count(DISTINCT order_id) FROM silver) AS sd, (SELECT max(length(status)) FROM silver) AS ls" | tail -n 1
}
# Edit the storage with stock DuckDB, as a user could (weir query refuses
# to touch weir's own state).
stock_duckdb() { # SQL (on storage/spark_catalog.duckdb)
    "$py" -c 'import duckdb, sys; duckdb.connect("storage/spark_catalog.duckdb").execute(sys.argv[1])' "$1"
}
faulty() { # VAR=VALUE...: weir run under the fault shim
    env "$@" LD_PRELOAD="$shim" ASAN_OPTIONS="$asan" "$WEIR" run >"$E2E_OUT/faulty.out" 2>&1
}

# --- the checks (each prints why it fails, returns 1) --------------------------

# DuckDB 1.4.4 + in-process flow retries: a commit whose WAL write fails
# once, while another flow appends to the same table (silver, or
# _weir.checkpoints), leaves the table's string data damaged; the retry's
# rows and checkpoint come out with concatenated values (a status of
# thousands of characters, a checkpoint row whose flow name is doubled), so
# the next update reprocesses the batch: duplicates.
check_one_shot_eio_retry() {
    local n st bad=0
    for n in $(e2e_spread 8 $(seq 1 16)); do
        fresh "eio-$n"
        more_data
        faulty WEIR_FAULT_OPS=write,fsync WEIR_FAULT_PATH="*/spark_catalog.duckdb.wal" \
            WEIR_FAULT_ERRNO=EIO WEIR_FAULT_NTH="$n" WEIR_FAULT_COUNT=1 || true
        "$WEIR" run >/dev/null 2>&1 || true
        st=$(state)
        case $st in
        2000,2000,*) ;;
        *) echo "  NTH=$n: bronze wrong: $st"; bad=1; continue ;;
        esac
        IFS=, read -r _ _ s sd ls <<<"$st"
        if [ "$s" != "$sd" ] || [ "$ls" -gt 9 ]; then
            echo "  NTH=$n: silver has $s rows for $sd ids, longest status $ls characters"
            bad=1
        fi
    done
    return $bad
}

# A failed write of the system database at the end of an update (the
# update's end state, the last batch of events, open.sql) is ignored: the
# run prints "Run is COMPLETED." and exits 0, but weir.updates keeps the
# update RUNNING and its last events are lost.
check_events_lost_on_eio() {
    local n bad=0 id st
    for n in $(e2e_spread 6 $(seq 1 12)); do
        fresh "ev-$n"
        more_data
        faulty WEIR_FAULT_PATH="*/weir.duckdb.wal" WEIR_FAULT_ERRNO=EIO WEIR_FAULT_NTH="$n" && st=0 || st=$?
        [ "$st" = 0 ] || continue
        id=$(sed -n 's/.*Update \([0-9a-f]*\) wrote.*/\1/p' "$E2E_OUT/faulty.out")
        if [ "$("$WEIR" query --format csv "SELECT count(*) AS n FROM weir.updates WHERE state = 'COMPLETED' AND starts_with(update_id, '$id')" | tail -n 1)" != 1 ]; then
            echo "  NTH=$n: exit 0 and 'Run is COMPLETED.', but update $id is not COMPLETED in weir.updates"
            bad=1
        fi
    done
    return $bad
}

# The update's RUNNING record is written while its flows start (on a
# thread of its own): when that write fails, no batch may commit (a batch
# of an update weir.updates does not know), the run fails saying why, and
# the next update reads the data once.
check_running_record_fails() {
    fresh running-record
    more_data
    # A new dataset: its table is not created either.
    echo "CREATE MATERIALIZED VIEW extra AS SELECT 1 AS x;" > transformations/extra.sql
    local st=0
    faulty WEIR_FAULT_PATH="*/weir.duckdb.wal" WEIR_FAULT_ERRNO=EIO WEIR_FAULT_NTH=1 \
        WEIR_FAULT_COUNT=1 || st=$?
    if [ "$st" != 1 ]; then
        echo "  exit $st when the update's RUNNING record could not be written"
        return 1
    fi
    grep -q "record in weir.duckdb could not be written" "$E2E_OUT/faulty.out" ||
        { echo "  no reason given: $(tail -n 3 "$E2E_OUT/faulty.out")"; return 1; }
    case $(state) in
    1000,1000,*) ;;
    *) echo "  batches committed without the update's record: $(state)"; return 1 ;;
    esac
    if "$WEIR" query "SELECT * FROM extra" >/dev/null 2>&1; then
        echo "  a table created without the update's record"
        return 1
    fi
    "$WEIR" run >/dev/null 2>&1 || { echo "  the next update failed"; return 1; }
    "$WEIR" query "SELECT * FROM extra" >/dev/null 2>&1 ||
        { echo "  the next update did not create the new table"; return 1; }
    case $(state) in
    2000,2000,*) ;;
    *) echo "  after the next update: $(state)"; return 1 ;;
    esac
}

# Deleting checkpoint rows makes the next update reprocess what they
# covered (duplicates in silver) instead of failing with a clear error.
check_deleted_checkpoints() {
    fresh deleted-checkpoints
    stock_duckdb "DELETE FROM _weir.checkpoints WHERE target LIKE '%silver'"
    local st=0
    "$WEIR" run >"$E2E_OUT/dc.out" 2>&1 || st=$?
    if [ "$st" = 0 ]; then
        echo "  the update succeeded without its checkpoints: $(state) (bronze, ids, silver, ids, len)"
        return 1
    fi
    grep -q "CHECKPOINT_MISSING" "$E2E_OUT/dc.out" || { echo "  failed, but without naming the missing checkpoint"; return 1; }
    # bronze is intact; a full refresh of silver rebuilds it without duplicates
    "$WEIR" run --full-refresh silver >/dev/null 2>&1 || { echo "  --full-refresh silver failed"; return 1; }
    local s
    s=$(state)
    case $s in 1000,1000,*) ;; *) echo "  after the full refresh: $s"; return 1 ;; esac
    IFS=, read -r _ _ s1 s2 _ <<<"$s"
    [ "$s1" = "$s2" ] || { echo "  after the full refresh: $s"; return 1; }
}

# Deleting the file manifest makes the next update ingest every file again.
check_deleted_manifest() {
    fresh deleted-manifest
    stock_duckdb "DELETE FROM _weir.files"
    local st=0
    "$WEIR" run >"$E2E_OUT/dm.out" 2>&1 || st=$?
    if [ "$st" = 0 ]; then
        echo "  the update succeeded without the manifest: $(state)"
        return 1
    fi
    grep -q "FILE_MANIFEST_MISSING" "$E2E_OUT/dm.out" || { echo "  failed without naming the manifest"; return 1; }
    [ "$(state | cut -d, -f1)" = 1000 ] || { echo "  bronze changed: $(state)"; return 1; }
}

# Deleting a catalog file while weir.duckdb remembers updates that wrote
# it: the next update silently starts from nothing (a sink would receive
# everything again) instead of saying the catalog is missing.
check_deleted_catalog() {
    fresh deleted-catalog
    "$WEIR" query "DROP TABLE manual" >/dev/null
    sed -i '/CREATE FLOW manual_orders/,/FROM STREAM(manual);/d' transformations/pipeline.sql
    "$WEIR" run >/dev/null 2>&1
    rm -f storage/spark_catalog.duckdb storage/spark_catalog.duckdb.wal
    local st=0
    "$WEIR" run >"$E2E_OUT/dcat.out" 2>&1 || st=$?
    if [ "$st" = 0 ]; then
        echo "  the update recomputed everything from an empty catalog without a word"
        return 1
    fi
    grep -q "spark_catalog.duckdb" "$E2E_OUT/dcat.out" || { echo "  failed without naming the file"; return 1; }
    [ "$st" = 1 ] || { echo "  exit $st, not 1"; return 1; }
    # the user's word: rebuild everything from the sources
    "$WEIR" run --full-refresh-all >/dev/null 2>&1 || { echo "  --full-refresh-all failed"; return 1; }
    case $("$WEIR" query --format csv "SELECT count(*) AS n FROM bronze" | tail -n 1) in
    1000) ;;
    *) echo "  bronze after --full-refresh-all: $(state)"; return 1 ;;
    esac
}

# `run --refresh mv --full-refresh mv` is a usage error found after the
# storage was created and the update recorded: it stays RUNNING forever.
check_refresh_overlap() {
    rm -rf "$E2E_WORK/overlap" && mkdir -p "$E2E_WORK/overlap/transformations" && cd "$E2E_WORK/overlap"
    printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
    echo "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x;" >transformations/a.sql
    "$WEIR" run --refresh mv --full-refresh mv >/dev/null 2>&1 || true
    if [ -e storage ]; then
        echo "  storage created; updates: $("$WEIR" query --format csv "SELECT state FROM weir.updates" | tail -n +2 | tr '\n' ' ')"
        return 1
    fi
}

# An update killed with SIGKILL stays RUNNING in weir.updates forever, even
# after later updates (the next update could mark it as interrupted).
check_killed_update_stays_running() {
    fresh killed
    more_data
    "$WEIR" run >"$E2E_OUT/killed.out" 2>&1 &
    local pid=$! i
    for i in $(seq 1 500); do grep -q "is RUNNING" "$E2E_OUT/killed.out" && break; sleep 0.01; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    "$WEIR" run >/dev/null 2>&1
    local n
    n=$("$WEIR" query --format csv "SELECT count(*) AS n FROM weir.updates WHERE state = 'RUNNING'" | tail -n 1)
    [ "$n" = 0 ] || { echo "  $n killed update(s) still RUNNING after the next update"; return 1; }
}

# `weir query` may rewrite weir's own state, e.g. delete checkpoints (then
# see deleted-checkpoints): the _weir schemas should be read-only to it.
check_query_writes_weir_state() {
    fresh query-writes
    if "$WEIR" query "DELETE FROM spark_catalog._weir.checkpoints" >/dev/null 2>&1; then
        echo "  weir query deleted the checkpoints"
        return 1
    fi
}

# PARTITIONED BY a column the dataset does not have: accepted and run.
check_partition_unknown_column() {
    rm -rf "$E2E_WORK/part" && mkdir -p "$E2E_WORK/part/transformations" && cd "$E2E_WORK/part"
    printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
    echo "CREATE MATERIALIZED VIEW mv PARTITIONED BY (nope) AS SELECT 1 AS x;" >transformations/a.sql
    "$WEIR" dry-run >/dev/null 2>&1 && { echo "  accepted"; return 1; }
    return 0
}

# A CSV file with header=true whose data row has more fields than the
# header: the file's schema is sniffed from the data row, whose values
# ("3", "c", "extra", "more") become new columns of the streaming table
# (schema evolution), instead of the extra fields being dropped or rescued
# as Spark does (header = the first line, always).
check_csv_header_misdetected() {
    rm -rf "$E2E_WORK/csv" && mkdir -p "$E2E_WORK/csv/transformations" "$E2E_WORK/csv/landing" && cd "$E2E_WORK/csv"
    printf 'name: p\nstorage: storage\nconfiguration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
    echo "CREATE STREAMING TABLE st AS SELECT * FROM STREAM read_files('landing', format => 'csv', header => 'true');" >transformations/a.sql
    printf 'id,name\n1,a\n2,b\n' >landing/a.csv
    "$WEIR" run >/dev/null 2>&1
    printf 'id,name\n3,c,extra,more\n' >landing/b.csv
    "$WEIR" run >/dev/null 2>&1 || return 0 # a clear failure is fine
    local cols n
    cols=$("$WEIR" query --format csv "DESCRIBE st" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
    n=$("$WEIR" query --format csv "SELECT count(*) AS n FROM st WHERE id = 3" | tail -n 1)
    if [ "$n" != 1 ] || [ "$cols" != "id name _rescued_data " ] && [ "$cols" != "id name " ]; then
        echo "  row 3 present: $n; columns now: $cols"
        return 1
    fi
}

# A CTE referenced twice: "internal error: unknown table reference"
# (engine/resolve.c on_relation finds no input for the second reference).
check_cte_twice() {
    rm -rf "$E2E_WORK/cte" && mkdir -p "$E2E_WORK/cte/transformations" && cd "$E2E_WORK/cte"
    printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
    echo "CREATE MATERIALIZED VIEW mv AS WITH c AS (SELECT 1 AS x) SELECT a.x FROM c a, c b;" >transformations/a.sql
    "$WEIR" dry-run >"$E2E_OUT/cte.out" 2>&1 || { echo "  $(grep -m1 error "$E2E_OUT/cte.out")"; return 1; }
}

# A Delta sink whose log version another writer took first (link says
# EEXIST) reads the log again, retries and succeeds, but the clash stayed in
# the flow's error: the flow was reported FAILED, and its retry "wrote 0
# rows" (sinks/delta.c).
check_delta_version_taken() {
    rm -rf "$E2E_WORK/dv" && mkdir -p "$E2E_WORK/dv/transformations" && cd "$E2E_WORK/dv"
    printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
    printf "CREATE SINK lake USING delta OPTIONS (path 'out/lake');\nCREATE FLOW to_lake AS INSERT INTO lake BY NAME SELECT id FROM STREAM src;\n" >transformations/a.sql
    "$WEIR" query "CREATE TABLE src AS SELECT range AS id FROM range(5)" >/dev/null
    faulty WEIR_FAULT_OPS=link WEIR_FAULT_ERRNO=EEXIST WEIR_FAULT_PATH="*/_delta_log/*" \
        WEIR_FAULT_COUNT=1 || { echo "  the run failed: $(grep -m1 -A1 FAILED "$E2E_OUT/faulty.out")"; return 1; }
    grep -q "has FAILED" "$E2E_OUT/faulty.out" && { echo "  a flow was reported FAILED"; return 1; }
    grep -q "wrote 5 rows" "$E2E_OUT/faulty.out" || { echo "  $(grep -m1 wrote "$E2E_OUT/faulty.out")"; return 1; }
    local n
    n=$(cat out/lake/_delta_log/*.json | grep -c '"add"')
    [ "$n" = 1 ] || { echo "  the Delta log has $n data files, expected 1"; return 1; }
}

# A file of a glob that vanishes between the listing and its stat (stat
# says ENOENT) is left for a later update, but the stat's error stayed in
# the flow's: the flow failed though its batch was committed
# (sources/files.c push_file). Each of weir's stat calls on the file fails
# once in turn (counted by a traced run first).
check_file_vanishes_while_listed() {
    vanish_sweep fv stat "*/in/vanish.csv" \
        "read_files('in/*.csv', format => 'csv')" in/vanish.csv
}

# The same for a subfolder of a recursive listing deleted between reading
# its parent and opening it (opendir says ENOENT): the whole listing
# failed, "cannot list" (util/fs.c dir_names).
check_folder_vanishes_while_listed() {
    vanish_sweep dv2 opendir "*/in/sub" \
        "read_files('in', format => 'csv', recursiveFileLookup => true)" in/sub/vanish.csv
}

# vanish_sweep DIR OP PATTERN READ FILE: a streaming table reading READ
# over in/one.csv and FILE; every call OP makes on PATTERN fails with
# ENOENT in turn, one run each; each run succeeds, and the next run reads
# what the first left out (4 rows: headers are rows).
vanish_sweep() {
    local dir=$1 op=$2 pattern=$3 read=$4 file=$5 n calls bad=0 c hit=0
    for n in $(seq 0 40); do
        rm -rf "$E2E_WORK/$dir" && mkdir -p "$E2E_WORK/$dir/transformations" "$E2E_WORK/$dir/$(dirname "$file")" && cd "$E2E_WORK/$dir"
        printf 'name: p\nstorage: storage\nconfiguration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\nlibraries:\n  - glob:\n      include: transformations/**\n' >spark-pipeline.yml
        echo "CREATE STREAMING TABLE t AS SELECT * FROM STREAM $read;" >transformations/a.sql
        printf 'a,b\n1,2\n' >in/one.csv
        printf 'a,b\n3,4\n' >"$file"
        if [ "$n" = 0 ]; then # count the calls
            faulty WEIR_FAULT_OPS="$op" WEIR_FAULT_ERRNO=ENOENT WEIR_FAULT_PATH="$pattern" \
                WEIR_FAULT_NTH=0 WEIR_FAULT_LOG="$E2E_WORK/$dir.calls" || true
            calls=$(wc -l <"$E2E_WORK/$dir.calls")
            [ "$calls" -gt 0 ] || { echo "  no $op call on $pattern"; return 1; }
            continue
        fi
        [ "$n" -le "$calls" ] || break
        grep -qx "$n" <<<"$(e2e_spread 6 $(seq 1 "$calls"))" || continue
        faulty WEIR_FAULT_OPS="$op" WEIR_FAULT_ERRNO=ENOENT WEIR_FAULT_PATH="$pattern" \
            WEIR_FAULT_NTH="$n" WEIR_FAULT_COUNT=1 ||
            { echo "  NTH=$n: the run failed: $(grep -m1 -A1 FAILED "$E2E_OUT/faulty.out")"; bad=1; continue; }
        "$WEIR" run >/dev/null 2>&1 || { echo "  NTH=$n: the next run failed"; bad=1; continue; }
        c=$("$WEIR" query --format csv "SELECT count(*) FROM t" | tail -n 1)
        [ "$c" = 4 ] || { echo "  NTH=$n: t has $c rows, expected 4"; bad=1; }
        hit=$((hit + 1))
    done
    [ "$hit" -gt 0 ] || { echo "  no run checked"; bad=1; }
    return $bad
}

# A source's file that cannot be read for a moment (EIO on read, as a
# failing device or network share would): DuckDB says "IO Error" as it does
# for a failed write of the storage, and any "IO Error" counted as one
# (store/storage.c weir__storage_write_error): the flow was not retried,
# the storage was marked failed and the update FAILED. It is the source's
# error: the flow is retried and the update completes with every row once.
# (The first read of a new file is a probe that tolerates failing; the
# next is the flow's scan. The faults hit one file: its reads follow that
# order, where the two files' first reads, in parallel, may both come
# before either scan. Three faults fail the scan once whether the probe
# reads once or twice; a retry's probe may take the third.)
check_source_read_eio_retried() {
    fresh src-eio
    more_data
    faulty WEIR_FAULT_OPS=read WEIR_FAULT_PATH="*/landing/part-00002.json" WEIR_FAULT_ERRNO=EIO \
        WEIR_FAULT_NTH=1 WEIR_FAULT_COUNT=3 WEIR_FAULT_LOG="$E2E_OUT/src-eio.calls" ||
        { echo "  the run failed: $(grep -m2 -E 'FAILED|error' "$E2E_OUT/faulty.out")"; return 1; }
    cp "$E2E_OUT/faulty.out" "$E2E_OUT/src-eio.out"
    grep -q ' fail$' "$E2E_OUT/src-eio.calls" || { echo "  no read failed"; return 1; }
    grep -q "bronze' has FAILED" "$E2E_OUT/src-eio.out" || { echo "  bronze did not fail once"; return 1; }
    grep -q "Run is COMPLETED" "$E2E_OUT/src-eio.out" || { echo "  the update did not complete"; return 1; }
    ! grep -q STORAGE_WRITE_FAILED "$E2E_OUT/src-eio.out" || { echo "  called a storage write failure"; return 1; }
    "$WEIR" run >/dev/null 2>&1 || { echo "  the next run failed"; return 1; }
    local st
    st=$(state)
    case $st in
    2000,2000,*) ;;
    *) echo "  bronze wrong: $st"; return 1 ;;
    esac
    IFS=, read -r _ _ s sd _ <<<"$st"
    [ "$s" = "$sd" ] || { echo "  silver has $s rows for $sd ids"; return 1; }
}

all="one_shot_eio_retry source_read_eio_retried events_lost_on_eio running_record_fails deleted_checkpoints deleted_manifest
deleted_catalog refresh_overlap killed_update_stays_running
query_writes_weir_state partition_unknown_column csv_header_misdetected
cte_twice delta_version_taken file_vanishes_while_listed
folder_vanishes_while_listed"
selected=${CHECKS:-$all}
failed=()
for name in $selected; do
    name=${name//-/_}
    echo "--- $name" >>"$E2E_OUT/checks"
    if (set +e; "check_$name") >>"$E2E_OUT/checks" 2>&1; then
        echo "ok:     $name" >&2
        e2e_pass
    else
        echo "FAILED: $name" >&2
        failed+=("$name")
    fi
    cd "$E2E_WORK"
done
[ ${#failed[@]} = 0 ] || e2e_fail "${#failed[@]} regression checks failed: ${failed[*]}
$(cat "$E2E_OUT/checks")"
