#!/usr/bin/env bash
# Jars pinned by SHA-256, fetched from Maven Central: the one place the
# test tools (the Kafka broker, Spark's JVM Connect client, Spark's Kafka
# connector) get their jars. Idempotent: a folder whose jars match the pins
# is kept; otherwise Maven copies the pom's dependencies into a temporary
# folder, every digest is checked, and only then does it replace DEST.
#
#   scripts/maven-jars.sh WHAT POM PINS DEST [MAVEN_ARG...]
#     WHAT       what it fetches, for messages ("Apache Kafka 4.1.1")
#     POM        the pom.xml whose dependencies are the jars
#     PINS       `sha256sum` lines, one per jar
#     DEST       the folder of jars (printed when ready)
#     MAVEN_ARG  for dependency:copy-dependencies (default: runtime scope)
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: maven-jars.sh WHAT POM PINS DEST [MAVEN_ARG...]" >&2; exit 2; }
what=$1 pom=$(realpath "$2") pins=$(realpath "$3") dest=$4
shift 4
[ $# -gt 0 ] || set -- -DincludeScope=runtime

die() { echo "maven-jars.sh: $*" >&2; exit 1; }

matches() { # DIR: exactly the pinned jars, each with its digest
    [ -d "$1" ] && (cd "$1" && sha256sum --quiet -c "$pins" >/dev/null 2>&1) &&
        [ "$(ls "$1" | wc -l)" -eq "$(wc -l <"$pins")" ]
}

if ! matches "$dest"; then
    command -v mvn >/dev/null || die "Maven (mvn) is needed to fetch $what"
    echo "maven-jars.sh: fetching $what from Maven Central" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    mvn -q -B -f "$pom" dependency:copy-dependencies "$@" \
        -DoutputDirectory="$tmp/jars" >&2 || die "mvn could not fetch $what"
    (cd "$tmp/jars" && sha256sum --quiet -c "$pins" >&2) ||
        die "integrity check of $what failed ($pins)"
    [ "$(ls "$tmp/jars" | wc -l)" -eq "$(wc -l <"$pins")" ] ||
        die "mvn fetched other jars than $pins lists"
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    mv "$tmp/jars" "$dest"
fi
echo "$dest"
