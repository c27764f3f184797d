#!/usr/bin/env bash
# Capture the Spark checkpoints the import-checkpoint e2e cases import, with
# real Spark:
#
#   tests/spark/checkpoint-fixtures.sh [--files-only|--kafka-only] [VENV]
#                                                 (default build-spark-venv)
#
# tests/e2e/cases/import-checkpoint/spark-<version>/: Spark reads
# /tmp/weir-checkpoint-fixture/in (the case rewrites that prefix in its
# copy): 11 files of 2 rows, one batch per file (so the file source log has
# 9.compact and 10), written as JSON to out/; and a stateful query (a count
# per name) for the refusal of operator state.
#
# tests/e2e/cases/kafka-import-checkpoint/spark-<version>/ (Spark 4.1 only:
# the connector of tests/spark/kafka/ is 4.1): Spark's Kafka source reads
# topic orders of the test broker (scripts/kafka.sh; records produced with
# KTOOL, default build/ktool or build-asan/ktool): a0..a2 in partition 0,
# b0 b1 in partition 1, at most 3 records a batch (two batches); the
# checkpoint is orders/, what Spark wrote out/.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
files=1 kafka=1
case "${1:-}" in
--files-only) kafka=0; shift ;;
--kafka-only) files=0; shift ;;
esac
VENV="${1:-$ROOT/build-spark-venv}"
for j in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk*; do
    if [ -z "${JAVA_HOME:-}" ] && [ -x "$j/bin/java" ]; then JAVA_HOME="$j"; fi
done
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH" TZ=UTC SPARK_LOCAL_IP=127.0.0.1
V="$("$VENV/bin/python" -c 'import pyspark; print(".".join(pyspark.__version__.split(".")[:2]))')"
W=/tmp/weir-checkpoint-fixture
rm -rf "$W"
if [ "$files" = 1 ]; then
    mkdir -p "$W/in"
    for i in $(seq 1 11); do
        n=$(printf %02d "$i")
        printf '{"id":%d,"name":"n%d"}\n{"id":%d,"name":"n%d"}\n' \
            $((i * 10)) $((i % 3)) $((i * 10 + 1)) $((i % 3)) > "$W/in/f$n.json"
    done
    "$VENV/bin/python" "$HERE/checkpoint-job.py" --input "$W/in" --output "$W/out" \
        --checkpoint "$W/files" --max-files 1
    "$VENV/bin/python" "$HERE/checkpoint-job.py" --input "$W/in" --output "$W/unused" \
        --checkpoint "$W/stateful" --stateful
    DEST="$ROOT/tests/e2e/cases/import-checkpoint/spark-$V"
    rm -rf "$DEST"
    mkdir -p "$DEST"
    cp -r "$W/files" "$W/stateful" "$W/out" "$DEST/"
    # Spark's half-written state files (.tmp) are not part of a checkpoint.
    find "$DEST" -name '*.tmp' -delete
    echo "captured Spark $V checkpoints in $DEST"
fi

# The Kafka connector of tests/spark/kafka/ is 4.1.
if [ "$kafka" = 1 ] && [ "$V" = 4.1 ]; then
    KTOOL="${KTOOL:-}"
    for k in "$ROOT/build/ktool" "$ROOT/build-asan/ktool"; do
        if [ -z "$KTOOL" ] && [ -x "$k" ]; then KTOOL="$k"; fi
    done
    [ -n "$KTOOL" ] || { echo "checkpoint-fixtures.sh: no ktool (build it, or set KTOOL)" >&2; exit 1; }
    JARS=$("$HERE/kafka-jars.sh")
    K=$("$ROOT/scripts/kafka.sh" start "$W/kafka")
    trap '"$ROOT/scripts/kafka.sh" stop "$W/kafka"' EXIT
    "$KTOOL" -b "$K" create orders 2 >/dev/null
    printf 'a0\na1\na2\n' | "$KTOOL" -b "$K" produce orders -p 0
    printf 'b0\nb1\n' | "$KTOOL" -b "$K" produce orders -p 1
    "$VENV/bin/python" "$HERE/checkpoint-job.py" --kafka "$K" --topic orders \
        --jars "$JARS" --output "$W/kafka-out" --checkpoint "$W/orders" --max-offsets 3
    DEST="$ROOT/tests/e2e/cases/kafka-import-checkpoint/spark-$V"
    rm -rf "$DEST"
    mkdir -p "$DEST"
    cp -r "$W/orders" "$DEST/orders"
    cp -r "$W/kafka-out" "$DEST/out"
    find "$DEST" -name '*.tmp' -delete
    echo "captured Spark $V Kafka checkpoint in $DEST"
fi
