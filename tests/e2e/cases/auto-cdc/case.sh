# AUTO CDC, SCD type 1: IGNORE NULL UPDATES keeps values a change leaves
# NULL, a key's several changes in one batch apply in sequence order, a
# truncate empties the table except for newer changes, a column list picks
# the columns, the flow's metrics are in its flow_progress event, the
# hidden state lives in _weir (the target holds only its columns), a NULL
# sequence fails the batch without applying any of it, and a full refresh
# starts the state again.
mkdir -p landing
land() { printf '%s\n' "$2" >"landing/$1.json"; }

land 1 '{"id": 1, "seq": 1, "op": "UPSERT", "name": "ada", "city": "paris"}
{"id": 1, "seq": 3, "op": "UPSERT", "name": null, "city": "rome"}
{"id": 2, "seq": 2, "op": "UPSERT", "name": "bob", "city": "oslo"}
{"id": 2, "seq": 4, "op": "DELETE", "name": null, "city": null}
{"id": 2, "seq": 5, "op": "UPSERT", "name": null, "city": "lima"}
{"id": 3, "seq": 9, "op": "DELETE", "name": null, "city": null}'
run_weir dry-run
expect_exit 0
expect_stdout_contains "spark_catalog.default.customers_cdc -> spark_catalog.default.customers  streaming, auto cdc flow (SCD type 1)"
expect_stdout_contains "streaming table spark_catalog.default.cities  (transformations/cdc.sql:16)
    id    bigint  not null
    city  string
    name  string"
run_weir run --json
expect_exit 0
expect_stdout_contains '"auto_cdc": {"upserted": 2, "deleted": 0, "ignored": 0}'
# id 1: name kept from seq 1, city from seq 3; id 2: deleted at 4, then a
# fresh row at 5 (nothing to keep after a delete); id 3: a tombstone.
expect_query "SELECT id, seq, name, city FROM customers ORDER BY id" "id,seq,name,city
1,3,ada,rome
2,5,,lima"
expect_query "SELECT * FROM cities ORDER BY id" "id,city,name
1,rome,
2,lima,"

# Late changes: a late insert for the deleted key 3 (stays deleted), a new
# key, and a change of key 1 older than its last: ignored without IGNORE
# NULL UPDATES (cities); with it, its name (seq 2) is newer than the one
# the row holds (seq 1), so it applies column by column, as if the changes
# had arrived in order: seq 3 left name NULL, so 'old' from seq 2 stays.
land 2 '{"id": 1, "seq": 2, "op": "UPSERT", "name": "old", "city": "old"}
{"id": 3, "seq": 8, "op": "UPSERT", "name": "cy", "city": "nice"}
{"id": 4, "seq": 6, "op": "UPSERT", "name": "dee", "city": "bern"}'
run_weir run --json
expect_exit 0
expect_stdout_contains '"auto_cdc": {"upserted": 2, "deleted": 0, "ignored": 1}'
expect_stdout_contains '"auto_cdc": {"upserted": 1, "deleted": 0, "ignored": 2}'
expect_query "SELECT id, seq, name, city FROM customers ORDER BY id" "id,seq,name,city
1,3,old,rome
2,5,,lima
4,6,dee,bern"
expect_query "SELECT * FROM cities ORDER BY id" "id,city,name
1,rome,
2,lima,
4,bern,dee"

# A truncate at 7 removes the rows applied before it; the change of key 5
# at 10 (same batch, newer) stays, the one of key 6 at 6 is older.
land 3 '{"id": 5, "seq": 10, "op": "UPSERT", "name": "eve", "city": "kiev"}
{"id": 6, "seq": 6, "op": "UPSERT", "name": "fay", "city": "graz"}
{"id": 0, "seq": 7, "op": "TRUNCATE", "name": null, "city": null}'
run_weir run --json
expect_exit 0
expect_stdout_contains '"auto_cdc": {"upserted": 1, "deleted": 3, "ignored": 1}'
expect_query "SELECT id, seq, name, city FROM customers ORDER BY id" "id,seq,name,city
5,10,eve,kiev"

# The target is a plain table; weir's state is in _weir.
expect_query "SELECT * FROM customers WHERE false" "id,seq,name,city"
run_weir query "SHOW TABLES IN _weir"
expect_stdout_contains "autocdc_state:spark_catalog.default.customers"
expect_stdout_contains "autocdc_truncate:spark_catalog.default.customers"

# A NULL sequence fails the batch: nothing of it is applied.
land 4 '{"id": 7, "seq": 11, "op": "UPSERT", "name": "gus", "city": "bonn"}
{"id": 8, "seq": null, "op": "UPSERT", "name": "hal", "city": "linz"}'
run_weir run
expect_exit 1
expect_stdout_contains "[AUTOCDC_MICROBATCH_VALIDATION.NULL_SEQUENCE]"
expect_query "SELECT count(*) AS n FROM customers WHERE id = 7" "n
0"
rm landing/4.json

# A full refresh applies the whole feed again from empty state.
run_weir run --full-refresh-all
expect_exit 0
expect_query "SELECT id, seq, name, city FROM customers ORDER BY id" "id,seq,name,city
5,10,eve,kiev"
# cities has no truncate condition: the truncate change is a row there.
expect_query "SELECT * FROM cities ORDER BY id" "id,city,name
0,,
1,rome,
2,lima,
4,bern,dee
5,kiev,eve
6,graz,fay"
