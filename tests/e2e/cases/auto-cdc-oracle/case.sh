# AUTO CDC against an oracle: randomised change streams (out of order,
# redelivered changes, deletes before inserts, late changes across
# batches, sequence values shared by keys) land as files, one batch per
# update; after each update the SCD 1 table, the SCD 2 table and an SCD 2
# table tracking one column equal what cdc_oracle.py computes from the
# whole change log; the same with IGNORE NULL UPDATES (SCD 1 also with
# truncates, replayed update by update). Keys 1-12 change in order, so each
# batch mixes keys that continue their history with keys rebuilt from the
# log. WEIR_CDC_BATCHES (default 15) sets the batch count.
oracle="python3 $PWD/cdc_oracle.py"
batches=${WEIR_CDC_BATCHES:-15}
# The six targets in one query (one weir start per comparison).
scd1_rows() { echo "SELECT '$1' AS tbl, id, seq, name, v, NULL::BIGINT AS start_at, NULL::BIGINT AS end_at FROM $1"; }
scd2_rows() { echo "SELECT '$1', id, NULL, name, v, __START_AT, __END_AT FROM $1"; }
all_tables="$(scd1_rows latest) UNION ALL $(scd1_rows latest_inu) UNION ALL
$(scd2_rows history) UNION ALL $(scd2_rows names) UNION ALL
$(scd2_rows history_inu) UNION ALL $(scd2_rows names_inu)
ORDER BY tbl, id, start_at"

compare() { # after update $1 [once: the oracle replays the log as one update]
    $oracle all log.jsonl ${2:-} >expected.csv
    run_weir query --format csv "$all_tables"
    expect_exit 0
    compare_files "the six tables after batch $1" expected.csv "$WEIR_STDOUT"
}

for b in $(seq 1 "$batches"); do
    $oracle gen log.jsonl landing "$b" 40
    run_weir run
    expect_exit 0
    $oracle mark log.jsonl
    compare "$b"
done
# Two batches in one update, then an update with nothing new.
$oracle gen log.jsonl landing $((batches + 1)) 40
$oracle gen log.jsonl landing $((batches + 2)) 40
run_weir run
expect_exit 0
$oracle mark log.jsonl
compare $((batches + 2))
run_weir run
expect_exit 0
$oracle mark log.jsonl
compare $((batches + 2))
# A full refresh rebuilds the same tables from the whole feed.
run_weir run --full-refresh-all
expect_exit 0
compare "full refresh" once
e2e_pass
