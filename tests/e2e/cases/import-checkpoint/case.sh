# import_checkpoint (docs/import-checkpoint.md): a flow takes over a Spark
# Structured Streaming query's checkpoint on its first update. The
# checkpoints under spark-<version>/ are real Spark's, captured by
# tests/spark/checkpoint-fixtures.sh: a query read f01..f11 (two rows
# each) from /tmp/weir-checkpoint-fixture/in into spark-<version>/out;
# its copy here reads ./input, where f12.. arrive after it stopped.

make_input() { # FROM TO: the files the fixtures' query read, and later ones
    local i n
    mkdir -p input
    for i in $(seq "$1" "$2"); do
        n=$(printf %02d "$i")
        printf '{"id":%d,"name":"n%d"}\n{"id":%d,"name":"n%d"}\n' \
            $((i * 10)) $((i % 3)) $((i * 10 + 1)) $((i % 3)) >"input/f$n.json"
    done
}
use_checkpoint() { # FIXTURE DEST: a copy whose file paths point at ./input
    rm -rf "$2"
    mkdir -p "$(dirname "$2")"
    cp -R "$1" "$2"
    if [ -d "$2/sources/0" ]; then
        sed -i "s#file:///tmp/weir-checkpoint-fixture/in#file://$PWD/input#" "$2"/sources/0/*
    fi
}
tree_sum() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum); }
fresh() { rm -rf storage; }
# Every input row exactly once in what Spark wrote and what weir wrote.
expect_exactly_once() { # SPARK_OUT ROWS
    expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM (SELECT id FROM events UNION ALL SELECT id FROM read_files('$1/part-*.json', format => 'json'))" "n,d
$2,$2"
    expect_query "SELECT count(*) AS missing FROM (SELECT id FROM read_files('input', format => 'json') EXCEPT SELECT id FROM (SELECT id FROM events UNION ALL SELECT id FROM read_files('$1/part-*.json', format => 'json')))" "missing
0"
}

make_input 1 14
use_checkpoint spark-4.1/files cp/files
before=$(tree_sum cp/files)

# ---- the first update imports: f12..f14 are read, f01..f11 are not ------
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.migrate' imported the Spark Structured Streaming checkpoint $PWD/cp/files: it continues after the query's last committed batch"
expect_query "SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM events" "lo,hi,n
120,141,6"
expect_exactly_once spark-4.1/out 28
# The event log records the import: path, Spark batch id, offsets taken.
run_weir events --format json
expect_stdout_contains "\"import_checkpoint\": {\"path\": \"$PWD/cp/files\", \"query_id\": \"$(sed 's/.*"id":"\([^"]*\)".*/\1/' cp/files/metadata)\", \"batch_id\": 10, \"sources\": [{\"source\": \"files:$PWD/input\", \"kind\": \"files\", \"offset\": {\"logOffset\":10}, \"files\": 11}]}"
# The checkpoint folder is only read.
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/files)" "$before"

# ---- later updates ignore the option (the folder may even be gone) ------
mv cp/files cp/files.moved
make_input 15 15
run_weir run
expect_exit 0
expect_stdout_not_contains "imported"
expect_query "SELECT count(*) AS n FROM events" "n
8"
expect_exactly_once spark-4.1/out 30
mv cp/files.moved cp/files

# ---- a full refresh starts from an empty checkpoint, without import -----
run_weir run --full-refresh events
expect_exit 0
expect_stdout_not_contains "imported"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM events" "n,d
30,30"
run_weir run
expect_exit 0
expect_stdout_not_contains "imported"
expect_query "SELECT count(*) AS n FROM events" "n
30"
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/files)" "$before"

