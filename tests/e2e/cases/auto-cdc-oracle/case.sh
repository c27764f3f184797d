# AUTO CDC against an oracle: randomised change streams (out of order,
# redelivered changes, deletes before inserts, late changes across
# batches, sequence values shared by keys) land as files, one batch per
# update; after each update the SCD 1 table, the SCD 2 table and an SCD 2
# table tracking one column equal what cdc_oracle.py computes from the
# whole change log; the same with IGNORE NULL UPDATES (SCD 1 also with
# truncates). Keys 1-12 change in order, so each batch mixes keys that
# continue their history with keys rebuilt from the log. The oracle knows nothing of batches: it applies the whole log in
# sequence order, so every table must be independent of how the feed was
# split (e2e/auto-cdc-batches tries many splits of one feed).
# WEIR_CDC_BATCHES sets the batch count (6 in the default suite, 15 in
# heavy/auto-cdc-oracle).
oracle="python3 $PWD/cdc_oracle.py"
batches=${WEIR_CDC_BATCHES:-$(e2e_size 6 15)}
all_tables=$($oracle query) # the six targets in one query

compare() { # after update $1
    $oracle all log.jsonl >expected.csv
    run_weir query --format csv "$all_tables"
    expect_exit 0
    compare_files "the six tables after batch $1" expected.csv "$WEIR_STDOUT"
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
