# weir run --sample N: each external input (streaming and batch read_files,
# a path read, an external table in batch and as a stream) gives at most N
# rows, into <storage>-sample; the real storage is byte-identical after it;
# a streaming source advances within the sample (the next batch's first N
# rows); a normal run afterwards still reads everything; a bad N is a usage
# error (exit 2).

mkdir -p landing data
rows() { # FILE FIRST LAST
    { echo "id,name"; for i in $(seq "$2" "$3"); do echo "$i,n$i"; done; } >"$1"
}
rows landing/a.csv 1 50
rows data/big.csv 1 40
customers="CREATE TABLE customers (id BIGINT, name STRING); INSERT INTO customers SELECT i, 'c' || i FROM range(1, 31) t(i)"

# The real storage, from a normal run.
run_weir query "$customers"
expect_exit 0
run_weir run --quiet
expect_exit 0
storage_sum() { find storage -type f | LC_ALL=C sort | xargs md5sum; }
before=$(storage_sum)

# External tables are read from the real storage (read-only), not from
# the sample storage: a table of the same name there is not used.
run_weir query --spec inspect.yml "CREATE TABLE customers (id BIGINT, name STRING); INSERT INTO customers SELECT i, 'wrong' FROM range(101, 131) t(i)"
expect_exit 0

run_weir run --sample 5
expect_exit 0
expect_stdout_contains "Sample run: at most 5 rows of each external input, written to $E2E_WORK/storage-sample"
expect_stdout_contains "Run is COMPLETED."
expect_dir_exists storage-sample
counts="SELECT (SELECT count(*) FROM events_raw) AS events, (SELECT count(*) FROM big_rows) AS big, (SELECT count(*) FROM big_path) AS path, (SELECT count(*) FROM customers_copy) AS copy, (SELECT count(*) FROM customers_stream) AS stream, (SELECT n FROM events_count) AS counted"
expect_query "$counts" "events,big,path,copy,stream,counted
5,5,5,5,5,5" --spec inspect.yml
# The first rows of each input.
expect_query "SELECT min(id) AS lo, max(id) AS hi FROM events_raw" "lo,hi
1,5" --spec inspect.yml
expect_query "SELECT min(id) AS lo, max(id) AS hi, min(name) AS name FROM customers_copy" "lo,hi,name
1,5,c1" --spec inspect.yml
expect_query "SELECT max(id) AS hi FROM customers_stream" "hi
5" --spec inspect.yml
expect_equal "real storage after a sample run" "$(storage_sum)" "$before"

# New input: the stream advances, taking the first 5 rows of the new batch.
rows landing/b.csv 51 70
run_weir run --quiet --sample 5
expect_exit 0
expect_query "$counts" "events,big,path,copy,stream,counted
10,5,5,5,5,10" --spec inspect.yml
expect_query "SELECT min(id) AS lo, max(id) AS hi FROM events_raw WHERE id > 50" "lo,hi
51,55" --spec inspect.yml
expect_equal "real storage after two sample runs" "$(storage_sum)" "$before"

# A normal run reads everything (the new file too) into the real storage.
# (A path read of a CSV file has no header, as in Spark: its header line is
# a row too, 41.)
run_weir run --quiet
expect_exit 0
expect_query "$counts" "events,big,path,copy,stream,counted
70,40,41,30,30,70"
# ... and left the sample storage as it was.
expect_query "SELECT count(*) AS n FROM events_raw" "n
10" --spec inspect.yml

# A bad number of rows is a usage error, before anything is opened.
for bad in 0 x "" 5x 1e3 1000000000001; do
    run_weir run --sample "$bad"
    expect_exit 2
    expect_stderr_contains "--sample expects a number of rows from 1 to 10^12, got '$bad'"
done
run_weir run --sample=-3
expect_exit 2
expect_stderr_contains "--sample expects a number of rows from 1 to 10^12, got '-3'"
run_weir run --sample
expect_exit 2
expect_stderr_contains "option '--sample' needs a value"
