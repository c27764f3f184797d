# Batch reads from a real S3-compatible server (S3Proxy on loopback,
# scripts/s3.sh) with Spark's S3A keys: direct file queries and read_files
# over a prefix in materialized views, s3:// and s3a:// alike; `weir query`
# sees the same settings; AWS's environment variables work without keys;
# wrong or missing credentials and a missing bucket fail naming the
# object; the secret appears nowhere weir prints or writes; `dry-run
# --target spark` takes the URLs as Spark would.
s3_start
s3 mb landing
printf '{"id":1,"amount":10}\n{"id":2,"amount":20}\n' > a.json
printf '{"id":3,"amount":30}\n' > b.json
printf 'id,city\n1,Oslo\n2,Lima\n' > c.csv
s3 put s3://landing/orders/a.json a.json
s3 put s3://landing/orders/b.json b.json
s3 put s3://landing/dims/c.csv c.csv
cat > spark-pipeline.yml <<YML
name: s3
storage: storage
libraries:
  - glob:
      include: t/**
configuration:
  spark.hadoop.fs.s3a.endpoint: $S3_ENDPOINT
  spark.hadoop.fs.s3a.path.style.access: "true"
  spark.hadoop.fs.s3a.access.key: $S3_KEY
YML
KEY="--conf spark.hadoop.fs.s3a.secret.key=$S3_SECRET"
# no_secret: the last weir call printed no secret.
no_secret() {
    ! grep -q -e "$S3_SECRET" -e wrong-secret-42 "$WEIR_STDOUT" "$WEIR_STDERR" \
        || e2e_fail "a secret was printed"
}

run_weir run $KEY
expect_exit 0
no_secret
expect_stdout_contains "Run is COMPLETED."
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM orders" "n,s
3,60" $KEY
expect_query "SELECT sum(amount) AS s FROM one" "s
30" $KEY
expect_query "SELECT _c1 AS city FROM dims WHERE _c0 <> 'id' ORDER BY _c0" "city
Oslo
Lima" $KEY
# weir query reads the store itself with the pipeline's settings.
expect_query "SELECT count(*) AS n FROM json.\`s3a://landing/orders/a.json\`" "n
2" $KEY

# Portable: Spark reads the same URLs through Hadoop's S3A.
run_weir dry-run --target spark $KEY
expect_stdout_not_contains "json.\`s3a://landing/orders/b.json\`"

# AWS's own variables instead of Spark's keys.
sed -i '/access.key/d' spark-pipeline.yml
AWS_ACCESS_KEY_ID=$S3_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET \
    run_weir query "SELECT count(*) AS n FROM json.\`s3://landing/orders/b.json\`"
expect_exit 0
no_secret
expect_stdout_contains "│ 1 │"

# No credentials at all: anonymous requests, refused.
run_weir query "SELECT count(*) AS n FROM json.\`s3://landing/orders/b.json\`"
expect_failure
no_secret
expect_stderr_contains "landing/orders/b.json"
expect_stderr_contains "[OBJECT_STORE_ACCESS_DENIED]"
expect_stderr_contains "no credentials were given"

# A wrong secret: the update fails naming the object, and the secret is
# not printed.
run_weir run --conf spark.hadoop.fs.s3a.access.key=$S3_KEY \
    --conf spark.hadoop.fs.s3a.secret.key=wrong-secret-42
expect_failure
no_secret
expect_stderr_contains "HTTP 403"
expect_stderr_contains "landing/orders/b.json"
expect_stderr_not_contains "wrong-secret-42"

# A bucket that does not exist.
run_weir query --conf spark.hadoop.fs.s3a.access.key=$S3_KEY $KEY \
    "SELECT * FROM json.\`s3://no-such-bucket/x.json\`"
expect_failure
no_secret
expect_stderr_contains "no-such-bucket/x.json"

# Nor is it in anything weir wrote: tables, event log, progress file.
run_weir events --conf spark.hadoop.fs.s3a.access.key=$S3_KEY $KEY
expect_exit 0
no_secret
! grep -rlq -e "$S3_SECRET" -e wrong-secret-42 storage || e2e_fail "a secret was written"
