# AUTO CDC against an oracle: randomised change streams (out of order,
# redelivered changes, deletes before inserts, late changes across
# batches, sequence values shared by keys) land as files, one batch per
# update; after each update the SCD 1 table, the SCD 2 table and an SCD 2
# table tracking one column equal what cdc_oracle.py computes from the
# whole change log. WEIR_CDC_BATCHES (default 15) sets the batch count.
oracle="python3 $PWD/cdc_oracle.py"
batches=${WEIR_CDC_BATCHES:-15}

compare() { # after update $1
    $oracle scd1 log.jsonl >expected-latest.csv
    run_weir query --format csv "SELECT id, seq, name, v FROM latest ORDER BY id"
    expect_exit 0
    compare_files "SCD 1 after batch $1" expected-latest.csv "$WEIR_STDOUT"
    $oracle scd2 log.jsonl >expected-history.csv
    run_weir query --format csv "SELECT id, name, v, __START_AT, __END_AT FROM history ORDER BY id, __START_AT"
    compare_files "SCD 2 after batch $1" expected-history.csv "$WEIR_STDOUT"
    $oracle scd2 log.jsonl name >expected-names.csv
    run_weir query --format csv "SELECT id, name, v, __START_AT, __END_AT FROM names ORDER BY id, __START_AT"
    compare_files "SCD 2 tracking name after batch $1" expected-names.csv "$WEIR_STDOUT"
}

for b in $(seq 1 "$batches"); do
    $oracle gen log.jsonl landing "$b" 40
    run_weir run
    expect_exit 0
    compare "$b"
done
# Two batches in one update, then an update with nothing new.
$oracle gen log.jsonl landing $((batches + 1)) 40
$oracle gen log.jsonl landing $((batches + 2)) 40
run_weir run
expect_exit 0
compare $((batches + 2))
run_weir run
expect_exit 0
compare $((batches + 2))
# A full refresh rebuilds the same tables from the whole feed.
run_weir run --full-refresh-all
expect_exit 0
compare "full refresh"
e2e_pass
