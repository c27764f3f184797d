#!/usr/bin/env bash
# The public surface, checked on the built binaries:
# - libweir.so exports exactly the functions weir.h declares (WEIR_API),
#   and imports nothing that prints or exits;
# - the weir CLI target links only the public library and the front end
#   beside it, the Spark Connect endpoint weir_connect, and loads the
#   pipeline UI as a module (its configured link libraries, then its dynamic
#   dependencies and symbols: no weir__ internals compiled in but those of
#   the front ends' archives, every weir_ symbol it uses is public);
# - src/cli includes no header but cli.h, weir.h, connect/connect.h and
#   ui/ui.h from the project.
# Usage: check-exports.sh SOURCE_DIR LIBWEIR_SO WEIR_CLI "CLI_LINK_LIBRARIES"
#        "ENDPOINT_ARCHIVES"
set -euo pipefail
src=$1 lib=$2 cli=$3 links=$4 endpoint=${5:-}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Functions declared in the header: "WEIR_API <type> <name>(" possibly with
# the name on the next line.
tr '\n' ' ' < "$src/include/weir.h" | grep -oE 'WEIR_API [^;(]*\(' \
    | grep -oE 'weir_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u > "$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVviu]$/ {print $3}' \
    | sed 's/@.*//' | sort -u > "$tmp/exported"
if ! diff -u "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
    echo "libweir exports differ from weir.h (- declared only, + exported only):"
    cat "$tmp/diff"
    fail=1
else
    echo "libweir exports $(wc -l < "$tmp/exported") functions, all declared in weir.h"
fi

# No function prints or exits.
if nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' \
    | grep -xE 'printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|fputc|putc|fwrite|perror|exit|_exit|_Exit|abort|stdout|stderr|signal|sigaction' ; then
    echo "libweir imports the functions above: the library must not print or exit"
    fail=1
fi

# The CLI's link libraries as configured: the public library (and the
# interface target carrying warning flags), nothing else.
for l in ${links//;/ }; do
    case "$l" in
    weir_shared|weir_warnings|weir_connect|dl) ;;
    *) echo "the weir CLI links '$l': it must link only weir_shared (and weir_connect; dl, to load the UI module)"; fail=1 ;;
    esac
done
# Libraries only some commands need are loaded when used, not linked:
# librdkafka (src/kafka/rdk.c), Graphviz and libmicrohttpd (the UI module).
for f in "$lib" "$cli"; do
    if readelf -d "$f" | grep -E 'NEEDED.*\[lib(rdkafka|gvc|cgraph|microhttpd|gnutls)'; then
        echo "$(basename "$f") links the libraries above: they must be loaded on use"
        fail=1
    fi
done
readelf -d "$cli" | grep -q 'NEEDED.*\[libweir\.so' \
    || { echo "the weir CLI does not load libweir.so"; fail=1; }
# Symbols the endpoint's static archives bring in are allowed.
: > "$tmp/endpoint"
for a in ${endpoint//;/ }; do
    nm --defined-only "$a" 2>/dev/null | awk 'NF == 3 {print $3}' >> "$tmp/endpoint"
done
sort -u -o "$tmp/endpoint" "$tmp/endpoint"
if nm --defined-only "$cli" | awk '{print $3}' | grep -E '^weir_' | sort -u \
    | comm -23 - "$tmp/endpoint" | grep . ; then
    echo "the weir CLI defines the library symbols above: it must only call libweir"
    fail=1
fi
nm -D --undefined-only "$cli" | awk '{print $2}' | sed 's/@.*//' \
    | grep -E '^weir_' | sort -u > "$tmp/used"
if comm -23 "$tmp/used" "$tmp/declared" | grep . ; then
    echo "the weir CLI uses the non-public symbols above"
    fail=1
fi

# Sources: only cli.h and weir.h from the project.
if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/cli/*.c "$src"/src/cli/*.h \
    | grep -vE '"(cli\.h|weir\.h|connect/connect\.h|ui/ui\.h)"' ; then
    echo "src/cli includes the project headers above: use weir.h only"
    fail=1
fi
[ "$fail" = 0 ] && echo "check-exports: public surface OK"
exit $fail
