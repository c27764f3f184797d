#!/usr/bin/env bash
# Spark's Kafka connector for the Spark tier (the Kafka Structured
# Streaming job of import_checkpoint.py and checkpoint-fixtures.sh): fetched
# from Maven Central (tests/spark/kafka/pom.xml, digests pinned in
# tests/spark/kafka/jars.sha256) into build-spark-kafka/ (SPARK_KAFKA_JARS),
# verified, idempotent. Prints the folder; give its jars to Spark as
# spark.jars.
#
#   tests/spark/kafka-jars.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
jars="${SPARK_KAFKA_JARS:-$root/build-spark-kafka}"
pins="$root/tests/spark/kafka/jars.sha256"

die() { echo "kafka-jars.sh: $*" >&2; exit 1; }

verify() {
    [ -d "$jars" ] || return 1
    (cd "$jars" && sha256sum --quiet -c "$pins" >/dev/null 2>&1) || return 1
    [ "$(ls "$jars" | wc -l)" -eq "$(wc -l <"$pins")" ]
}

if ! verify; then
    command -v mvn >/dev/null || die "Maven (mvn) is needed to fetch Spark's Kafka connector"
    echo "kafka-jars.sh: fetching spark-sql-kafka-0-10 from Maven Central" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # Only the pom's own dependencies: the rest ship with pyspark.
    mvn -q -B -f "$root/tests/spark/kafka/pom.xml" dependency:copy-dependencies \
        -DexcludeTransitive=true -DoutputDirectory="$tmp/jars" >&2 \
        || die "mvn could not fetch the connector"
    (cd "$tmp/jars" && sha256sum --quiet -c "$pins" >&2) \
        || die "integrity check of the connector's jars failed (tests/spark/kafka/jars.sha256)"
    [ "$(ls "$tmp/jars" | wc -l)" -eq "$(wc -l <"$pins")" ] \
        || die "mvn fetched other jars than tests/spark/kafka/jars.sha256 lists"
    rm -rf "$jars"
    mkdir -p "$(dirname "$jars")"
    mv "$tmp/jars" "$jars"
fi
echo "$jars"
