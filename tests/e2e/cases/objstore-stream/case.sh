# Incremental ingestion from an S3 prefix (S3Proxy on loopback): each
# object is read once, as from a local folder: hidden objects (`_`, `.`)
# are skipped, new objects are picked up by the next update, a rewritten
# object is not read again (as Auto Loader: unlike a local file, without
# a warning, since only new objects are looked up) unless allowOverwrites,
# a deleted one changes nothing; an empty prefix is "not there yet", not
# an error. (1,000+ objects: objstore-many; requests: objstore-requests.)
s3_start
s3 mb landing
s3_project s3stream
put() { printf "$2" > obj.tmp; s3 put "s3://landing/$1" obj.tmp; }

# Nothing landed yet.
run_weir run "${conf[@]}"
expect_exit 0
expect_stdout_contains "does not exist yet"

put orders/a.json '{"id":1,"amount":10}\n{"id":2,"amount":20}\n'
put orders/b.json '{"id":3,"amount":30}\n'
put orders/_tmp.json '{"id":99,"amount":1}\n'
put orders/.part.json '{"id":98,"amount":1}\n'
put orders/_delta_log/x.json '{"id":97,"amount":1}\n'
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM bronze" "n,s
3,60" "${conf[@]}"

# A new object: only it is read.
put orders/c.json '{"id":4,"amount":40}\n'
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM bronze" "n,s
4,100" "${conf[@]}"
expect_query "SELECT count(*) AS n FROM big" "n
0" "${conf[@]}"

# Nothing new: nothing read.
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n FROM bronze" "n
4" "${conf[@]}"

# Rewritten in place: not read again (read again in full with
# allowOverwrites); deleted: no change.
put orders/a.json '{"id":1,"amount":10}\n{"id":2,"amount":20}\n{"id":5,"amount":50}\n'
s3 rm s3://landing/orders/b.json
run_weir run "${conf[@]}"
expect_exit 0
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM bronze" "n,s
4,100" "${conf[@]}"
expect_query "SELECT count(*) AS n, sum(amount) AS s FROM again" "n,s
7,180" "${conf[@]}"