# ---- a flow name not used for the target before imports; the same does not
# A second flow into events imports another copy of the checkpoint (its
# sources: input2, where nothing new arrived: an import with no new data
# commits too, and the next update does not import again).
mkdir -p input2
cp input/f0*.json input/f10.json input/f11.json input2/
use_checkpoint spark-4.1/files cp/files2
sed -i "s#$PWD/input/#$PWD/input2/#" cp/files2/sources/0/*
cat > transformations/second.sql <<'SQL'
CREATE FLOW migrate_again
OPTIONS (import_checkpoint 'cp/files2')
AS INSERT INTO events BY NAME
SELECT id, name FROM STREAM read_files('input2', format => 'json',
                                       schema => 'id BIGINT, name STRING');
SQL
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.migrate_again' imported the Spark Structured Streaming checkpoint $PWD/cp/files2"
expect_query "SELECT count(*) AS n FROM events" "n
30"
make_input 16 16
cp input/f16.json input2/
run_weir run
expect_exit 0
expect_stdout_not_contains "imported"
expect_query "SELECT count(*) AS n FROM events" "n
34"
rm -rf transformations/second.sql input2 cp/files2 input/f15.json input/f16.json

# ---- Python: append_flow(import_checkpoint=...) through the shim ---------
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
(
    cd py
    run_weir run
    expect_exit 0
    expect_stdout_contains "Flow 'spark_catalog.default.migrate' imported the Spark Structured Streaming checkpoint $E2E_WORK/cp/files"
    expect_query "SELECT count(*) AS n, min(id) AS lo FROM events" "n,lo
6,120"
    run_weir run
    expect_exit 0
    expect_stdout_not_contains "imported"
)
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/files)" "$before"

# ---- Spark 3.5's checkpoint ----------------------------------------------
if [ -d spark-3.5 ]; then
    fresh
    use_checkpoint spark-3.5/files cp/files
    run_weir run
    expect_exit 0
    expect_stdout_contains "imported the Spark Structured Streaming checkpoint"
    expect_exactly_once spark-3.5/out 28
    fresh
    use_checkpoint spark-3.5/stateful cp/files
    run_weir run
    expect_exit 1
    expect_stdout_contains "holds the state of stateful operators ($PWD/cp/files/state/: operator 0)"
fi

# ---- errors: each fails the flow, naming the path and what is wrong ------
fail_with() { # TEXT...: the update fails, the flow's error says each
    run_weir run
    expect_exit 1
    local t
    for t in "$@"; do expect_stdout_contains "$t"; done
    expect_query "SELECT count(*) AS n FROM events" "n
0"
}
fresh
use_checkpoint spark-4.1/files cp/files

rm -rf cp/files
fail_with "[IMPORT_CHECKPOINT_NOT_FOUND]" "Spark checkpoint $PWD/cp/files does not exist or is not a folder"

mkdir -p cp/files
fail_with "[IMPORT_CHECKPOINT_NOT_FOUND]" "$PWD/cp/files is not a Structured Streaming checkpoint: its metadata file is missing"

# An offset without its commit: the query stopped inside batch 10.
use_checkpoint spark-4.1/files cp/files
rm cp/files/commits/10
fail_with "[IMPORT_CHECKPOINT_INCOMPLETE]" "Spark checkpoint $PWD/cp/files is incomplete: batch 10 has offsets/10 but no commits/10"

# No committed batch at all.
rm cp/files/commits/*
fail_with "[IMPORT_CHECKPOINT_INCOMPLETE]" "Spark checkpoint $PWD/cp/files has no committed batch"

# A source log entry missing.
use_checkpoint spark-4.1/files cp/files
rm cp/files/sources/0/10
fail_with "[IMPORT_CHECKPOINT_INCOMPLETE]" "Spark checkpoint $PWD/cp/files: $PWD/cp/files/sources/0/10 is missing"

# An offset log version weir does not read.
use_checkpoint spark-4.1/files cp/files
sed -i '1s/^v1$/v9/' cp/files/offsets/10
fail_with "[IMPORT_CHECKPOINT_UNSUPPORTED]" "$PWD/cp/files/offsets/10 is written in log version v9, weir reads up to v1"

# Operator state (a count per name): named, not imported.
use_checkpoint spark-4.1/stateful cp/files
fail_with "[IMPORT_CHECKPOINT_UNSUPPORTED]" "Spark checkpoint $PWD/cp/files holds the state of stateful operators ($PWD/cp/files/state/: operator 0 (stateStoreSave))" "weir does not import operator state"

# A source kind weir cannot import (a rate source's offset is a number).
use_checkpoint spark-4.1/files cp/files
sed -i '3s/.*/12/' cp/files/offsets/10
fail_with "[IMPORT_CHECKPOINT_UNSUPPORTED]" "source 0 is a source whose offset is a number (rate, socket, memory), which weir cannot import"

