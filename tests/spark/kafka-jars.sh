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

# Only the pom's own dependencies: the rest ship with pyspark.
exec "$root/scripts/maven-jars.sh" "Spark's Kafka connector (spark-sql-kafka-0-10 4.1.1)" \
    "$root/tests/spark/kafka/pom.xml" "$pins" "$jars" -DexcludeTransitive=true
