#!/usr/bin/env bash
# Apache Spark's JVM Spark Connect client (spark-connect-client-jvm 4.1.1
# and its dependencies) from Maven Central, for the e2e/serve-jvm-client
# case: tests/jvm/pom.xml, digests pinned in tests/jvm/jars.sha256, into
# .deps/jvm-client/libs. Idempotent.
#
#   scripts/jvm-client.sh fetch     fetch and verify (prints the folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jars="$root/.deps/jvm-client/libs"
pins="$root/tests/jvm/jars.sha256"
die() { echo "jvm-client.sh: $*" >&2; exit 1; }
[ "${1:-}" = fetch ] || die "usage: jvm-client.sh fetch"
exec "$root/scripts/maven-jars.sh" "spark-connect-client-jvm 4.1.1" \
    "$root/tests/jvm/pom.xml" "$pins" "$jars"
