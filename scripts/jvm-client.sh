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
if [ -d "$jars" ] && (cd "$jars" && sha256sum --quiet -c "$pins" >/dev/null 2>&1) &&
   [ "$(ls "$jars" | wc -l)" -eq "$(wc -l <"$pins")" ]; then
    echo "$jars"
    exit 0
fi
command -v mvn >/dev/null || die "Maven (mvn) is needed to fetch the client"
echo "jvm-client.sh: fetching spark-connect-client-jvm 4.1.1 from Maven Central" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mvn -q -B -f "$root/tests/jvm/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp/libs" >&2 \
    || die "mvn could not fetch the client"
(cd "$tmp/libs" && sha256sum --quiet -c "$pins" >&2) \
    || die "integrity check of the client's jars failed (tests/jvm/jars.sha256)"
rm -rf "$jars"
mkdir -p "$(dirname "$jars")"
mv "$tmp/libs" "$jars"
echo "$jars"
