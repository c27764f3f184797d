# Auto Loader-like ingestion with read_files: types inferred (not all
# strings), the schema stored with the checkpoint and evolved additively,
# rescued data for what does not fit, _metadata, schema hints, a missing
# folder, failOnNewColumns, and many small files.

mkdir -p landing/events landing/people landing/strict
printf '{"id": 1, "kind": "view", "ts": "2025-01-01T10:00:00"}\n{"id": 2, "kind": "click", "ts": "2025-01-01T10:05:00"}\n' > landing/events/a.json
printf 'name,age,city\nann,31,Oslo\nbob,42,Rome\n' > landing/people/p1.csv
printf '{"id": 1}\n' > landing/strict/s1.json

run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
# Types are inferred: id is a number (timestamps stay strings, as in
# Spark without inferTimestamp).
run_weir query --format json "SELECT id, ts, source_file FROM events ORDER BY id LIMIT 1"
expect_stdout_contains '{"id":1,"ts":"2025-01-01T10:00:00","source_file":"a.json"}'
expect_query "SELECT name, age, city FROM people ORDER BY name" "name,age,city
ann,31,Oslo
bob,42,Rome"
# The missing folder: zero rows, and the event says so.
expect_query "SELECT count(*) AS n FROM later" "n
0"
run_weir events --format json
expect_stdout_contains '"missing": true'
expect_stdout_contains "does not exist yet; it read nothing"

# A new file with a new column (addNewColumns, the default): the table
# gains the column; old rows read NULL.
printf '{"id": 3, "kind": "buy", "ts": "2025-01-02T09:00:00", "amount": 9.5}\n' > landing/events/b.json
run_weir run
expect_exit 0
expect_query "SELECT id, amount FROM events ORDER BY id" "id,amount
1,
2,
3,9.5"

# Malformed lines and values of the wrong type land in _rescued_data with
# the file path; the update does not fail.
printf '{"id": 4, "kind": "view", "ts": "2025-01-03T00:00:00", "amount": "lots"}\n{this is not json\n{"id": 5, "kind": "view", "ts": "2025-01-03T01:00:00"}\n' > landing/events/c.json
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM events" "n
6"
expect_query "SELECT id, get_json_object(_rescued_data, '$.amount') AS amount, get_json_object(_rescued_data, '$._corrupt_record') AS corrupt, get_json_object(_rescued_data, '$._file_path') LIKE '%/landing/events/c.json' AS path_ok FROM events WHERE _rescued_data IS NOT NULL ORDER BY id NULLS LAST" "id,amount,corrupt,path_ok
4,lots,,true
,,{this is not json,true"
expect_query "SELECT count(*) AS n FROM events WHERE _rescued_data IS NULL" "n
4"

# failOnNewColumns: a new field fails the flow.
printf '{"id": 2, "extra": true}\n' > landing/strict/s2.json
run_weir run
expect_exit 1
expect_stdout_contains "UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_FILE"
expect_stdout_contains "extra"
rm landing/strict/s2.json

# Many small files: each ingested once, cheaply (the corrupt record of
# c.json has no id).
for i in $(seq 1 300); do printf '{"id": %d, "kind": "bulk", "ts": "2025-02-01T00:00:00"}\n' $((1000 + i)) > landing/events/bulk-$i.json; done
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM events" "n,d
306,305"
run_weir run
expect_query "SELECT count(*) AS n FROM events" "n
306"

# A dry run resolves the stored schema without writing.
run_weir dry-run
expect_exit 0
expect_stdout_matches '^    amount +double$'
expect_stdout_matches '^    _rescued_data +string$'
