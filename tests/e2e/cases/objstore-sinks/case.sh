# Parquet, CSV and JSON sinks whose `path` is on S3 (S3Proxy on loopback):
# each batch is staged under the storage folder and, once its rows and
# positions committed, written to objects named after the batch, in the
# sink's format and options (partition folders too). Over updates with
# objects arriving, every landed row is in every sink exactly once; a
# publish that failed (the server down after the commit) is completed by
# the next update, writing the same objects, never twice.
s3_start
s3 mb landing
s3 mb lake
s3_project s3sinks
put() { printf "$2" > obj.tmp; s3 put "s3://landing/$1" obj.tmp; }
# expect_sinks N SUM: each sink holds N rows summing to SUM, each id once.
expect_sinks() {
    local q
    for q in "parquet.\`s3://lake/out/pq/*.parquet\`" \
             "parquet.\`s3://lake/out/part/day=*/*.parquet\`" \
             "read_files('s3://lake/out/csv/*.csv.gz', format => 'csv', header => true, sep => ';')" \
             "read_files('s3://lake/out/json/*.json', format => 'json')"; do
        expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, sum(amount) AS s FROM $q" "n,d,s
$1,$1,$2" "${conf[@]}"
    done
}

put orders/a.json '{"id":1,"amount":10,"day":"d1"}\n{"id":2,"amount":20,"day":"d2"}\n'
run_weir run "${conf[@]}"
expect_exit 0
expect_sinks 2 30
# Nothing was written below the project but the storage folder.
[ ! -e s3: ] && [ ! -e s3a: ] || e2e_fail "a sink wrote a local folder named after the scheme"

put orders/b.json '{"id":3,"amount":30,"day":"d1"}\n'
run_weir run "${conf[@]}"
expect_exit 0
expect_sinks 3 60
n=$(ls "$S3_DIR/data/lake/out/pq" | wc -l)   # the server's own folder
[ "$n" -eq 2 ] || e2e_fail "expected 2 objects (one a batch) in out/pq, found $n"

# The store refuses every write after the commit: the batch committed, its
# publish failed; the next update publishes it (same objects), once.
put orders/c.json '{"id":4,"amount":40,"day":"d2"}\n'
s3_proxy_start
sed -i "s#endpoint: .*#endpoint: $S3_PROXY#" spark-pipeline.yml
echo "503 1000 PUT" > "$S3_PROXY_RULES"
run_weir run "${conf[@]}"
expect_failure
expect_query "SELECT count(*) AS n FROM bronze" "n
4" "${conf[@]}"
: > "$S3_PROXY_RULES"
run_weir run "${conf[@]}"
expect_exit 0
expect_sinks 4 100
run_weir run "${conf[@]}"
expect_exit 0
expect_sinks 4 100

# Not (yet) writable: a Delta sink on S3, a sink on an HTTP URL.
mkdir -p bad/t
cp spark-pipeline.yml bad/
cd bad
cat > t/p.sql <<'SQL'
CREATE SINK d USING delta OPTIONS (path 's3://lake/out/delta');
CREATE FLOW to_d AS INSERT INTO d BY NAME SELECT id FROM STREAM range(3);
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "SINK_PATH_NOT_WRITABLE"
expect_stderr_contains "Delta sinks on object storage are not supported yet"
cat > t/p.sql <<'SQL'
CREATE SINK h USING json OPTIONS (path 'https://example.com/out');
CREATE FLOW to_h AS INSERT INTO h BY NAME SELECT id FROM STREAM range(3);
SQL
run_weir dry-run
expect_exit 2
expect_stderr_contains "SINK_PATH_NOT_WRITABLE"
