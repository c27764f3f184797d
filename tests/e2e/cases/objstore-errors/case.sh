# Errors a user can act on, from a real S3 server (S3Proxy) behind
# tests/s3/proxy.py, which answers chosen requests with an error, drops
# or holds them: each names its URL and class (throttled, access denied,
# unreachable, bucket or object missing), never a secret; httpfs retries
# with backoff as fs.s3a.retry.* say and gives up after
# fs.s3a.connection.timeout; the table and the S3 sink stay intact and
# the next update takes every landed object exactly once. A Spark
# checkpoint imported from the store survives a copy cut short.
s3_start
s3 mb landing
s3 mb lake
s3_proxy_start
s3_project s3err "$S3_PROXY"
cat >> spark-pipeline.yml <<YML
  spark.hadoop.fs.s3a.retry.limit: "1"
  spark.hadoop.fs.s3a.retry.interval: 10ms
  spark.hadoop.fs.s3a.connection.timeout: 1s
  spark.sql.pipelines.execution.watchdog.minRetryTime: 100ms
YML
put() { printf '{"id":%d,"amount":1}\n' "$1" > obj.tmp; s3 put "s3://landing/orders/o$1.json" obj.tmp; }
rules() { printf '%s\n' "$@" > "$S3_PROXY_RULES"; }
no_secret() {
    ! grep -q -e "$S3_SECRET" -e wrong-secret-42 "$WEIR_STDOUT" "$WEIR_STDERR" \
        || e2e_fail "a secret was printed"
}
# expect_rows N: the table and the sink hold ids 1..N (minus gone ones)
# each once: N rows, N distinct.
expect_rows() {
    rules
        expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM bronze" "n,d
$1,$1" "${conf[@]}"
    expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM parquet.\`s3://lake/out/*.parquet\`" "n,d
$1,$1" "${conf[@]}"
}
# fails CLASS TEXT [ARGS]: weir run [ARGS] fails (exit 1) with CLASS, its
# message holding TEXT, and prints no secret.
fails() {
    local cls=$1 text=$2
    shift 2
    run_weir run "${conf[@]}" "$@"
    expect_exit 1
    expect_stdout_contains "[$cls]"
    expect_stdout_contains "$text"
    no_secret
}

put 1
put 2
run_weir run "${conf[@]}"
expect_exit 0
expect_rows 2

# Throttled for a moment (503 SlowDown to a lookup and to the listing):
# httpfs retries with backoff and the update completes.
put 3
rules "503 1 HEAD" "503 1 GET"
run_weir run "${conf[@]}"
expect_exit 0
grep -q ' 503$' "$S3_PROXY_LOG" || e2e_fail "no request was throttled"
# fs.s3a.retry.limit is httpfs's http_retries: a request throttled for
# good is tried once with 0, three times with 2.
throttled_heads() {
    rules "503 1000 HEAD"
    : > "$S3_PROXY_LOG"
    run_weir query "${conf[@]}" --conf spark.hadoop.fs.s3a.retry.limit=$1 \
        "SELECT count(*) AS n FROM json.\`s3://landing/orders/o1.json\`"
    expect_exit 1
    expect_stderr_contains "[OBJECT_STORE_THROTTLED]"
    expect_stderr_contains "/landing/orders/o1.json' (HTTP 503"
    s3_requests HEAD
}
once=$(throttled_heads 0)
thrice=$(throttled_heads 2)
[ "$once" -gt 0 ] && [ "$thrice" -eq $((3 * once)) ] \
    || e2e_fail "retry.limit 0 made $once HEAD requests, 2 made $thrice"

# Updates that fail, each naming the URL and its class, none printing a
# secret; none keeps anything of o4, which the next update takes once.
put 4
# Throttled for good.
rules "503 1000"
fails OBJECT_STORE_THROTTLED "'s3://landing/orders/' (HTTP 503"
# A wrong secret.
rules
fails OBJECT_STORE_ACCESS_DENIED "(HTTP 403, the credentials given were refused)" \
    --conf spark.hadoop.fs.s3a.secret.key=wrong-secret-42
# The store down at the start: nothing listens at the endpoint.
fails OBJECT_STORE_UNREACHABLE "GET 's3://landing/orders/' (could not connect)" \
    --conf spark.hadoop.fs.s3a.endpoint=http://127.0.0.1:1
# A store that stops answering: fs.s3a.connection.timeout bounds each
# request, so the update fails instead of hanging (one try here).
rules "hang 1000"
fails OBJECT_STORE_UNREACHABLE "timed out" \
    --conf spark.hadoop.fs.s3a.retry.limit=0 \
    --conf spark.sql.pipelines.maxFlowRetryAttempts=0
# The store goes down in the middle of the update, after the listing.
rules "drop 1000 GET o4.json"
fails OBJECT_STORE_UNREACHABLE "/landing/orders/o4.json'"
expect_rows 3
run_weir run "${conf[@]}"
expect_exit 0
expect_rows 4

# The store goes down after the commit, while the sink uploads: the
# table has o5, the sink gets it at the next update, once.
put 5
rules "drop 1000 PUT"
run_weir run "${conf[@]}"
expect_exit 1
expect_stdout_contains "[OBJECT_STORE_UNREACHABLE] the object store did not answer PUT"
no_secret
rules
run_weir run "${conf[@]}"
expect_exit 0
expect_rows 5

# An object listed but gone when read (404): the update fails naming it;
# once it is gone from listings too, the next update reads the rest. Gone
# for longer than httpfs retries, the batch is listed again and reads it.
put 6
put 7
rules "404 1000 HEAD o6.json" "404 1000 GET o6.json"
fails OBJECT_STORE_NOT_FOUND "/landing/orders/o6.json' (HTTP 404)"
s3 rm s3://landing/orders/o6.json
rules "404 2 GET o7.json"
: > "$S3_PROXY_LOG"
run_weir run "${conf[@]}"
expect_exit 0
[ "$(grep -c 'GET /landing/orders/o7.json 404' "$S3_PROXY_LOG")" -eq 2 ] \
    || e2e_fail "o7.json was not refused twice"
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, max(id) AS m FROM bronze" "n,d,m
6,6,7" "${conf[@]}"

# A bucket that does not exist: named, for an object and for a prefix.
run_weir query "${conf[@]}" "SELECT * FROM json.\`s3://no-such-bucket/x.json\`"
expect_exit 1
expect_stderr_contains "[OBJECT_STORE_NOT_FOUND]"
expect_stderr_contains "/no-such-bucket/x.json'"
mkdir nb
(cd nb && s3_project nb "$S3_PROXY" && mkdir t && sed 's#s3://landing/#s3://no-such-bucket/#' ../t/p.sql | head -3 > t/p.sql)
cd nb
fails OBJECT_STORE_BUCKET_NOT_FOUND "the bucket 'no-such-bucket' does not exist"
cd ..

# import_checkpoint from the store: the checkpoint real Spark wrote (the
# import-checkpoint case's fixture, its file paths pointed at ./input)
# uploaded; the flow copies its small files into storage/imports/ through
# httpfs and continues after Spark's last batch (f12..f14, 6 rows). A copy
# cut short (the store drops the commits' GETs) fails the update and
# imports nothing; what a crashed copy leaves (a .part folder, a stale
# copy) is replaced, never read.
mkdir -p imp/t imp/input imp/cp
cd imp
s3_project imp "$S3_PROXY"
echo '  spark.hadoop.fs.s3a.retry.limit: "0"' >> spark-pipeline.yml
for i in $(seq 1 14); do
    printf '{"id":%d,"name":"n"}\n{"id":%d,"name":"n"}\n' $((i * 10)) $((i * 10 + 1)) \
        > "input/f$(printf %02d "$i").json"
done
cp -R "$E2E_LIB/cases/import-checkpoint/spark-4.1/files" cp/
sed -i "s#file:///tmp/weir-checkpoint-fixture/in#file://$PWD/input#" cp/files/sources/0/*
(cd cp && find files -type f) | while read -r f; do s3 put "s3://lake/cp/$f" "cp/$f"; done
cat > t/p.sql <<'SQL'
CREATE STREAMING TABLE events;
CREATE FLOW migrate OPTIONS (import_checkpoint 's3a://lake/cp/files')
AS INSERT INTO events BY NAME
SELECT id, name FROM STREAM read_files('input', format => 'json', schema => 'id BIGINT, name STRING');
SQL
rules "drop 1000 GET /lake/cp/files/commits/"
fails OBJECT_STORE_UNREACHABLE "Flow 'spark_catalog.default.migrate' cannot copy its checkpoint s3://lake/cp/files"
rules
expect_query "SELECT count(*) AS n FROM events" "n
0" "${conf[@]}"
mkdir -p storage/imports/spark_catalog.default.migrate.part/offsets storage/imports/spark_catalog.default.migrate/offsets
echo junk > storage/imports/spark_catalog.default.migrate.part/offsets/99
echo junk > storage/imports/spark_catalog.default.migrate/offsets/99
run_weir run "${conf[@]}"
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.migrate' imported the Spark Structured Streaming checkpoint s3://lake/cp/files: it continues"
no_secret
expect_query "SELECT min(id) AS lo, max(id) AS hi, count(*) AS n, count(DISTINCT id) AS d FROM events" "lo,hi,n,d
120,141,6,6" "${conf[@]}"
expect_no_file storage/imports/spark_catalog.default.migrate.part
expect_no_file storage/imports/spark_catalog.default.migrate/offsets/99
run_weir events --format json "${conf[@]}"
expect_stdout_contains '"import_checkpoint": {"path": "s3://lake/cp/files", "query_id": '
# Imported once: later updates read only new files.
printf '{"id":150,"name":"n"}\n' > input/f15.json
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM events" "n,d
7,7" "${conf[@]}"
cd ..

# No secret in anything weir wrote either.
run_weir events "${conf[@]}"
expect_exit 0
no_secret
! grep -rlq -e "$S3_SECRET" -e wrong-secret-42 storage nb/storage imp/storage \
    || e2e_fail "a secret was written"