# Sources that do not match: a Kafka checkpoint, files of another folder,
# two sources for one.
use_checkpoint spark-4.1/files cp/files
sed -i '3s/.*/{"orders":{"0":5}}/' cp/files/offsets/10
fail_with "[IMPORT_CHECKPOINT_MISMATCH]" "Cannot import Spark checkpoint $PWD/cp/files into flow 'spark_catalog.default.migrate': the checkpoint's source 0 is a Kafka source, the flow's streaming source 0 is read_files(...)"
use_checkpoint spark-4.1/files cp/files
sed -i "s#$PWD/input/#/elsewhere/#" cp/files/sources/0/*
fail_with "[IMPORT_CHECKPOINT_MISMATCH]" "its file source 0 processed /elsewhere/f01.json, which is not under the flow's source path $PWD/input"
use_checkpoint spark-4.1/files cp/files
sed -i '3p' cp/files/offsets/10
fail_with "[IMPORT_CHECKPOINT_MISMATCH]" "the checkpoint's query read 2 sources, the flow reads 1 streaming source"

# The target must be a table the pipeline creates: a table that already
# holds rows (here created with weir query) is refused.
use_checkpoint spark-4.1/files cp/files
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/files)" "$before"
fresh
run_weir query "CREATE TABLE events AS SELECT 1::BIGINT AS id, 'x' AS name"
expect_exit 0
run_weir run
expect_exit 1
expect_stdout_contains "[IMPORT_CHECKPOINT_TARGET] Flow 'spark_catalog.default.migrate' cannot import Spark checkpoint cp/files: its target spark_catalog.default.events is an existing table (it holds 1 row(s) that the pipeline's flows did not write)"

# The SQL spelling's own errors.
fresh
cat > transformations/bad.sql <<'SQL'
CREATE FLOW bad OPTIONS (checkpoint 'cp/files')
AS INSERT INTO events BY NAME SELECT * FROM STREAM read_files('input');
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "Unknown flow option 'checkpoint': flows take OPTIONS (import_checkpoint '<folder>') only"
cat > transformations/bad.sql <<'SQL'
CREATE FLOW bad OPTIONS (import_checkpoint 'cp/files')
AS INSERT INTO ONCE events BY NAME SELECT 1 AS id;
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "A once flow cannot import a checkpoint"
rm transformations/bad.sql

# ---- kill -9 during the importing update: all or nothing ---------------
# The first batch reads a large new file, so the update is still inside
# the import's transaction when the flow is RUNNING: killed there, nothing
# is left, and the next update imports and reads everything exactly once.
use_checkpoint spark-4.1/files cp/files
big=100000 landed=0
for attempt in 1 2 3 4; do
    # A larger file each time the kill came after the commit (a fast
    # machine finished the batch before the kill).
    big=$((big * 2))
    fresh
    python3 -c "
with open('input/f15.json', 'w') as f:
    for i in range($big):
        f.write('{\"id\":%d,\"name\":\"big\"}\n' % (1000000 + i))
"
    "$WEIR" run >"$E2E_OUT/killed.out" 2>&1 &
    pid=$!
    for _ in $(seq 1 3000); do
        grep -q "migrate is RUNNING" "$E2E_OUT/killed.out" && break
        sleep 0.01
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "migrate is RUNNING" "$E2E_OUT/killed.out" || e2e_fail "the flow never ran"
    if ! grep -q "imported\|has COMPLETED" "$E2E_OUT/killed.out"; then
        landed=1
        break
    fi
    echo "attempt $attempt: the kill came after the commit ($big rows)" >>"$E2E_OUT/log"
done
[ "$landed" = 1 ] || e2e_fail "no kill landed inside the importing transaction"
e2e_pass
run_weir query "SELECT count(*) AS n FROM events"
run_weir run
expect_exit 0
expect_stdout_contains "imported the Spark Structured Streaming checkpoint"
expect_exactly_once spark-4.1/out $((28 + big))
expect_query "SELECT count(*) AS n FROM events" "n
$((6 + big))"

# And at random instants of importing updates (some land in loading or
# closing, which must be as safe).
start=$(date +%s%N)
fresh
run_weir run
expect_exit 0
dur_ms=$(( ($(date +%s%N) - start) / 1000000 ))
RANDOM=11
for t in 1 2 3 4; do
    fresh
    delay_ms=$(( RANDOM % (dur_ms + 1) ))
    "$WEIR" run >"$E2E_OUT/killed-$t.out" 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "trial $t: kill after ${delay_ms} ms" >>"$E2E_OUT/log"
    run_weir run
    expect_exit 0
    expect_exactly_once spark-4.1/out $((28 + big))
done
expect_equal "checkpoint folder unchanged" "$(tree_sum cp/files)" "$before"
