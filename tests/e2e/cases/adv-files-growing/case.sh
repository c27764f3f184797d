# Files still being written. The manifest records each file's size and
# modification time: a file that changes while an update reads it is not
# committed by that update (the batch is read again without it; a later
# update ingests it whole); a file that changes after it was ingested is
# reported with a warning and, as in Auto Loader, not read again unless
# allowOverwrites is true (then it is read again in full).

mkdir -p landing/grown landing/overwritten landing/live
for i in $(seq 1 98); do echo "{\"id\": $i}"; done > landing/grown/f.json
cp landing/grown/f.json landing/overwritten/f.json
echo '{"id": 0}' > landing/live/a.json
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM grown" "n
98"

# Both files grow to 400 lines after they were ingested.
for i in $(seq 99 400); do echo "{\"id\": $i}"; done >> landing/grown/f.json
for i in $(seq 99 400); do echo "{\"id\": $i}"; done >> landing/overwritten/f.json
run_weir run
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.grown': 1 file changed after it was ingested and is not read again"
expect_stdout_contains "landing/grown/f.json (1069 bytes when ingested, 4692 now)"
expect_stdout_not_contains "landing/overwritten/f.json ("
expect_query "SELECT count(*) AS n FROM grown" "n
98"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM overwritten" "n,ids
498,400"
run_weir events --format json
expect_stdout_contains '"level":"WARN"'

# A file written while the update reads it: a writer appends to b.json
# until the update is over.
( while [ ! -e stop-writer ]; do echo '{"id": 7}' >> landing/live/b.json; done ) &
writer=$!
while [ ! -s landing/live/b.json ]; do sleep 0.01; done
run_weir run
touch stop-writer
wait "$writer"
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.live': 1 file changed while this update read it and is left for a later update"
expect_query "SELECT count(*) AS n FROM live WHERE file = 'b.json'" "n
0"
# Once it is stable, the next update ingests it whole.
run_weir run
expect_exit 0
expect_query "SELECT count(*) = $(wc -l < landing/live/b.json) AS whole FROM live WHERE file = 'b.json'" "whole
true"
