# A key that first appears deep in a file, past the records DuckDB's JSON
# sniffing reads (20,480), is a column, as Spark's inference (which reads
# every record) makes it. It used to be dropped without a word.

mkdir -p landing
awk 'BEGIN { for (i = 0; i < 30000; i++) {
    if (i == 25000) printf "{\"id\": %d, \"v\": \"x\", \"late\": 42}\n", i;
    else printf "{\"id\": %d, \"v\": \"x\"}\n", i } }' > landing/a.json

run_weir run
expect_exit 0
expect_query "SELECT * FROM t LIMIT 0" "id,v,late,_rescued_data"
expect_query "SELECT id, late, typeof(late) AS ty FROM t WHERE late IS NOT NULL" "id,late,ty
25000,42,bigint"
expect_query "SELECT count(*) AS n, count(_rescued_data) AS rescued FROM t" "n,rescued
30000,0"

# A later file whose new key also comes late: the table gains the column
# (schemaEvolutionMode addNewColumns, the default).
awk 'BEGIN { for (i = 30000; i < 60000; i++) {
    if (i == 59000) printf "{\"id\": %d, \"v\": \"y\", \"later\": \"s\"}\n", i;
    else printf "{\"id\": %d, \"v\": \"y\"}\n", i } }' > landing/b.json
run_weir run
expect_exit 0
expect_query "SELECT id, later FROM t WHERE later IS NOT NULL" "id,later
59000,s"
expect_query "SELECT count(*) AS n, count(_rescued_data) AS rescued FROM t" "n,rescued
60000,0"

# A key only file 1001 of a batch holds: every file of a batch is
# inferred from (weir used to sniff the first 1000 and drop the key).
for i in $(seq 1000 2000); do printf '{"id": %d, "v": "m"}\n' "$i" > landing/m$i.json; done
printf '{"id": 2001, "v": "m", "only_last": 7}\n' >> landing/m2000.json
run_weir run
expect_exit 0
expect_query "SELECT id, only_last FROM t WHERE only_last IS NOT NULL" "id,only_last
2001,7"
expect_query "SELECT count(*) AS n, count(_rescued_data) AS rescued FROM t" "n,rescued
61002,0"
