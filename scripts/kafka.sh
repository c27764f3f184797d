#!/usr/bin/env bash
# The real Apache Kafka broker of the Kafka tests: fetched from Maven
# Central (tests/kafka/pom.xml, digests pinned in tests/kafka/jars.sha256)
# into .deps/kafka, run in KRaft mode (one combined broker and controller)
# on the machine's Java 17, on loopback ports only.
#
#   scripts/kafka.sh fetch            fetch and verify the jars (idempotent)
#   scripts/kafka.sh start DIR        format DIR, start a broker on a free
#                                     loopback port, wait until it serves;
#                                     prints its bootstrap address (also in
#                                     DIR/bootstrap); pid in DIR/pid
#   scripts/kafka.sh stop DIR         stop that broker (and wait)
#   scripts/kafka.sh pause DIR / resume DIR   SIGSTOP / SIGCONT it
#                                     ("broker down" without losing it)
#
# The broker logs at WARN to DIR/broker.log. It enforces retention every
# second (the default: 30 s after start, then every 5 minutes), so a test
# whose messages carry old timestamps loses them at once, not on a slow day.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jars="$root/.deps/kafka/libs"
pins="$root/tests/kafka/jars.sha256"

die() { echo "kafka.sh: $*" >&2; exit 1; }

fetch() {
    "$root/scripts/maven-jars.sh" "Apache Kafka 4.1.1" "$root/tests/kafka/pom.xml" \
        "$pins" "$jars" >/dev/null
}

free_port() {
    python3 - <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
}

start() {
    local dir=$1
    fetch
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    [ ! -f "$dir/pid" ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null \
        || die "a broker already runs for $dir"
    local port cport
    port=$(free_port)
    cport=$(free_port)
    while [ "$cport" = "$port" ]; do cport=$(free_port); done
    cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.flush.interval.messages=1
log.retention.check.interval.ms=1000
log.initial.task.delay.ms=0
EOF
    cat >"$dir/log4j2.properties" <<EOF
rootLogger.level=WARN
rootLogger.appenderRef.f.ref=F
appender.f.type=File
appender.f.name=F
appender.f.fileName=$dir/broker.log
appender.f.layout.type=PatternLayout
appender.f.layout.pattern=%d %p %c: %m%n
logger.srv.name=kafka.server.KafkaRaftServer
logger.srv.level=INFO
EOF
    local java=(java -Xms256m -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
                -Dlog4j2.configurationFile="$dir/log4j2.properties"
                -cp "$jars/*")
    # A cluster id is 22 URL-safe base64 characters; one that starts with
    # '-' would read as an option.
    local id
    id=$(python3 -c 'import uuid,base64
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break')
    "${java[@]}" kafka.tools.StorageTool format -t "$id" \
        -c "$dir/server.properties" >"$dir/format.log" 2>&1 \
        || die "formatting the broker's storage failed: $(tail -3 "$dir/format.log")"
    setsid "${java[@]}" kafka.Kafka "$dir/server.properties" \
        >"$dir/stdout.log" 2>&1 </dev/null &
    echo $! >"$dir/pid"
    echo "127.0.0.1:$port" >"$dir/bootstrap"
    # Serving: the port accepts and the broker is registered (a metadata
    # answer that lists it).
    local i
    for ((i = 0; i < 600; i++)); do
        kill -0 "$(cat "$dir/pid")" 2>/dev/null \
            || die "the broker exited: $(tail -5 "$dir/stdout.log" "$dir/broker.log" 2>/dev/null)"
        if python3 - "$port" 2>/dev/null <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5)
s.close()
EOF
        then
            grep -q "Kafka Server started" "$dir/broker.log" 2>/dev/null && break
        fi
        sleep 0.2
    done
    [ "$i" -lt 600 ] || die "the broker did not start within 120 s"
    echo "127.0.0.1:$port"
}

stop() {
    local dir=$1
    [ -f "$dir/pid" ] || return 0
    local pid
    pid=$(cat "$dir/pid")
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/pid"
}

case "${1:-}" in
fetch) fetch ;;
start) [ $# -eq 2 ] || die "usage: kafka.sh start DIR"; start "$2" ;;
stop) [ $# -eq 2 ] || die "usage: kafka.sh stop DIR"; stop "$2" ;;
pause) kill -STOP "$(cat "$2/pid")" ;;
resume) kill -CONT "$(cat "$2/pid")" ;;
*) die "usage: kafka.sh fetch | start DIR | stop DIR | pause DIR | resume DIR" ;;
esac
