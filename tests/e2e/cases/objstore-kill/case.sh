# kill -9 over object storage (S3Proxy on loopback): an S3 landing prefix
# -> a streaming table -> a partitioned Parquet sink and a gzip CSV sink
# on S3. Before each trial objects land; `weir run` is killed with SIGKILL
# at a random instant of its update (lib.sh's kill_run), then a run that
# is not killed finishes it; after each trial the table and both sinks
# hold every landed row exactly once. WEIR_OBJSTORE_KILLS trials (3 in the
# default suite, 100 in heavy/objstore-kill), WEIR_OBJSTORE_KILL_SEED
# (default 43).
kills=${WEIR_OBJSTORE_KILLS:-$(e2e_size 3 100)}
RANDOM=${WEIR_OBJSTORE_KILL_SEED:-43}
s3_start
s3 mb landing
s3 mb lake
s3_project s3kill
rows=0
# land N: an object of N new rows (ids rows..rows+N-1) in the prefix.
land() {
    python3 - "$rows" "$1" > obj.json <<'PY'
import sys
a, n = int(sys.argv[1]), int(sys.argv[2])
sys.stdout.write("".join('{"id":%d,"k":%d}\n' % (i, i % 3) for i in range(a, a + n)))
PY
    s3 put "s3://landing/orders/o$rows.json" obj.json
    rows=$((rows + $1))
}
# check: every landed row once in the table and in each sink.
check() {
    local q
    for q in bronze "parquet.\`s3://lake/out/pq/k=*/*.parquet\`" \
             "read_files('s3://lake/out/csv/*.csv.gz', format => 'csv', header => true)"; do
        expect_query "SELECT count(*) AS n, count(DISTINCT id) AS d, coalesce(min(id), 0) AS lo, coalesce(max(id), -1) AS hi FROM $q" "n,d,lo,hi
$rows,$rows,0,$((rows - 1))" "${conf[@]}"
    done
}

land 2000
kill_measure "$E2E_OUT/measure.out" "${conf[@]}"
[ "$kill_status" = 0 ] || e2e_fail "the first update failed: $(tail -5 "$E2E_OUT/measure.out")"
check
killed=0
for i in $(seq 1 "$kills"); do
    land $((500 + RANDOM % 1500))
    kill_run "$E2E_OUT/kill-$i.out" 120 "${conf[@]}"
    killed=$((killed + kill_landed))
    echo "trial $i: killed ${kill_delay_ms} ms into the run, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
    run_weir run "${conf[@]}"
    expect_exit 0
    check
done
echo "objstore-kill: $killed of $kills runs killed mid-update" >&2
e2e_heavy && { [ "$killed" -ge $((kills / 3)) ] || e2e_fail "only $killed of $kills kills landed during an update"; }
e2e_pass
