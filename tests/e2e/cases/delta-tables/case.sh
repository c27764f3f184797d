# Streaming tables and materialized views stored as Delta Lake tables
# (USING delta and the table property provider in SQL, format="delta" and
# spark.sql.sources.default in Python: py/) under
# <storage>/tables/<catalog>/<database>/:
# each batch is one commit with a txn action (the flow, the batch), read
# back by an independent reader (the deltalake package, check.py) with
# every row once; weir query and a materialized view read them through
# DuckDB's delta extension. The view is stored as Delta too: each refresh
# replaces its rows in one commit. A full refresh overwrites the table (a new
# version, history kept) and sends each row once more, not twice; changing
# a dataset's format is refused until its full refresh. A stream of a Delta
# table (STREAM t, readStream.table, readStream.format("delta").load(path) of
# a table deltalake writes) reads the versions appended since its last
# batch, each row once; a commit that removes rows stops it with Delta's
# error (DELTA_SOURCE_IGNORE_DELETE, DELTA_SOURCE_TABLE_IGNORE_CHANGES)
# unless pipelines.skipChangeCommits. The table property location puts a
# Delta table elsewhere; open.sql loads the delta extension.
py=$(weir_python)
T=storage/tables/spark_catalog/default
check_py=$PWD/check.py
check() { # DIR IDS VERSION [APP=TXN...] [--where SQL] [/ DIR ...]
    "$py" "$check_py" "$@" >"$E2E_OUT/check.txt" 2>&1 ||
        e2e_fail "$(cat "$E2E_OUT/check.txt")"
    e2e_pass
}
insert() { # FROM TO
    run_weir query "INSERT INTO src SELECT id, CASE id % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' END FROM range($1, $2) AS t(id)"
    expect_exit 0
}

# The table property location puts a Delta dataset's folder elsewhere.
cat >transformations/located.sql <<EOF
CREATE MATERIALIZED VIEW located
TBLPROPERTIES ('provider' = 'delta', 'location' = 'file://$PWD/lake/located')
AS SELECT k, count(*) AS n FROM events GROUP BY k;
EOF
run_weir query "CREATE TABLE src (id BIGINT, k STRING)"
expect_exit 0
insert 0 1000
run_weir run
expect_exit 0
check lake/located -1000 1
[ ! -e $T/located ] || e2e_fail "located is under the storage too"
# Version 0 creates the table, version 1 is the flow's batch 0.
check $T/events 1000 1 spark_catalog.default.events=0 weir.table_epoch=0 / \
      $T/totals -1000 1 spark_catalog.default.totals=0 / \
      $T/fives 1000 1 spark_catalog.default.fives=0 --where "id % 5 = 0"
expect_file_contains $T/totals/_delta_log/00000000000000000001.json '"operation":"WRITE","operationParameters":{"mode":"Overwrite"}'
expect_file_contains $T/events/_delta_log/00000000000000000000.json '"partitionColumns":["k"]'
expect_dir_exists $T/events/k=__HIVE_DEFAULT_PARTITION__
# A stock DuckDB shell reads the Delta datasets' views with the extension.
expect_file_contains storage/open.sql "LOAD delta;"
expect_query "SELECT k, n, amount, (SELECT count(DISTINCT id) FROM events) AS d FROM totals ORDER BY k" "k,n,amount,d
,333,166500.00,1000
a,334,166833.00,1000
b,333,166167.00,1000"
# Spark: the datasets pass, noting that the cluster needs delta-spark (the
# relative storage path is the one construct Spark rejects here: exit 2).
run_weir dry-run --target spark
expect_exit 2
expect_stdout_contains "events.sql:4:1: Spark runs Delta dataset differently: [DATA_SOURCE_NOT_FOUND]"
expect_stdout_contains "events.sql:8:1: Spark runs Delta dataset differently"
expect_stdout_contains "the cluster needs Delta Lake (the io.delta:delta-spark package"

# More rows: one more commit.
insert 1000 2500
run_weir run
expect_exit 0
check $T/events 2500 2 spark_catalog.default.events=1 / \
      $T/totals -2500 2 spark_catalog.default.totals=1 / \
      $T/fives 2500 2 spark_catalog.default.fives=1 --where "id % 5 = 0"
# fives' position is events' next log version (its batch read version 2).
expect_query "SELECT end_offset, rows FROM _weir.checkpoints WHERE flow = 'spark_catalog.default.fives' ORDER BY batch_id" "end_offset,rows
2,200
3,300"
expect_query "SELECT sum(n) AS n FROM totals" "n
2500"

# Full refresh: the table is overwritten (its files removed in one commit,
# history kept) and every row read again once, under a new txn generation.
# Its stream fives stops at the commit that removed events' rows, as
# Spark's does, until it is refreshed too.
run_weir run --full-refresh events
expect_exit 0
check $T/events 2500 4 spark_catalog.default.events=4294967296 weir.table_epoch=1
run_weir run
expect_exit 1
expect_stdout_contains "[DELTA_SOURCE_IGNORE_DELETE]"
expect_stdout_contains "its version 3 deletes rows"
check $T/fives 2500 2 --where "id % 5 = 0"
run_weir run --full-refresh fives
expect_exit 0
check $T/fives 2500 4 spark_catalog.default.fives=4294967296 --where "id % 5 = 0"

# Changing the format needs a full refresh: nothing is changed before.
sed -i 's/USING delta //' transformations/events.sql
insert 2500 2600
run_weir run
expect_exit 1
expect_stdout_contains "DATASET_FORMAT_CHANGED"
expect_stdout_contains "is stored as a Delta table but is now declared without USING delta"
check $T/events 2500 4
run_weir run --full-refresh events
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM events" "n,d
2600,2600"
# fives' position is a Delta version, not a row of the DuckDB table now.
run_weir run
expect_exit 1
expect_stdout_contains "[STREAMING_SOURCE_RESET]"

# Python: @dp.table(format="delta"), dp.create_streaming_table(format=...).
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
cd py
ext() { # FROM TO MODE: rows of the Delta table at ext, written by deltalake
    "$py" -c "import sys, pyarrow as pa; from deltalake import write_deltalake
write_deltalake('ext', pa.table({'id': pa.array(range($1, $2), pa.int64())}), mode='$3')"
}
ext 0 10 append
run_weir query "CREATE TABLE src (id BIGINT, k STRING)"
expect_exit 0
insert 0 100
run_weir run
expect_exit 0
check $T/evens 100 1 spark_catalog.default.evens=0 --where "id % 2 = 0" / \
      $T/odds 100 1 spark_catalog.default.odd_rows=0 --where "id % 2 = 1" / \
      $T/even_copy 100 1 --where "id % 2 = 0" / $T/ext_copy 10 1
expect_query "SELECT n FROM odd_count" "n
50"
expect_file_contains $T/odd_count/_delta_log/00000000000000000001.json '"mode":"Overwrite"'
ext 10 30 append
insert 100 200
run_weir run
expect_exit 0
check $T/even_copy 200 2 --where "id % 2 = 0" / $T/ext_copy 30 2
expect_stdout_contains "Version 2 of the Delta table spark_catalog.default.odd_count changed or deleted rows"
expect_query "SELECT n FROM count_log" "n
50"
# deltalake overwrites ext: its stream stops with Delta's error.
ext 0 5 overwrite
run_weir run
expect_exit 1
expect_stdout_contains "[DELTA_SOURCE_TABLE_IGNORE_CHANGES]"
expect_stdout_contains "its version 2 rewrites rows"
check $T/ext_copy 30 2
