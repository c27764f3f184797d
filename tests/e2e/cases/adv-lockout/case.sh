# Local lock-out (issue 39, item 4): hundreds of connections that never
# send the token, idle or trickling a byte at a time, do not keep a
# legitimate client out of `weir serve`, of the one-time endpoint that
# `weir run` opens for its Python, or of `weir ui`. The flood runs as
# another user when the case can (root with setpriv), as a local attacker
# would; else as this one. The flood reopens what the servers close.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)

fdir=$(mktemp -d /tmp/weir-flood.XXXXXX)
flood_pid=
flood_cleanup() {
    [ -z "$flood_pid" ] || kill -KILL "$flood_pid" 2>/dev/null || true
    rm -rf "$fdir"
}
e2e_at_exit flood_cleanup
cp "$E2E_CASE/flood.py" "$fdir/"
chmod 755 "$fdir"
flooder=(python3) rate=20
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    other=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups)
    if "${other[@]}" /usr/bin/python3 -c '' 2>/dev/null; then
        flooder=("${other[@]}" /usr/bin/python3)
        chmod 1777 "$fdir"
        rate=200
    fi
fi
# flood TARGET IDLE SLOW PAYLOAD FILLER: start holding connections;
# returns once the first round is open.
flood() {
    rm -f "$fdir/ready" "$fdir/ready.closed" "$fdir/stop"
    "${flooder[@]}" "$fdir/flood.py" "$1" "$2" "$3" "$4" "$5" "$fdir/ready" \
        "$fdir/stop" "$rate" >"$fdir/flood.out" 2>&1 &
    flood_pid=$!
    for _ in $(seq 1 600); do
        [ -s "$fdir/ready" ] && break
        kill -0 "$flood_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -s "$fdir/ready" ] || e2e_fail "the flood did not start: $(cat "$fdir/flood.out")"
}
# unflood: stop the flood once it has seen the server close one of its
# connections (the server evicts the oldest as new ones come; the flood
# notices on its next rounds, which a quick client can beat).
unflood() {
    for _ in $(seq 1 600); do
        [ -e "$fdir/ready.closed" ] && break
        kill -0 "$flood_pid" 2>/dev/null || break
        sleep 0.1
    done
    touch "$fdir/stop"
    wait "$flood_pid" || true
    flood_pid=
    cat "$fdir/flood.out" >>"$E2E_OUT/flood.log"
    grep -q "closed by the server [1-9]" "$fdir/flood.out" ||
        e2e_fail "the server closed none of the flood's connections: $(cat "$fdir/flood.out")"
}
# HTTP/2: the preface and an empty SETTINGS frame, then PING frames, a
# byte at a time.
H2_PREFACE='PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00'
H2_PING='\x00\x00\x08\x06\x00\x00\x00\x00\x00abcdefgh'

# --- weir serve ---------------------------------------------------------------
cp -R "$E2E_CASE/../serve-common/project" project
cd project
run_weir run
expect_exit 0
start_server --spec spark-pipeline.yml
port=${url#sc://localhost:}
port=${port%%/*}
flood "tcp:$port" 300 60 "$H2_PREFACE" "$H2_PING"
timeout 120 "$py" - "$url" >"$E2E_OUT/client.out" 2>&1 <<'PY' ||
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print(spark.sql("SELECT count(*) AS n FROM by_customer").collect()[0].n)
PY
    e2e_fail "the client did not get in: $(tail -5 "$E2E_OUT/client.out")"
expect_equal "rows seen by the client" "$(tail -1 "$E2E_OUT/client.out")" 3
unflood
stop_server TERM

# --- weir ui ------------------------------------------------------------------
start_ui
port=${base##*:}
# HTTP/1.1: a request line, then a header that never ends.
flood "tcp:$port" 60 300 'GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' 'a'
code=$(curl -s -o "$E2E_OUT/state.json" -w '%{http_code}' --max-time 60 \
    "${auth[@]}" "$base/api/state" || true)
expect_equal "weir ui answers the client with the token" "$code" 200
unflood
stop_ui
cd ..

# --- the one-time endpoint of weir run ----------------------------------------
# Python starts once the flood holds its connections to the endpoint.
mkdir -p pyproj/transformations
cat >pyproj/spark-pipeline.yml <<'YML'
name: flooded
storage: storage
libraries:
  - glob:
      include: transformations/**
YML
cat >pyproj/transformations/defs.py <<'PY'
from pyspark import pipelines as dp


@dp.materialized_view
def numbers():
    return spark.range(4)
PY
# Python runs as the wrapper's child, not in its place: weir's
# grandchildren are served too.
cat >pyproj/python <<SH
#!/bin/sh
for i in \$(seq 1 600); do [ -s "$fdir/ready" ] && break; sleep 0.1; done
"$py" "\$@"
SH
chmod +x pyproj/python
cd pyproj
rm -f "$fdir/ready"
WEIR_PYTHON=$PWD/python WEIR_PYTHON_TIMEOUT=120 "$WEIR" run >"$E2E_OUT/run.out" 2>&1 &
run_pid=$!
targets=
for _ in $(seq 1 600); do
    targets=$(python3 "$E2E_CASE/listeners.py" "$run_pid" 2>/dev/null || true)
    [ -n "$targets" ] && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.05
done
[ -n "$targets" ] || e2e_fail "no endpoint of weir run was seen: $(cat "$E2E_OUT/run.out")"
flood "$(head -1 <<<"$targets")" 300 60 "$H2_PREFACE" "$H2_PING"
rc=0
wait "$run_pid" || rc=$?
expect_equal "weir run exit status" "$rc" 0
grep -q "Run is COMPLETED." "$E2E_OUT/run.out" || e2e_fail "the run did not complete: $(tail -5 "$E2E_OUT/run.out")"
unflood
