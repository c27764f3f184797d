# weir run --sample N never writes a sink's real destination: sinks with a
# path (parquet, json, csv, Delta; relative or absolute) write below the
# sample storage's outputs/ folder, as weir test redirects them below its
# own folder (one mechanism, weir_run_options.sink_root). Before any real
# run, a sample run creates no destination; after one, the destinations
# (files and the Delta log) stay byte-identical through two sample runs,
# and the Delta sink is not stopped by a txn conflict with the real table.
# Kafka sinks: e2e/kafka-sample.

mkdir -p landing
far="$E2E_WORK/far"
rows() { # FILE FIRST LAST
    { echo "id,k"; for i in $(seq "$2" "$3"); do echo "$i,k$((i % 3))"; done; } >"$1"
}
rows landing/a.csv 1 40
# Every file of the real destinations, with its checksum.
outputs() { find out "$far" -type f 2>/dev/null | LC_ALL=C sort | xargs -r md5sum; }
sample_rows() { # PATH FORMAT [OPTIONS]: the rows a sample sink wrote there
    "$WEIR" query --spec inspect.yml --format csv \
        "SELECT count(*) AS n FROM read_files('$1/**/*.$2', format => '$2'${3-})" | tail -n 1
}

# A sample run before any real run creates no destination.
run_weir run --sample 5 --conf "abs_out=$far"
expect_exit 0
expect_stdout_contains "Sample run: sinks write below $E2E_WORK/storage-sample/outputs and Kafka sinks to its local topics, never to their destinations"
expect_stdout_contains "Run is COMPLETED."
expect_no_file out
expect_no_file "$far"
expect_no_file storage
# ... and wrote its sinks below the sample storage: the absolute path's
# parts too.
expect_dir_exists storage-sample/outputs/out/pq/k=k1
expect_equal "sample parquet rows" "$(sample_rows storage-sample/outputs/out/pq parquet)" 5
expect_equal "sample json rows" "$(sample_rows storage-sample/outputs/out/js json)" 5
expect_equal "sample csv rows" "$(sample_rows "storage-sample/outputs${far}" csv ", header => true")" 5
expect_query "SELECT count(*) AS n FROM delta.\`storage-sample/outputs/out/lake\`" "n
5" --spec inspect.yml

# A real run writes the destinations.
run_weir run --quiet --conf "abs_out=$far"
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM delta.\`out/lake\`" "n,d
40,40"
expect_equal "real parquet files" "$(find out/pq -name '*.parquet' | wc -l)" 3
before=$(outputs)
expect_equal "destination files" "$(echo "$before" | wc -l)" 9

# Two sample runs over new input leave every destination byte-identical.
rows landing/b.csv 41 60
for i in 1 2; do
    run_weir run --sample 5 --conf "abs_out=$far"
    expect_exit 0
    expect_stdout_contains "Run is COMPLETED."
    expect_stdout_not_contains "FAILED"
    expect_equal "destinations after sample run $i" "$(outputs)" "$before"
done
expect_equal "Delta log" "$(ls out/lake/_delta_log)" "00000000000000000000.json"
expect_equal "sample parquet rows" "$(sample_rows storage-sample/outputs/out/pq parquet)" 10
expect_query "SELECT count(*) AS n FROM delta.\`storage-sample/outputs/out/lake\`" "n
10" --spec inspect.yml
expect_equal "sample Delta log" "$(ls storage-sample/outputs/out/lake/_delta_log | tr '\n' ' ')" \
    "00000000000000000000.json 00000000000000000001.json "

# The next real run publishes the new input once.
run_weir run --quiet --conf "abs_out=$far"
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM delta.\`out/lake\`" "n,d
60,60"
