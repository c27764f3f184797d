#!/usr/bin/env bash
# Profiles of weir's own overheads (see bench/RESULTS.md, "Profiles").
#
#   bench/profile.sh trace WORKLOAD [SIZE]      every DuckDB call, timed, by kind
#   bench/profile.sh perf WORKLOAD [SIZE]       perf record -g; report by dso,sym
#   bench/profile.sh callgrind WORKLOAD [SIZE]  instruction counts (load-independent)
#
# WORKLOAD: wide (first update of the 200-dataset project, then a second one),
# dry (weir dry-run of the wide project), medallion (initial load, then the
# 1% increment; SIZE 100k, 1m or 10m, default 1m).
# WEIR=path/to/weir picks the binary (default bench/work/bin/weir, then
# build/weir). Output goes to bench/work/profile/.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
tool=${1:?usage: profile.sh trace|perf|callgrind WORKLOAD [SIZE]}
work=${2:?workload: wide, dry or medallion}
size=${3:-1m}
weir=${WEIR:-}
if [ -z "$weir" ]; then
    if [ -x "$bench/work/bin/weir" ]; then
        weir=$bench/work/bin/weir
        export LD_LIBRARY_PATH="$bench/work/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    else
        weir=$root/build/weir
    fi
fi
out=$bench/work/profile
mkdir -p "$out"
shim=$bench/work/sqltrace.so
cc -O2 -shared -fPIC -o "$shim" "$bench/tools/sqltrace.c" -ldl -lpthread

# A fresh project in $dir for the workload.
dir=$out/project-$work
rm -rf "$dir"
case "$work" in
wide|dry)
    python3 "$bench/wide.py" "$dir" --datasets 200 --depth 10 ;;
medallion)
    python3 -c "
import sys; sys.path.insert(0, '$bench'); import bench
bench.setup_medallion('weir', '$size', '$dir')" ;;
*) echo "unknown workload $work" >&2; exit 2 ;;
esac
cd "$dir"

# The steps of the workload, each run through "$@".
steps() {
    case "$work" in
    dry) "$@" dry "$weir" dry-run ;;
    wide) "$@" first "$weir" run --quiet; "$@" second "$weir" run --quiet ;;
    medallion)
        "$@" initial "$weir" run --quiet
        python3 -c "
import sys; sys.path.insert(0, '$bench'); import bench
bench.add_increment('$size', '$dir')"
        "$@" increment "$weir" run --quiet ;;
    esac
}

do_trace() {
    local name=$1; shift
    local f=$out/trace-$work-$name.tsv
    SQLTRACE=$f SQLTRACE_LEN=${SQLTRACE_LEN:-400} LD_PRELOAD=$shim "$@" >/dev/null
    echo "== $work $name: $f"
    python3 "$bench/tools/trace_summary.py" "$f" --top 8
    echo
}

do_perf() {
    local name=$1; shift
    local f=$out/perf-$work-$name.data
    perf record -q -F 2000 -g -o "$f" "$@" >/dev/null 2>&1
    echo "== $work $name: $f"
    perf report -i "$f" --no-children --sort dso -g none 2>/dev/null | grep '%' | head -8
    perf report -i "$f" --no-children --sort dso,sym -g none 2>/dev/null | grep '%' | head -25
    echo
}

do_callgrind() {
    local name=$1; shift
    local f=$out/callgrind-$work-$name.out
    valgrind --tool=callgrind --callgrind-out-file="$f" "$@" >/dev/null 2>"$f.log"
    echo "== $work $name: $f ($(grep -o 'Collected : [0-9]*' "$f.log"))"
    callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
        grep -E 'weir__|weir_pipeline|duckdb_open_ext|duckdb_close|Optimizer::Optimize\(|Parser::ParseQuery' |
        head -30 | cut -c1-150
    echo
}

case "$tool" in
trace) steps do_trace ;;
perf) steps do_perf ;;
callgrind) steps do_callgrind ;;
*) echo "unknown tool $tool" >&2; exit 2 ;;
esac
