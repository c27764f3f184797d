# A prefix of 1,200 objects on S3 (S3Proxy on loopback) is listed and
# read whole, each object once; one more object is then the only one read.
# Under the heavy label: about a minute under ASan on an idle machine.
s3_start
s3 mb landing
s3_project s3many

# 1,200 objects in one prefix (written into the server's folder).
mkdir -p "$S3_DIR/data/landing/many"
for i in $(seq 1000 2199); do
    printf '{"id":%d,"amount":1}\n' "$i" > "$S3_DIR/data/landing/many/o$i.json"
done
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d FROM big" "n,d
1200,1200" "${conf[@]}"
printf '{"id":5000,"amount":1}\n' > "$S3_DIR/data/landing/many/o5000.json"
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n FROM big" "n
1201" "${conf[@]}"
