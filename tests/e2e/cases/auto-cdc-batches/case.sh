# AUTO CDC gives one table however a feed is split into batches: the same
# randomised change feed (late changes, deletes before inserts, redelivered
# changes, NULL values, truncates) lands in several splits, one update per
# batch, each on a storage of its own; after the last batch the SCD 1 and
# SCD 2 tables, with and without IGNORE NULL UPDATES, equal what
# auto-cdc-oracle's cdc_oracle.py computes by applying the whole feed in
# sequence order. With IGNORE NULL UPDATES a late change applies column
# by column (each column keeps the value of the newest change that gave
# it one), so a kill -9 that merges two updates' files into one batch
# changes nothing either (e2e/auto-cdc-kill).
src="$E2E_LIB/cases/auto-cdc-oracle"
oracle="python3 $src/cdc_oracle.py"
mkdir -p project/transformations
cp "$src/spark-pipeline.yml" project/
cp "$src/transformations/"*.sql project/transformations/

all_tables=$($oracle query) # the six targets in one query

# apply NAME DIR: a fresh copy of the project gets DIR's batches, an
# update each; the six tables in $NAME.csv.
apply() {
    rm -rf "run-$1"
    cp -R project "run-$1"
    mkdir "run-$1/landing"
    cd "run-$1"
    for b in "$E2E_WORK/$2"/batch-*.json; do
        cp "$b" landing/
        run_weir run --quiet
        expect_exit 0
    done
    run_weir query --format csv "$all_tables"
    expect_exit 0
    cd "$E2E_WORK"
    cp "$WEIR_STDOUT" "$1.csv"
}

# The issue's example: A = (1, 5, 'A', 1) and B = (1, 7, NULL, 2), in one
# batch, and B then A in two.
a='{"id": 1, "seq": 5, "op": "UPSERT", "name": "A", "v": 1}'
b='{"id": 1, "seq": 7, "op": "UPSERT", "name": null, "v": 2}'
mkdir -p two/one two/late
printf '%s\n%s\n' "$a" "$b" >two/one/batch-0001.json
printf '%s\n' "$b" >two/late/batch-0001.json
printf '%s\n' "$a" >two/late/batch-0002.json
for how in one late; do
    apply "two-$how" "two/$how"
    expect_equal "latest_inu ($how)" "$(grep '^latest_inu,' "two-$how.csv")" "latest_inu,1,7,A,2,,"
done

# A randomised feed, split three ways (ten in heavy/auto-cdc-batches): one
# batch, newest first, then shuffled and cut at random.
python3 "$E2E_CASE/split.py" gen feed.jsonl 200
$oracle all feed.jsonl >expected.csv
for seed in $(seq 0 "$(e2e_size 2 9)"); do
    python3 "$E2E_CASE/split.py" feed.jsonl "$seed" "split-$seed"
    apply "s$seed" "split-$seed"
    compare_files "the six tables of split $seed ($(ls "split-$seed" | wc -l) batches)" \
        expected.csv "s$seed.csv"
done
e2e_pass
