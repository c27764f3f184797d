# The AUTO CDC state of an SCD 1 target with IGNORE NULL UPDATES written
# before the state kept a sequence per column (keys, __weir_seq and
# __weir_del only, as weir wrote it until then) keeps working: the first
# batch converts it. Values the rows hold count as set by the key's last
# change, and changes not newer than that stay ignored (that history is
# not known); later changes apply column by column. Dropping IGNORE NULL
# UPDATES drops the column sequences; bringing it back converts again.
py=$(weir_python)
mkdir -p landing transformations
land() { printf '%s\n' "$2" >"landing/$1.json"; }
flow() { # with or without IGNORE NULL UPDATES
    sed "s/@INU@/$1/" cdc.sql.in >transformations/cdc.sql
}
state='spark_catalog._weir."autocdc_state:spark_catalog.default.customers"'
rows="SELECT id, seq, name, city FROM customers ORDER BY id"
# The state's columns, by stock DuckDB.
state_columns() {
    "$py" -c 'import duckdb; c = duckdb.connect("storage/spark_catalog.duckdb", read_only=True)
print(",".join(r[0] for r in c.execute("SELECT column_name FROM duckdb_columns() WHERE schema_name = '"'"'_weir'"'"' AND table_name = '"'"'autocdc_state:spark_catalog.default.customers'"'"' ORDER BY column_index").fetchall()))'
}

flow "IGNORE NULL UPDATES"
land 1 '{"id": 1, "seq": 10, "op": "UPSERT", "name": "ada", "city": "paris"}
{"id": 1, "seq": 30, "op": "UPSERT", "name": null, "city": "rome"}
{"id": 2, "seq": 20, "op": "UPSERT", "name": "bob", "city": "oslo"}
{"id": 2, "seq": 40, "op": "DELETE", "name": null, "city": null}
{"id": 2, "seq": 50, "op": "UPSERT", "name": null, "city": "lima"}
{"id": 3, "seq": 60, "op": "UPSERT", "name": "cy", "city": null}'
run_weir run --quiet
expect_exit 0
expect_equal "state columns" "$(state_columns)" \
    "id,__weir_seq,__weir_del,__weir_floor,__weir_cseq:seq,__weir_cseq:name,__weir_cseq:city"

# The state as weir wrote it before: keys, sequence, delete flag.
"$py" -c 'import duckdb; c = duckdb.connect("storage/spark_catalog.duckdb")
t = "\"_weir\".\"autocdc_state:spark_catalog.default.customers\""
for col in ["__weir_floor", "__weir_cseq:seq", "__weir_cseq:name", "__weir_cseq:city"]:
    c.execute("ALTER TABLE %s DROP COLUMN \"%s\"" % (t, col))'
expect_equal "old state columns" "$(state_columns)" "id,__weir_seq,__weir_del"

# Converted by the next batch: in-order changes keep the values they leave
# NULL; changes not newer than a key's last one before the conversion
# (a redelivery of key 1's first change, a late name for key 1, key 2's
# change from before its delete) stay ignored; a new key's late change
# applies column by column.
land 2 '{"id": 1, "seq": 70, "op": "UPSERT", "name": null, "city": "milan"}
{"id": 1, "seq": 10, "op": "UPSERT", "name": "ada", "city": "paris"}
{"id": 1, "seq": 20, "op": "UPSERT", "name": "old", "city": null}
{"id": 2, "seq": 20, "op": "UPSERT", "name": "bob", "city": "oslo"}
{"id": 3, "seq": 80, "op": "UPSERT", "name": null, "city": "quito"}
{"id": 4, "seq": 100, "op": "UPSERT", "name": "dee", "city": null}'
run_weir run --quiet
expect_exit 0
expect_equal "converted state columns" "$(state_columns)" \
    "id,__weir_seq,__weir_del,__weir_floor,__weir_cseq:seq,__weir_cseq:name,__weir_cseq:city"
expect_query "$rows" "id,seq,name,city
1,70,ada,milan
2,50,,lima
3,80,cy,quito
4,100,dee,"
land 3 '{"id": 4, "seq": 90, "op": "UPSERT", "name": "old", "city": "sucre"}
{"id": 3, "seq": 75, "op": "UPSERT", "name": "cyd", "city": "lima"}'
run_weir run --quiet
expect_exit 0
expect_query "$rows" "id,seq,name,city
1,70,ada,milan
2,50,,lima
3,80,cyd,quito
4,100,dee,sucre"

# Without IGNORE NULL UPDATES the column sequences go; with it again, the
# state is converted again.
flow ""
land 4 '{"id": 5, "seq": 110, "op": "UPSERT", "name": "eve", "city": "kiev"}'
run_weir run --quiet
expect_exit 0
expect_equal "state columns without the clause" "$(state_columns)" "id,__weir_seq,__weir_del"
flow "IGNORE NULL UPDATES"
land 5 '{"id": 5, "seq": 120, "op": "UPSERT", "name": null, "city": "riga"}'
run_weir run --quiet
expect_exit 0
expect_query "SELECT id, seq, name, city FROM customers WHERE id = 5" "id,seq,name,city
5,120,eve,riga"
expect_equal "state columns with the clause again" "$(state_columns)" \
    "id,__weir_seq,__weir_del,__weir_floor,__weir_cseq:seq,__weir_cseq:name,__weir_cseq:city"

# A column the feed gains gets its sequence in the state; a late change
# still gives the columns it is newer for their values.
land 6 '{"id": 5, "seq": 130, "op": "UPSERT", "name": null, "city": null, "zip": "LV-1"}'
run_weir run --quiet
expect_exit 0
land 7 '{"id": 5, "seq": 125, "op": "UPSERT", "name": "late", "city": null, "zip": "LV-0"}'
run_weir run --quiet
expect_exit 0
expect_query "SELECT id, seq, name, city, zip FROM customers WHERE id = 5" "id,seq,name,city,zip
5,130,late,riga,LV-1"
expect_equal "state columns with a new column" "$(state_columns)" \
    "id,__weir_seq,__weir_del,__weir_floor,__weir_cseq:seq,__weir_cseq:name,__weir_cseq:city,__weir_cseq:zip"
e2e_pass
