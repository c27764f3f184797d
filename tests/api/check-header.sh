#!/usr/bin/env bash
# weir.h on its own as C99, C11 and C++ (several standards), with pedantic
# warnings as errors; the C99 and C++ builds are also linked against
# libweir and run, which checks C linkage of the declarations.
# Usage: check-header.sh INCLUDE_DIR CC OUT_DIR SANITIZE_FLAGS LIBWEIR
set -euo pipefail
inc=$1 cc=$2 out=$3 san=$4 lib=$5
here=$(cd "$(dirname "$0")" && pwd)
cxx=${CXX:-$(command -v g++ || command -v c++ || true)}
mkdir -p "$out"
warn=(-Wall -Wextra -Werror -pedantic -Wshadow -Wundef)
libdir=$(dirname "$lib")
link=(-L"$libdir" -lweir -Wl,-rpath,"$libdir" $san)

for std in c99 c11 c17; do
    echo "== $std"
    "$cc" -std=$std "${warn[@]}" -Wstrict-prototypes -I"$inc" -c \
        "$here/header_check.c" -o "$out/header_$std.o"
done
"$cc" -std=c99 "${warn[@]}" $san -I"$inc" "$here/header_check.c" \
    "${link[@]}" -o "$out/header_c99"
"$out/header_c99"

if [ -z "$cxx" ]; then
    echo "no C++ compiler found" >&2
    exit 1
fi
for std in c++11 c++17 c++20; do
    echo "== $std"
    "$cxx" -x c++ -std=$std "${warn[@]}" -I"$inc" -c "$here/header_check.c" \
        -o "$out/header_$std.o"
done
"$cxx" -x c++ -std=c++11 "${warn[@]}" $san -I"$inc" "$here/header_check.c" \
    -x none "${link[@]}" -o "$out/header_cxx"
"$out/header_cxx"
echo "check-header: weir.h compiles as C99, C11, C17 and C++11/17/20"
