#!/usr/bin/env bash
# Install what a fresh machine lacks to build and test weir: Debian packages
# and the pinned DuckDB 1.4.4 C library, fetched from the npm registry and
# checked against pinned SHA-512 digests. Idempotent: a second run only
# verifies. DuckDB lands in .deps/duckdb (ignored by git).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
duck="$deps/duckdb"

# --- Debian packages --------------------------------------------------------
# jq, bc and time are used by tests and benchmarks; Java 17 by the Spark
# differential tier. libgraphviz-dev (the graph layout) and
# libmicrohttpd-dev (the HTTP server) build the pipeline UI (src/ui);
# chromium and firefox-esr load its pages in the e2e/ui browser test
# (Firefox driven through its WebDriver BiDi endpoint by the system
# Python's websocket client, python3-websocket); libxml2 validates
# weir test's JUnit reports against a schema (e2e/test-command).
pkgs=(cmake ninja-build gcc g++ pkg-config libyaml-dev clang-14 llvm-14
      libclang-rt-14-dev curl ca-certificates python3 python3-venv graphviz
      jq bc time openjdk-17-jre-headless
      protobuf-compiler protobuf-c-compiler libprotobuf-c-dev libnghttp2-dev
      librdkafka-dev zlib1g-dev maven libgraphviz-dev libmicrohttpd-dev
      chromium firefox-esr python3-websocket libxml2)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fetch() { # url digest dest (the digest's length says SHA-256 or SHA-512)
    curl -sSfL --retry 3 -o "$3" "$1"
    local got
    if [ ${#2} -eq 64 ]; then got=$(sha256sum "$3" | awk '{print $1}')
    else got=$(sha512sum "$3" | awk '{print $1}'); fi
    if [ "$got" != "$2" ]; then
        echo "bootstrap: integrity check failed for $1" >&2
        echo "  expected $2" >&2
        echo "  got      $got" >&2
        exit 1
    fi
}

# --- nanoarrow 0.7.0 (pinned): Arrow IPC for the Spark Connect endpoint -------
# Debian has no nanoarrow; the source distribution of the `nanoarrow`
# package on PyPI carries its C sources (and flatcc's runtime, which its IPC
# module uses). Only the C sources are kept, in .deps/nanoarrow; CMake
# builds them into a static library that only src/connect links.
na="$deps/nanoarrow"
na_url=https://files.pythonhosted.org/packages/c6/40/25d6aa925c997d5bcba6e16ccba1e4f8a08b46318d50941d20132f815cd2/nanoarrow-0.7.0.tar.gz
na_sha=e333e639f02d97c01834c8e3fd25fb945ed53196bdfaeb129dd5a7b9f4233d39
if [ ! -f "$na/.stamp" ] || [ "$(cat "$na/.stamp")" != "$na_sha" ]; then
    echo "bootstrap: fetching nanoarrow 0.7.0 from PyPI"
    fetch "$na_url" "$na_sha" "$tmp/nanoarrow.tgz"
    tar -xzf "$tmp/nanoarrow.tgz" -C "$tmp"
    sub="$tmp/nanoarrow-0.7.0/subprojects"
    rm -rf "$na"
    mkdir -p "$na/src" "$na/flatcc"
    cp -R "$sub/arrow-nanoarrow/src/nanoarrow" "$na/src/"
    flatcc=$(ls -d "$sub"/flatcc-*)
    cp -R "$flatcc/include" "$flatcc/src" "$na/flatcc/"
    cp "$flatcc/LICENSE" "$na/flatcc/"
    cp "$sub/arrow-nanoarrow/LICENSE.txt" "$na/" 2>/dev/null || true
    echo "$na_sha" > "$na/.stamp"
fi

# --- DuckDB 1.4.4 (pinned) ----------------------------------------------------
hdr_url=https://registry.npmjs.org/duckdb/-/duckdb-1.4.4.tgz
hdr_sha=844249e61c9517454b8f776638ba6c5ab411d1bddde1892ab72826ea25178c72430e74aa83f5122b171be6abcdace84560f824b5ac94e9d5c2b603ea7269a9a2
lib_url=https://registry.npmjs.org/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-1.4.4-r.4.tgz
lib_sha=8c14cbfd6bdfc312d3a056bfa551df4fa7a532d96d2469dcdf04aec590fd39f325b62b7d614755152dfbbc1150cd7313d59f0e5a3b528cc87eccf2b13b01cb1c
stamp="$duck/.stamp"
want_stamp="$hdr_sha $lib_sha"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] \
   && [ -f "$duck/include/duckdb.h" ] && [ -f "$duck/lib/libduckdb.so" ]; then
    exit 0
fi

echo "bootstrap: fetching DuckDB 1.4.4 from the npm registry"
fetch "$hdr_url" "$hdr_sha" "$tmp/hdr.tgz"
fetch "$lib_url" "$lib_sha" "$tmp/lib.tgz"
tar -xzf "$tmp/hdr.tgz" -C "$tmp" package/src/duckdb/src/include/duckdb.h
mkdir -p "$tmp/lib" && tar -xzf "$tmp/lib.tgz" -C "$tmp/lib" package/libduckdb.so
rm -rf "$duck"
mkdir -p "$duck/include" "$duck/lib"
mv "$tmp/package/src/duckdb/src/include/duckdb.h" "$duck/include/"
mv "$tmp/lib/package/libduckdb.so" "$duck/lib/"
echo "$want_stamp" > "$stamp"
echo "bootstrap: DuckDB ready in $duck"
