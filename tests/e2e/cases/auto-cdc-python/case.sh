# dp.create_auto_cdc_flow (pyspark-client 4.2) runs as the SQL AUTO CDC
# flow: keys, sequence_by (a Column or SQL text), apply_as_deletes,
# column_list / except_column_list, stored_as_scd_type, name; the graph's
# rules report at the Python call's line.
root=$(cd "$E2E_LIB/../.." && pwd)
WEIR_PYTHON=$("$root/scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
mkdir -p landing
printf '%s\n' '{"id": 1, "seq": 2, "op": "UPSERT", "name": "ada"}' \
    '{"id": 1, "seq": 1, "op": "UPSERT", "name": "old"}' \
    '{"id": 2, "seq": 3, "op": "UPSERT", "name": "bob"}' \
    '{"id": 2, "seq": 4, "op": "DELETE", "name": "bob"}' >landing/1.json
run_weir dry-run
expect_exit 0
expect_stdout_contains "spark_catalog.default.customers_cdc -> spark_catalog.default.customers  streaming, auto cdc flow (SCD type 1)"
run_weir run
expect_exit 0
expect_query "SELECT * FROM customers ORDER BY id" "id,seq,name
1,2,ada"
# No delete condition: every change is an upsert.
expect_query "SELECT * FROM names ORDER BY id" "id,name
1,ada
2,bob"

cat >transformations/bad.py <<'EOF2'
from pyspark import pipelines as dp

dp.create_streaming_table("bad")
dp.create_auto_cdc_flow(target="bad", source="feed", keys=["nope"],
                        sequence_by="seq")
EOF2
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/bad.py:4: error: [AUTOCDC_COLUMNS_NOT_FOUND_IN_SCHEMA]"
