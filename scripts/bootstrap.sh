#!/usr/bin/env bash
# Install what a fresh machine lacks to build and test weir: Debian packages,
# the pinned DuckDB 1.4.4 C library (from the npm registry, checked against
# pinned SHA-512 digests) and DuckDB's official extensions for that version
# (from PyPI, checked against pinned SHA-256 digests). Idempotent: a second
# run only verifies. DuckDB lands in .deps/duckdb (ignored by git), its
# extensions in .deps/duckdb/lib/duckdb_extensions.
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
# postgresql and mariadb-server are the throwaway database servers of the
# db-* cases (scripts/pg.sh, scripts/mysql.sh; their Debian services are
# never used).
pkgs=(cmake ninja-build gcc g++ pkg-config libyaml-dev clang-14 llvm-14
      libclang-rt-14-dev curl ca-certificates python3 python3-venv graphviz
      jq bc time openjdk-17-jre-headless
      protobuf-compiler protobuf-c-compiler libprotobuf-c-dev libnghttp2-dev
      librdkafka-dev zlib1g-dev maven libgraphviz-dev libmicrohttpd-dev
      chromium firefox-esr python3-websocket libxml2 postgresql mariadb-server)
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

if ! { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] &&
       [ -f "$duck/include/duckdb.h" ] && [ -f "$duck/lib/libduckdb.so" ]; }; then
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
fi

# --- DuckDB's extensions for 1.4.4 (pinned) ------------------------------------
# DuckDB publishes its official extensions for each release on PyPI as
# wheels named duckdb-ext-<name>; each holds
# duckdb_ext/extensions/v1.4.4/linux_amd64/<file>.duckdb_extension, signed
# by DuckDB (weir's libduckdb loads them without allow_unsigned_extensions).
# They are unpacked into duckdb_extensions/ beside libduckdb.so, laid out
# as DuckDB's extension_directory: weir points that setting there and loads
# an extension only when a pipeline uses it (src/store/extensions.c,
# docs/object-storage.md); nothing is ever downloaded at run time.
#   name      wheel path on files.pythonhosted.org/packages/          sha256
exts=(
"httpfs   0e/f8/3698fe63a7426a9267bcf132a68ce25ef881b18e6c0a7f8366acbdafb0ac c5ea47d6804910747e7816198168ce4ac100ca5f748d6a0e55ead994aa047329"
"aws      c8/06/77120e2045009402662b943417ac2211f63718447c4dc84b2bc064108af9 8c8671d8e0e612ef86c4949de86137ff859b595901a6da178bfb54f91e808687"
"azure    ca/a7/c7ca6f39b3888e91c7713614ae472ab6269f10c103fb673034db43e4c2bd 30cac0957694a59872fc39821a8073921b7e9d5f9afc27b05af3906fe7850d8e"
"delta    b2/77/c79dcd8e7caf7ca823587cc47d543b47887198b9de245566598567c4f5aa dc5d1b7e9ff868ba54a785410aa000a0eadea7c373fbb171fa5acf8e8a407ede"
"postgres fd/d1/d59c34d0ccc62daaea0e6d6024d90019b0cda90e58a9405047fa2c0dbd8e 66eb172befd14de5929fb47ea1d5ea29866d95f9a7aa4f9006d4a8c4ecc2882f"
"mysql    67/90/e0a7ad7e1c7027b68914dc29c7ce0713dfe68a8bc74fdc67351f2e6aeeed d20a4c2976cb8ba89e915abfe63507e045d16cf1e30b3322aff4bcf99bd4f6c0"
"sqlite   29/b4/ff1425f168c37c208231a4d8e59fa53ff4f77f429eda9b3e3529b0c0a6ed a2f73b3207eef95095b8511063baa35cdbf40307b33822ae1bf8ec0c0ae77173"
"tpch     0f/09/363a48e08865e8d2edc49b0a1dcb7563e23848574ea79c42fc19183f13be 0c125b61008c5c1f28aaacb2ea492088512f5f8bab0aa3e10dd1041ab7c25f7e"
)
ext_version=1.4.4.20260205
ext_dir="$duck/lib/duckdb_extensions"
ext_sub="v1.4.4/linux_amd64"
for e in "${exts[@]}"; do
    read -r name path sha <<<"$e"
    mark="$ext_dir/.$name.stamp"
    [ -f "$mark" ] && [ "$(cat "$mark")" = "$sha" ] && continue
    wheel="duckdb_ext_$name-$ext_version-py3-none-manylinux_2_28_x86_64.whl"
    echo "bootstrap: fetching DuckDB's $name extension ($ext_version) from PyPI"
    fetch "https://files.pythonhosted.org/packages/$path/$wheel" "$sha" "$tmp/$name.whl"
    rm -rf "$tmp/$name"
    python3 -m zipfile -e "$tmp/$name.whl" "$tmp/$name"
    mkdir -p "$ext_dir/$ext_sub"
    found=0
    for f in "$tmp/$name/duckdb_ext/extensions/$ext_sub/"*.duckdb_extension; do
        [ -f "$f" ] || continue
        mv "$f" "$ext_dir/$ext_sub/"
        found=1
    done
    [ "$found" = 1 ] || { echo "bootstrap: $wheel holds no $ext_sub extension" >&2; exit 1; }
    echo "$sha" > "$mark"
done
