#!/usr/bin/env bash
# What a user of an installed libweir does: `cmake --install` the build into
# a temporary prefix, find the library through pkg-config, build every
# example and the quick start of docs/api.md with -Wall -Wextra -Werror
# -pedantic, and run them with nothing but what the prefix holds (no
# LD_LIBRARY_PATH); then the same with the static library. Also checks the
# installed tree: files, RUNPATHs, the CLI.
# Usage: check-install.sh BUILD_DIR EXAMPLES_DIR CC SANITIZE_FLAGS
set -euo pipefail
build=$1 examples=$2 cc=$3 san=$4
src=$(cd "$examples/.." && pwd)
prefix=$(mktemp -d /tmp/weir-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
unset LD_LIBRARY_PATH

cmake --install "$build" --prefix "$prefix" > "$prefix/install.log"
pc=$(find "$prefix" -name weir.pc)
[ -n "$pc" ] || { echo "no weir.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir weir)
includedir=$(pkg-config --variable=includedir weir)
for f in "$includedir/weir.h" "$libdir/libweir.so" "$libdir/libweir.a" \
         "$libdir/libduckdb.so" "$prefix/bin/weir"; do
    [ -e "$f" ] || { echo "not installed: $f"; exit 1; }
done
header_version=$(sed -nE 's/^#define WEIR_VERSION +"([^"]+)"/\1/p' "$includedir/weir.h")
pc_version=$(pkg-config --modversion weir)
[ "$header_version" = "$pc_version" ] \
    || { echo "weir.pc version $pc_version, weir.h $header_version"; exit 1; }
readelf -d "$libdir/libweir.so" | grep -q 'R.*PATH.*\[\$ORIGIN\]' \
    || { echo "libweir.so lacks RUNPATH \$ORIGIN"; readelf -d "$libdir/libweir.so"; exit 1; }
"$prefix/bin/weir" --version
# The UI module the CLI loads for `weir report --html` and `weir ui`
# (libweir-ui.so in libdir): an installed CLI finds it.
[ -e "$libdir/libweir-ui.so" ] || { echo "not installed: $libdir/libweir-ui.so"; exit 1; }
mkdir -p "$prefix/project"
(cd "$prefix/project" && "$prefix/bin/weir" init demo > /dev/null \
    && cd demo && "$prefix/bin/weir" run --quiet > /dev/null \
    && "$prefix/bin/weir" report --html -o report.html 2> /dev/null) \
    || { echo "the installed CLI cannot write a report"; exit 1; }
grep -q "<svg" "$prefix/project/demo/report.html" \
    || { echo "the installed CLI's report has no graph"; exit 1; }
# DuckDB's pinned extensions beside the installed libduckdb.so, where the
# installed CLI loads them from (a statement naming an S3 URL needs httpfs).
[ -e "$libdir/duckdb_extensions/v1.4.4/linux_amd64/httpfs.duckdb_extension" ] \
    || { echo "not installed: DuckDB's extensions in $libdir/duckdb_extensions"; exit 1; }
(cd "$prefix/project/demo" && "$prefix/bin/weir" query "SELECT 's3://b/k' AS u" > /dev/null) \
    || { echo "the installed CLI cannot load DuckDB's httpfs extension"; exit 1; }
echo "installed into $prefix; pkg-config weir: $(pkg-config --cflags --libs weir)"

flags=(-std=c11 -Wall -Wextra -Werror -pedantic)
mkdir -p "$prefix/programs"

# The quick start of docs/api.md, verbatim.
awk '/<!-- test: quickstart -->/ {on = 1; next}
     on && /^```c/ {body = 1; next}
     body && /^```/ {exit}
     body {print}' "$src/docs/api.md" > "$prefix/programs/quickstart.c"
[ -s "$prefix/programs/quickstart.c" ] || { echo "no quick start in docs/api.md"; exit 1; }
cp "$examples"/*.h "$prefix/programs/"

run() {
    echo "== $*"
    "$@"
}

# Shared library, flags from pkg-config only.
for c in "$examples"/*.c "$prefix/programs/quickstart.c"; do
    name=$(basename "$c" .c)
    cp "$c" "$prefix/programs/$name.c" 2>/dev/null || true
    # shellcheck disable=SC2046
    run "$cc" "${flags[@]}" "$prefix/programs/$name.c" \
        $(pkg-config --cflags --libs weir) -o "$prefix/programs/$name"
    readelf -d "$prefix/programs/$name" | grep -q 'NEEDED.*\[libweir\.so' \
        || { echo "$name does not load libweir.so"; exit 1; }
    run "$prefix/programs/$name" > "$prefix/programs/$name.out" \
        || { cat "$prefix/programs/$name.out"; exit 1; }
    tail -1 "$prefix/programs/$name.out"
done

# Static library, as docs/api.md shows it.
# shellcheck disable=SC2046
run "$cc" "${flags[@]}" $(pkg-config --cflags weir) \
    "$prefix/programs/define_sql.c" "$libdir/libweir.a" \
    $(pkg-config --static --libs-only-L --libs-only-other weir) \
    $(pkg-config --static --libs-only-l weir | sed 's/-lweir //') \
    -o "$prefix/programs/define_sql_static"
if readelf -d "$prefix/programs/define_sql_static" | grep -q 'NEEDED.*\[libweir\.so'; then
    echo "the static build still loads libweir.so"
    exit 1
fi
run "$prefix/programs/define_sql_static" > "$prefix/programs/static.out" \
    || { cat "$prefix/programs/static.out"; exit 1; }
tail -1 "$prefix/programs/static.out"
echo "check-install: installed library, pkg-config file and examples OK"
