#!/usr/bin/env bash
# The S3-compatible server of the object storage tests: S3Proxy 2.6.0 from
# Maven Central (tests/s3/pom.xml, digest pinned in tests/s3/jars.sha256)
# in .deps/s3proxy, with its filesystem backend, on the machine's Java 17,
# on a loopback port only. Chosen over MinIO (AGPL) and SeaweedFS (a Go
# build): one Apache-2.0 jar, maintained, that implements S3's REST API
# and its V4 signatures over plain folders.
#
#   scripts/s3.sh fetch              fetch and verify the jar (idempotent)
#   scripts/s3.sh start DIR          start a server on a free loopback port
#                                    storing its buckets under DIR/data;
#                                    prints its endpoint
#                                    (http://127.0.0.1:PORT, also in
#                                    DIR/endpoint); pid in DIR/pid
#   scripts/s3.sh stop DIR           stop it (and wait)
#   scripts/s3.sh put DIR URL FILE   upload FILE as s3://bucket/key URL
#   scripts/s3.sh mb DIR BUCKET      create a bucket
#   scripts/s3.sh rm DIR URL         delete an object
#   scripts/s3.sh proxy DIR          start tests/s3/proxy.py in front of
#                                    the server (stopped with it): prints
#                                    its endpoint; each request it passes
#                                    is a line of DIR/proxy.log, and
#                                    DIR/proxy.rules makes it answer some
#                                    with errors (503 SlowDown, ...)
#
# The access key is "weir-test", the secret "weir-test-secret" (S3Proxy's
# identity and credential); requests must be signed (V2 or V4).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jars="$root/.deps/s3proxy"
pins="$root/tests/s3/jars.sha256"
KEY=weir-test
SECRET=weir-test-secret

die() { echo "s3.sh: $*" >&2; exit 1; }

fetch() {
    "$root/scripts/maven-jars.sh" "S3Proxy 2.6.0" "$root/tests/s3/pom.xml" \
        "$pins" "$jars" >/dev/null
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local dir=$1
    fetch
    mkdir -p "$dir/data"
    dir=$(cd "$dir" && pwd -P)
    [ ! -f "$dir/pid" ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null \
        || die "a server already runs for $dir"
    local port
    port=$(free_port)
    cat >"$dir/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$KEY
s3proxy.credential=$SECRET
jclouds.provider=filesystem
jclouds.filesystem.basedir=$dir/data
CONF
    java -Xmx256m -jar "$jars"/s3proxy-*.jar --properties "$dir/s3proxy.conf" \
        >"$dir/server.log" 2>&1 &
    echo $! >"$dir/pid"
    for _ in $(seq 1 1200); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
            echo "http://127.0.0.1:$port" | tee "$dir/endpoint"
            return 0
        fi
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
        sleep 0.1
    done
    tail -20 "$dir/server.log" >&2
    stop "$dir"
    die "S3Proxy did not start"
}

proxy() {
    local dir=$1
    [ -f "$dir/endpoint" ] || die "no server runs for $dir"
    rm -f "$dir/proxy.port"
    : >"$dir/proxy.log"
    python3 "$root/tests/s3/proxy.py" "$(cat "$dir/endpoint")" "$dir/proxy.log" \
        "$dir/proxy.rules" "$dir/proxy.port" >/dev/null 2>"$dir/proxy.err" &
    echo $! >"$dir/proxy.pid"
    for _ in $(seq 1 100); do
        if [ -s "$dir/proxy.port" ]; then
            echo "http://127.0.0.1:$(cat "$dir/proxy.port")"
            return 0
        fi
        sleep 0.1
    done
    cat "$dir/proxy.err" >&2
    die "the proxy did not start"
}

stop() {
    local dir=$1 pid
    if [ -f "$dir/proxy.pid" ]; then
        kill "$(cat "$dir/proxy.pid")" 2>/dev/null || true
        rm -f "$dir/proxy.pid"
    fi
    [ -f "$dir/pid" ] || return 0
    pid=$(cat "$dir/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/pid"
}

# curl, signed with the test key (S3Proxy needs the payload hash header).
s3curl() {
    curl -sSf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

http_url() { # DIR s3://bucket/key -> endpoint/bucket/key
    echo "$(cat "$1/endpoint")/${2#s3://}"
}

case "${1:-}" in
fetch) fetch ;;
start) [ $# -eq 2 ] || die "usage: s3.sh start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: s3.sh stop DIR"; stop "$2" ;;
put) [ $# -eq 4 ] || die "usage: s3.sh put DIR URL FILE"
     s3curl -o /dev/null -T "$4" "$(http_url "$2" "$3")" ;;
mb) [ $# -eq 3 ] || die "usage: s3.sh mb DIR BUCKET"
    s3curl -o /dev/null -X PUT "$(cat "$2/endpoint")/$3" ;;
proxy) [ $# -eq 2 ] || die "usage: s3.sh proxy DIR"; proxy "$2" ;;
rm) [ $# -eq 3 ] || die "usage: s3.sh rm DIR URL"
    s3curl -o /dev/null -X DELETE "$(http_url "$2" "$3")" ;;
*) die "usage: s3.sh fetch | start DIR | stop DIR | proxy DIR | put DIR URL FILE | mb DIR BUCKET | rm DIR URL" ;;
esac
