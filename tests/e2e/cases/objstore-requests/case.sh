# What an update costs in requests to S3, counted by a proxy in front of
# the server (tests/s3/proxy.py): the prefix is listed once per batch (one
# listing feeds planning and reading; nothing is listed again at
# resolution when the flow gives its schema, nor after the read), and only
# new objects are looked up (a HEAD each) and read, however many objects
# the prefix already holds.
s3_start
s3 mb landing
s3_proxy_start
s3_project s3req "$S3_PROXY"
mkdir -p "$S3_DIR/data/landing/orders"
for i in $(seq 1 30); do
    printf '{"id":%d,"amount":1}\n' "$i" > "$S3_DIR/data/landing/orders/o$i.json"
done
# expect_requests KIND N: the last update made N requests of KIND.
expect_requests() {
    local n
    n=$(s3_requests "$1")
    [ "$n" -eq "$2" ] || e2e_fail "expected $2 $1 requests, the update made $n: $(sort "$S3_PROXY_LOG" | uniq -c | sort -rn | head -5)"
}

: > "$S3_PROXY_LOG"
run_weir run "${conf[@]}"
expect_exit 0
expect_requests LIST 1
expect_requests GET 30
expect_query "SELECT count(*) AS n FROM bronze" "n
30" "${conf[@]}"

# Two new objects among 32: one listing, two objects looked up and read.
for i in 31 32; do
    printf '{"id":%d,"amount":1}\n' "$i" > "$S3_DIR/data/landing/orders/o$i.json"
done
: > "$S3_PROXY_LOG"
run_weir run "${conf[@]}"
expect_exit 0
expect_requests LIST 1
expect_requests GET 2
n=$(s3_requests HEAD)
[ "$n" -le 4 ] || e2e_fail "expected at most 4 HEAD requests (2 new objects), got $n"
expect_query "SELECT count(*) AS n FROM bronze" "n
32" "${conf[@]}"

# Nothing new: the listing only.
: > "$S3_PROXY_LOG"
run_weir run "${conf[@]}"
expect_exit 0
expect_requests LIST 1
expect_requests HEAD 0
expect_requests GET 0
