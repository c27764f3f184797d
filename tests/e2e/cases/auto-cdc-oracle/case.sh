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

history() { # $1 table, $2 label, oracle scd2 arguments after the log
    local t=$1 label=$2
    shift 2
    $oracle scd2 log.jsonl "$@" >"expected-$t.csv"
    run_weir query --format csv "SELECT id, name, v, __START_AT, __END_AT FROM $t ORDER BY id, __START_AT"
    expect_exit 0
    compare_files "$label" "expected-$t.csv" "$WEIR_STDOUT"
}

compare() { # after update $1 [once: the oracle replays the log as one update]
    $oracle scd1 log.jsonl >expected-latest.csv
    run_weir query --format csv "SELECT id, seq, name, v FROM latest ORDER BY id"
    expect_exit 0
    compare_files "SCD 1 after batch $1" expected-latest.csv "$WEIR_STDOUT"
    $oracle scd1-inu log.jsonl ${2:-} >expected-latest-inu.csv
    run_weir query --format csv "SELECT id, seq, name, v FROM latest_inu ORDER BY id"
    expect_exit 0
    compare_files "SCD 1, IGNORE NULL UPDATES and truncates, after batch $1" expected-latest-inu.csv "$WEIR_STDOUT"
    history history "SCD 2 after batch $1"
    history names "SCD 2 tracking name after batch $1" name
    history history_inu "SCD 2, IGNORE NULL UPDATES, after batch $1" name,v inu
    history names_inu "SCD 2 tracking name, IGNORE NULL UPDATES, after batch $1" name inu
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
