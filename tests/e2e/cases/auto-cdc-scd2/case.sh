# AUTO CDC, SCD type 2: versions from the sequence values (__START_AT,
# __END_AT typed like SEQUENCE BY), history only on tracked columns (an
# untracked change updates the current version), a late change placed
# inside the history, a delete closing the current version, a late insert
# before a delete, metrics, a new source column added to the target, and
# IGNORE NULL UPDATES.
mkdir -p landing
printf '%s\n' '{"id": 1, "seq": 10, "op": "UPSERT", "city": "paris", "note": "a"}' \
    '{"id": 1, "seq": 30, "op": "UPSERT", "city": "rome", "note": "b"}' \
    '{"id": 1, "seq": 40, "op": "UPSERT", "city": "rome", "note": "c"}' \
    '{"id": 2, "seq": 50, "op": "DELETE", "city": null, "note": null}' >landing/1.json
run_weir dry-run
expect_exit 0
expect_stdout_contains "    __START_AT  bigint
    __END_AT    bigint"
run_weir run --json
expect_exit 0
expect_stdout_contains '"auto_cdc": {"upserted": 3, "deleted": 1, "ignored": 0}'
expect_query "SELECT id, city, note, seq, __START_AT, __END_AT FROM history ORDER BY id, __START_AT" "id,city,note,seq,__START_AT,__END_AT
1,paris,a,10,10,30
1,rome,c,40,30,"

# Late: key 1 at 20 (between paris and rome), a repeat of seq 40, a delete
# of key 1 at 60, and key 2's insert at 45, before its delete at 50.
printf '%s\n' '{"id": 1, "seq": 20, "op": "UPSERT", "city": "oslo", "note": "x"}' \
    '{"id": 1, "seq": 40, "op": "UPSERT", "city": "rome", "note": "c"}' \
    '{"id": 1, "seq": 60, "op": "DELETE", "city": null, "note": null}' \
    '{"id": 2, "seq": 45, "op": "UPSERT", "city": "lima", "note": "y"}' >landing/2.json
run_weir run --json
expect_exit 0
expect_stdout_contains '"auto_cdc": {"upserted": 2, "deleted": 1, "ignored": 1}'
expect_query "SELECT id, city, note, __START_AT, __END_AT FROM history ORDER BY id, __START_AT" "id,city,note,__START_AT,__END_AT
1,paris,a,10,20
1,oslo,x,20,30
1,rome,c,30,60
2,lima,y,45,50"

# A new column in the feed: the target and the change log get it.
printf '%s\n' '{"id": 3, "seq": 70, "op": "UPSERT", "city": "bern", "note": "z", "tier": 2}' >landing/3.json
run_weir run
expect_exit 0
expect_query "SELECT id, city, tier, __START_AT, __END_AT FROM history WHERE id = 3" "id,city,tier,__START_AT,__END_AT
3,bern,2,70,"
printf '%s\n' '{"id": 3, "seq": 80, "op": "UPSERT", "city": "bern", "note": "z", "tier": 3}' >landing/4.json
run_weir run
expect_exit 0
expect_query "SELECT id, city, tier, __START_AT, __END_AT FROM history WHERE id = 3 ORDER BY __START_AT" "id,city,tier,__START_AT,__END_AT
3,bern,2,70,80
3,bern,3,80,"

# IGNORE NULL UPDATES with SCD 2: NULL keeps the previous value, so a NULL
# city opens no version; a late change is filled from the changes before
# it; after a delete nothing is carried over.
printf '%s\n' '{"id": 5, "seq": 100, "op": "UPSERT", "city": "kyiv", "note": "n1"}' \
    '{"id": 5, "seq": 110, "op": "UPSERT", "city": null, "note": "n2"}' \
    '{"id": 5, "seq": 120, "op": "UPSERT", "city": "riga", "note": null}' >landing/5.json
run_weir run
expect_exit 0
expect_query "SELECT city, note, __START_AT, __END_AT FROM sparse WHERE id = 5 ORDER BY __START_AT" "city,note,__START_AT,__END_AT
kyiv,n2,100,120
riga,n2,120,"
printf '%s\n' '{"id": 5, "seq": 115, "op": "UPSERT", "city": "oslo", "note": null}' \
    '{"id": 5, "seq": 130, "op": "DELETE", "city": null, "note": null}' \
    '{"id": 5, "seq": 140, "op": "UPSERT", "city": null, "note": "n3"}' >landing/6.json
run_weir run
expect_exit 0
expect_query "SELECT city, note, __START_AT, __END_AT FROM sparse WHERE id = 5 ORDER BY __START_AT" "city,note,__START_AT,__END_AT
kyiv,n2,100,115
oslo,n2,115,120
riga,n2,120,130
,n3,140,"
expect_query "SELECT city, note, __START_AT, __END_AT FROM sparse WHERE id = 1 ORDER BY __START_AT" "city,note,__START_AT,__END_AT
paris,a,10,20
oslo,x,20,30
rome,c,30,60"
