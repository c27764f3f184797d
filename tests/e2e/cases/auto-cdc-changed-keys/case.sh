# AUTO CDC: the keys and the type of SEQUENCE BY cannot change between
# updates (the hidden state orders changes by them): an update after such a
# change fails with AUTOCDC_INVALID_STATE at the flow, naming the flow and
# the fix, and applies nothing; a full refresh of the target rebuilds it
# from the whole feed. The same for SCD 2 (where a SEQUENCE BY of another
# type is refused by __START_AT's type). Changing other clauses is fine.
mkdir -p landing transformations
land() { printf '%s\n' "$2" >"landing/$1.json"; }
flows() { # $1 KEYS, $2 SEQUENCE BY, $3 extra clauses of the SCD 1 flow
    cat >transformations/cdc.sql <<SQL
CREATE STREAMING TABLE changes AS
SELECT * FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE latest;
CREATE FLOW latest_cdc AS AUTO CDC INTO latest
FROM STREAM(changes) KEYS ($1)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY $2
COLUMNS * EXCEPT (op) ${3:-};

CREATE STREAMING TABLE history
FLOW AUTO CDC FROM STREAM(changes) KEYS ($1)
APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY $2
COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2;
SQL
}

land 1 '{"id": 1, "region": "eu", "seq": 1, "op": "UPSERT", "name": "ada"}
{"id": 2, "region": "us", "seq": 2, "op": "UPSERT", "name": "bob"}'
flows id seq
run_weir run
expect_exit 0
# Another clause changes: nothing to rebuild.
flows id seq "IGNORE NULL UPDATES"
land 2 '{"id": 1, "region": "eu", "seq": 3, "op": "UPSERT", "name": null}'
run_weir run
expect_exit 0
expect_query "SELECT id, seq, name FROM latest ORDER BY id" "id,seq,name
1,3,ada
2,2,bob"

# A key added: both flows refuse the update.
flows "id, region" seq
land 3 '{"id": 2, "region": "eu", "seq": 4, "op": "UPSERT", "name": "cy"}'
run_weir run
expect_exit 1
expect_stdout_contains "AUTOCDC_INVALID_STATE"
expect_stdout_contains "AUTO CDC flow 'spark_catalog.default.latest_cdc': its keys or the type of its SEQUENCE BY changed since spark_catalog.default.latest was last updated (KEYS | SEQUENCE BY type: now id, region | BIGINT, before id | BIGINT)"
expect_stdout_contains "run a full refresh of the target (weir run --full-refresh spark_catalog.default.latest)"
expect_query "SELECT id, region, seq, name FROM latest ORDER BY id" "id,region,seq,name
1,eu,3,ada
2,us,2,bob"
run_weir run --full-refresh latest,history
expect_exit 0
expect_query "SELECT id, region, seq, name FROM latest ORDER BY id, region" "id,region,seq,name
1,eu,3,
2,eu,4,cy
2,us,2,bob"
expect_query "SELECT id, region, name, __START_AT, __END_AT FROM history ORDER BY id, region, __START_AT" "id,region,name,__START_AT,__END_AT
1,eu,ada,1,3
1,eu,,3,
2,eu,cy,4,
2,us,bob,2,"

# SEQUENCE BY of another type.
flows "id, region" "CAST(seq AS VARCHAR)"
land 4 '{"id": 2, "region": "eu", "seq": 5, "op": "DELETE", "name": null}'
run_weir run
expect_exit 1
expect_stdout_contains "AUTOCDC_INVALID_STATE"
expect_stdout_contains "(KEYS | SEQUENCE BY type: now id, region | VARCHAR, before id, region | BIGINT)"
# SCD 2: __START_AT has that type, so the table's schema refuses it first.
expect_stdout_contains "Failed to merge incompatible data types bigint and string for column __START_AT of spark_catalog.default.history"
run_weir run --full-refresh-all
expect_exit 0
expect_query "SELECT id, region, seq FROM latest ORDER BY id, region" "id,region,seq
1,eu,3
2,us,2"
e2e_pass
