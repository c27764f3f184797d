#!/usr/bin/env bash
# The JDBC drivers of the Spark tier's database type check
# (tests/spark/jdbc_types.py): fetched from Maven Central
# (tests/spark/jdbc/pom.xml, digests pinned in tests/spark/jdbc/jars.sha256)
# into build-spark-jdbc/ (SPARK_JDBC_JARS), verified, idempotent. Prints
# the folder; give its jars to Spark as spark.jars.
#
#   tests/spark/jdbc-jars.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
jars="${SPARK_JDBC_JARS:-$root/build-spark-jdbc}"
exec "$root/scripts/maven-jars.sh" "JDBC drivers (PostgreSQL, MySQL Connector/J, SQLite)" \
    "$root/tests/spark/jdbc/pom.xml" "$root/tests/spark/jdbc/jars.sha256" "$jars" \
    -DexcludeTransitive=true
