#!/usr/bin/env bash
# Capture the Spark checkpoints the import-checkpoint e2e case imports
# (tests/e2e/cases/import-checkpoint/spark-<version>/), with real Spark:
#
#   tests/spark/checkpoint-fixtures.sh [VENV]     (default build-spark-venv)
#
# Spark reads /tmp/weir-checkpoint-fixture/in (the case rewrites that
# prefix in its copy): 11 files of 2 rows, one batch per file (so the file
# source log has 9.compact and 10), written as JSON to out/; and a
# stateful query (a count per name) for the refusal of operator state.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${1:-$ROOT/build-spark-venv}"
for j in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk*; do
    if [ -z "${JAVA_HOME:-}" ] && [ -x "$j/bin/java" ]; then JAVA_HOME="$j"; fi
done
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH" TZ=UTC SPARK_LOCAL_IP=127.0.0.1
V="$("$VENV/bin/python" -c 'import pyspark; print(".".join(pyspark.__version__.split(".")[:2]))')"
W=/tmp/weir-checkpoint-fixture
rm -rf "$W"
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
