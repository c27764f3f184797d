# read_files formats and options under STREAM: multi-line JSON, CSV with a
# delimiter, quote and escape, Parquet, text, recursive lookup with a name
# filter, a single file, a given schema, rescue mode, DROPMALFORMED, and the
# cloud_files spelling.

mkdir -p in/multi in/semi in/pq in/text in/tree/a/b in/single in/given in/rescue in/drop in/cloud
printf '[{"id": 1, "tags": ["x", "y"]},\n {"id": 2,\n  "tags": []}]\n' > in/multi/m.json
printf "name;quote\nann;'semi;colon'\nbob;'it\\\\'s'\n" > in/semi/s.csv
printf 'first line\nsecond line\n' > in/text/t.txt
printf '{"id": 1}\n' > in/tree/top.json
printf '{"id": 2}\n' > in/tree/a/b/deep.json
printf 'not json at all\n' > in/tree/a/b/skip.txt
printf '{"id": 7}\n' > in/single/only.json
printf '{"id": 8}\n' > in/single/other.json
printf '{"id": 1, "label": "a", "ignored": true}\n' > in/given/g.json
printf '{"id": 1, "extra": "kept"}\n{"id": "two"}\n' > in/rescue/r.json
printf '{"id": 1}\n{broken\n{"id": 3}\n' > in/drop/d.json
printf 'k,v\na,1\nb,2\n' > in/cloud/c.csv
py=$(weir_python)
"$py" -c "import duckdb; duckdb.sql(\"COPY (SELECT range AS id, 'p' || range AS name FROM range(3)) TO 'in/pq/p.parquet' (FORMAT parquet)\")"

run_weir run
expect_exit 0
expect_query "SELECT id, size(tags) AS n FROM multi ORDER BY id" "id,n
1,2
2,0"
expect_query "SELECT name, quote FROM semicolons ORDER BY name" "name,quote
ann,semi;colon
bob,it's"
expect_query "SELECT id, name FROM pq ORDER BY id" "id,name
0,p0
1,p1
2,p2"
expect_query "SELECT value FROM lines ORDER BY value" "value
first line
second line"
expect_query "SELECT id FROM nested ORDER BY id" "id
1
2"
expect_query "SELECT id FROM one_file" "id
7"
# A given schema without rescue: unknown fields are ignored, no rescued column.
expect_query "SELECT * FROM given" "id,label
1,a"
# rescue mode: the schema stays; unknown fields and misfits are rescued.
expect_query "SELECT id, get_json_object(_rescued_data, '$.extra') AS extra, get_json_object(_rescued_data, '$.id') AS bad_id FROM rescued ORDER BY id NULLS LAST" "id,extra,bad_id
1,kept,
,,two"
# DROPMALFORMED: the broken line is dropped, the others kept.
expect_query "SELECT id FROM dropped ORDER BY id" "id
1
3"
expect_query "SELECT k, v + 1 AS v1 FROM via_cloud_files ORDER BY k" "k,v1
a,2
b,3"
