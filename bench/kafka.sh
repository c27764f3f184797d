#!/usr/bin/env bash
# Kafka benchmarks (issue 15), against librdkafka's own speed on the same
# broker (the floor), side by side in one run:
#   source: `weir run` of a streaming table reading MESSAGES messages of a
#           topic (STREAM read_kafka, every column) vs `ktool consume -t`
#           (a read_committed librdkafka consumer of the same topic, with the
#           fetch settings of weir's consumer), and vs `kafka_store`
#           (bench/tools/kafka_store.c: the same work by hand, librdkafka
#           consumers storing every message with DuckDB appenders, one per
#           partition group, in weir's storage format);
#   sink:   `weir run` appending MESSAGES new rows (key, value) to a Kafka
#           sink (one transaction per batch) vs `ktool produce-n -x` (a
#           librdkafka transactional producer of as many messages in one
#           transaction: the same guarantees, acks from all replicas,
#           idempotence); `ktool produce-n` (a plain producer, at most once
#           per message) is shown for comparison.
#   bench/kafka.sh [MESSAGES [BYTES]]   (default 1,000,000 messages of a
#                                       100-byte value; medians of 3)
#   WEIR=path/to/weir KTOOL=path/to/ktool bench/kafka.sh   (build nothing)
# Starts its own broker (scripts/kafka.sh) under bench/work/kafka and stops
# it at the end. Writes the table to bench/work/kafka-latest.md (copy it
# into bench/kafka-RESULTS.md, which keeps the analysis, by hand).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
msgs=${1:-1000000}
size=${2:-100}
parts=4
cd "$root"
if [ -z "${WEIR:-}" ] || [ -z "${KTOOL:-}" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target weir ktool >/dev/null
fi
weir="${WEIR:-$root/build/weir}"
duck="$root/.deps/duckdb"
mkdir -p "$root/bench/work"
cc -O2 -std=c11 -o "$root/bench/work/kafka_store" "$root/bench/tools/kafka_store.c" \
    -I"$duck/include" -L"$duck/lib" -lduckdb -Wl,-rpath,"$duck/lib" -lrdkafka -lpthread
ktool="${KTOOL:-$root/build/ktool}"
work="$root/bench/work/kafka"
rm -rf "$work" && mkdir -p "$work"
broker=$("$root/scripts/kafka.sh" start "$work/broker")
trap '"$root/scripts/kafka.sh" stop "$work/broker" >/dev/null 2>&1 || true' EXIT
kt() { "$ktool" -b "$broker" "$@"; }

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { # command... -> elapsed seconds of the whole process
    local s e
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
    echo "scale=3; ($e - $s) / 1000000000" | bc
}
ratio() { echo "scale=2; $1 / $2" | bc; }
rps() { echo "scale=0; $1 / $2" | bc; }
mbps() { echo "scale=1; $1 / $2 / 1000000" | bc; }

spec() { # dir: a project folder with its spec
    rm -rf "$1" && mkdir -p "$1/transformations"
    printf 'name: kafka_bench\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
        >"$1/spark-pipeline.yml"
}

# ---- data: one topic of MESSAGES messages (the producer floor, 1st run) ----
kt create bench "$parts" >/dev/null
echo "producing $msgs messages of $size bytes" >&2
kt produce-n bench "$msgs" -s "$size" >"$work/produce0.txt"

# ---- source ----------------------------------------------------------------
src="$work/source"
spec "$src"
cat >"$src/transformations/s.sql" <<SQL
CREATE STREAMING TABLE raw AS
SELECT * FROM STREAM read_kafka(bootstrapServers => '$broker', subscribe => 'bench',
                                startingOffsets => 'earliest');
SQL
weir_source() { # a fresh storage each time: the whole topic is new
    rm -rf "$src/storage"
    (cd "$src" && secs "$weir" run --quiet)
    local n
    n=$(cd "$src" && "$weir" query --format csv "SELECT count(*) FROM raw" | tail -1)
    [ "$n" = "$msgs" ] || { echo "the source table holds $n rows, expected $msgs" >&2; exit 1; }
}
floor_consume() { # whole process, and the line ktool prints
    local s e
    s=$(date +%s%N); kt consume bench -t >"$work/consume.txt"; e=$(date +%s%N)
    echo "scale=3; ($e - $s) / 1000000000" | bc
}
floor_store() { # the same work by hand, into a new file each time
    local s e
    rm -f "$work/store.duckdb" "$work/store.duckdb.wal"
    s=$(date +%s%N); "$root/bench/work/kafka_store" "$broker" bench "$work/store.duckdb" >/dev/null
    e=$(date +%s%N)
    echo "scale=3; ($e - $s) / 1000000000" | bc
}
echo "source: weir, ktool consume and kafka_store, 3 runs each, interleaved" >&2
: >"$work/ws" && : >"$work/fc" && : >"$work/fs"
for _ in 1 2 3; do
    weir_source >>"$work/ws"
    floor_consume >>"$work/fc"
    floor_store >>"$work/fs"
done
ws=$(median <"$work/ws")
fc=$(median <"$work/fc")
fs=$(median <"$work/fs")
bytes=$(cut -f 2 "$work/consume.txt")
idle_src=$(cd "$src" && for _ in 1 2 3; do secs "$weir" run --quiet; done | median)

# ---- sink -----------------------------------------------------------------
kt create sink "$parts" >/dev/null
kt create floor "$parts" >/dev/null
snk="$work/sink"
rows_sql="SELECT concat('k', id) AS key, rpad(concat('v', id), $size, 'x') AS value
FROM range(0, $msgs) AS t(id)"
weir_sink() { # a first update finds the source empty; the timed one all rows
    spec "$snk"
    cat >"$snk/transformations/k.sql" <<SQL
CREATE SINK out USING kafka OPTIONS ('kafka.bootstrap.servers' '$broker', topic 'sink');
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT key, value FROM STREAM src;
SQL
    (cd "$snk" && "$weir" query "CREATE TABLE src AS $rows_sql LIMIT 0" >/dev/null &&
        "$weir" run --quiet >/dev/null &&
        "$weir" query "INSERT INTO src $rows_sql" >/dev/null &&
        secs "$weir" run --quiet)
}
floor_produce() { # [-x]
    local s e
    s=$(date +%s%N); kt produce-n floor "$msgs" -s "$size" "$@" >/dev/null; e=$(date +%s%N)
    echo "scale=3; ($e - $s) / 1000000000" | bc
}
# The broker's first transaction creates its transaction log
# (__transaction_state, ~1 s): done here, not in the first timed run.
kt create warm 1 >/dev/null
kt produce-n warm 1 -x >/dev/null
echo "sink: weir, ktool produce-n -x and ktool produce-n, 3 runs each, interleaved" >&2
: >"$work/wk" && : >"$work/fp" && : >"$work/fx"
for _ in 1 2 3; do
    weir_sink >>"$work/wk"
    floor_produce -x >>"$work/fx"
    floor_produce >>"$work/fp"
done
wk=$(median <"$work/wk")
fp=$(median <"$work/fx")
fplain=$(median <"$work/fp")
n=$(kt consume sink -n)
[ "$n" = $((3 * msgs)) ] || { echo "the sink topic holds $n messages, expected $((3 * msgs))" >&2; exit 1; }
idle_snk=$(cd "$snk" && for _ in 1 2 3; do secs "$weir" run --quiet; done | median)

net_src=$(echo "scale=3; $ws - $idle_src" | bc)
net_snk=$(echo "scale=3; $wk - $idle_snk" | bc)
{
echo "# Kafka benchmarks"
echo
echo "Generated by \`bench/kafka.sh $msgs $size\` on $(date -u +%Y-%m-%d), $(nproc) cores"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)),"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), release build,"
echo "Apache Kafka $(ls "$root"/.deps/kafka/libs | sed -n "s/^kafka-clients-\(.*\)\.jar$/\1/p" | head -1) (KRaft, one broker on loopback),"
echo "librdkafka $(pkg-config --modversion rdkafka). Medians of 3 runs, weir and the floor"
echo "interleaved. Every time is a whole process (start-up included); a topic of"
echo "$parts partitions; messages of a ${size}-byte value and a key \`k<i>\`."
echo
echo "| | weir run | floor (librdkafka) | weir / floor | weir - idle run | (weir - idle) / floor | weir rows/s | weir MB/s | floor rows/s |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| source: topic -> streaming table (every column) vs \`ktool consume -t\` | $ws s | $fc s | $(ratio "$ws" "$fc") | $net_src s | $(ratio "$net_src" "$fc") | $(rps "$msgs" "$ws") | $(mbps "$bytes" "$ws") | $(rps "$msgs" "$fc") |"
echo "| sink: table -> topic (transactional) vs \`ktool produce-n -x\` | $wk s | $fp s | $(ratio "$wk" "$fp") | $net_snk s | $(ratio "$net_snk" "$fp") | $(rps "$msgs" "$wk") | $(mbps "$bytes" "$wk") | $(rps "$msgs" "$fp") |"
echo
echo "The same work by hand (\`kafka_store\`: librdkafka consumers storing every"
echo "message with DuckDB appenders in weir's storage format, no checkpoint) took"
echo "${fs} s: weir / same work by hand $(ratio "$ws" "$fs")."
echo
echo "The plain producer (\`ktool produce-n\`, no transaction, no idempotence)"
echo "took ${fplain} s: weir / plain producer $(ratio "$wk" "$fplain")."
echo
echo "MB/s counts key and value bytes ($bytes for the topic). The idle run (the"
echo "same project, nothing new: source ${idle_src} s, sink ${idle_snk} s) is the fixed"
echo "cost of an update (start-up, analysis, the broker round trips of planning,"
echo "opening and closing the storage), included in every weir time. The goal of"
echo "issue 15 is weir within 1.3x of the floor."
} | tee "$root/bench/work/kafka-latest.md"
