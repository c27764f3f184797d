#!/usr/bin/env bash
# Memcheck over the CLI's common paths: runs a representative set of weir
# commands (init, dry-run, run twice, graph, query, events, a full refresh,
# and the error paths of a bad spec, bad SQL and bad usage) under valgrind
# and fails on any memory error or definitely-lost block. valgrind cannot
# run AddressSanitizer builds, so by default this builds weir without
# sanitizers in its own folder (the ASan + LSan suite covers the rest).
#
#   tools/valgrind.sh [--weir PATH] [--build DIR] [--quick]
#
# --weir uses an existing non-sanitized binary; --build sets the build
# folder (default build-valgrind); --quick runs only init, run and query.
# Exit 0 when clean, 1 on a memcheck report (the log is kept), 2 on setup
# problems. Takes a few minutes: DuckDB is slow under valgrind.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
weir=
build="$root/build-valgrind"
quick=
while [ $# -gt 0 ]; do
    case "$1" in
    --weir) weir=$2; shift ;;
    --build) build=$2; shift ;;
    --quick) quick=1 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "valgrind.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done

command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed" >&2; exit 2; }
if [ -z "$weir" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DWEIR_SANITIZE=OFF -DWEIR_TESTS=OFF >/dev/null || exit 2
    cmake --build "$build" --target weir >/dev/null || exit 2
    weir="$build/weir"
fi
weir=$(cd "$(dirname "$weir")" && pwd)/$(basename "$weir")
if nm "$weir" 2>/dev/null | grep -q __asan_init ||
    ldd "$weir" 2>/dev/null | grep -q libasan; then
    echo "valgrind.sh: $weir is built with AddressSanitizer; use a plain build" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/weir-valgrind.XXXXXX")
export NO_COLOR=1 TZ=UTC LC_ALL=C
status=0
n=0

# vg EXPECTED_EXIT ARGS...: weir under memcheck in the current folder.
vg() {
    local want=$1
    shift
    n=$((n + 1))
    local log="$work/vg-$n.log"
    local st=0
    valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
        --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=40 \
        --log-file="$log" "$weir" "$@" >"$work/out-$n" 2>&1 </dev/null || st=$?
    if [ "$st" = 99 ] || ! grep -q "ERROR SUMMARY: 0 errors" "$log"; then
        echo "valgrind.sh: memcheck report for: weir $*  (see $log)" >&2
        grep -E "^==[0-9]+== (Invalid|Conditional|Use of|Mismatched|Syscall|.*definitely lost in)" "$log" |
            head -n 10 >&2
        status=1
    elif [ "$st" != "$want" ]; then
        echo "valgrind.sh: weir $* exited $st, expected $want (see $work/out-$n)" >&2
        status=1
    else
        echo "valgrind.sh: clean: weir $*"
    fi
}

cd "$work" || exit 2
vg 0 --version
vg 0 init demo
cd demo || exit 2
vg 0 run
vg 0 query "SELECT order_date, orders, revenue FROM daily_revenue ORDER BY order_date"
if [ -z "$quick" ]; then
    vg 0 dry-run
    vg 0 graph --format dot
    cp data/landing/orders/orders-0001.json data/landing/orders/orders-0004.json
    sed -i 's/"order_id": *\([0-9]*\)/"order_id": 9\1/' data/landing/orders/orders-0004.json
    vg 0 run --json
    vg 0 events --format json
    vg 0 events --quality
    vg 0 run --full-refresh orders_silver
    vg 0 query --format csv "SELECT count(*) AS n FROM orders_silver"
    # Error paths: usage, SQL, spec.
    vg 2 run --bogus
    echo "CREATE MATERIALIZED VIEW broken AS SELEC 1;" >transformations/broken.sql
    vg 2 dry-run
    rm transformations/broken.sql
    printf 'name: [x]\nstorage: 1\n' >"$work/bad.yml"
    vg 2 dry-run --spec "$work/bad.yml"
    vg 2 query "SELECT * FROM nowhere"
fi
cd / || true
if [ "$status" = 0 ]; then
    echo "valgrind.sh: $n commands, no memory errors, no leaks"
    rm -rf "$work"
else
    echo "valgrind.sh: logs kept in $work" >&2
fi
exit "$status"
