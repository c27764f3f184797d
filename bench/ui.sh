#!/usr/bin/env bash
# Pipeline UI benchmark (issue 19; goal: the page of a 200-dataset pipeline
# renders in under 1 s). Runs bench/wide.py's 200-dataset pipeline once,
# then measures, as medians of RUNS:
#   - `weir report --html` (load, dry run, event log, Graphviz layout, HTML);
#   - the overview from `weir ui`: the first request of a state (the graph is
#     laid out) and a cached one, with curl;
#   - the same page in headless Chromium: navigation start to the load event
#     (data-load-ms, set by the page's script), first and cached;
#   - the cost of the live progress file to a run of that pipeline: runs
#     with the file against runs where it cannot be written (a directory in
#     its way: the floor, with only the one WARN event), alternated, wall
#     and CPU (user + system) time.
#   bench/ui.sh [RUNS]              (builds the release binary)
#   WEIR=path/to/weir bench/ui.sh   (use that binary, build nothing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
cd "$root"
if [ -z "${WEIR:-}" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target weir >/dev/null
fi
weir="${WEIR:-$root/build/weir}"
chrome=$(command -v chromium || command -v chromium-browser)
work="$root/bench/work/ui"
rm -rf "$work" && mkdir -p "$work"
python3 bench/wide.py "$work/project" --datasets 200 --depth 10
cd "$work/project"
"$weir" run --quiet >/dev/null

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
now_ms() { date +%s%3N; }

for _ in $(seq "$runs"); do
    t0=$(now_ms)
    "$weir" report --html -o "$work/report.html" 2>/dev/null
    echo $(($(now_ms) - t0))
done | median >"$work/report.ms"

server() { # starts weir ui; sets url, pid
    "$weir" ui --port 0 >"$work/ui.out" 2>"$work/ui.err" &
    pid=$!
    url=
    for _ in $(seq 1 600); do
        url=$(grep -m1 -o '^http://[^ ]*' "$work/ui.out" || true)
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "weir ui did not start" >&2; exit 1; }
}
browser_ms() {
    "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/chrome" --dump-dom "$1" 2>/dev/null |
        grep -o 'data-load-ms="[0-9]*"' | grep -o '[0-9]*'
}
: >"$work/curl-cold" && : >"$work/curl-warm"
: >"$work/chrome-cold" && : >"$work/chrome-warm"
for _ in $(seq "$runs"); do
    server
    curl -s -o /dev/null -w '%{time_total}\n' "$url" >>"$work/curl-cold"
    curl -s -o /dev/null -w '%{time_total}\n' "$url" >>"$work/curl-warm"
    kill -TERM "$pid" && wait "$pid" || true
    server
    browser_ms "$url" >>"$work/chrome-cold"
    browser_ms "$url" >>"$work/chrome-warm"
    kill -TERM "$pid" && wait "$pid" || true
done
# The live progress file (docs/ui.md): with it and without, side by side.
progress="storage/weir.progress.jsonl"
: >"$work/with" && : >"$work/without"
for _ in $(seq "$runs"); do
    rmdir "$progress" 2>/dev/null || true
    /usr/bin/time -o "$work/t" -f '%e %U %S' "$weir" run --quiet >/dev/null 2>&1
    cat "$work/t" >>"$work/with"
    mkdir "$progress"
    /usr/bin/time -o "$work/t" -f '%e %U %S' "$weir" run --quiet >/dev/null 2>&1
    cat "$work/t" >>"$work/without"
done
rmdir "$progress"
wall() { awk '{print $1}' "$1" | median; }
cpu() { awk '{print $2 + $3}' "$1" | median; }

secs_to_ms() { awk '{printf "%d\n", $1 * 1000}'; }
bytes=$(wc -c <"$work/report.html")
echo "weir ui benchmark: 200 datasets, $(grep -c '<g id="node' "$work/report.html") graph nodes, report $((bytes / 1024)) KB, median of $runs"
echo "  weir report --html            $(cat "$work/report.ms") ms"
echo "  ui page, first request (curl) $(secs_to_ms <"$work/curl-cold" | median) ms"
echo "  ui page, cached (curl)        $(secs_to_ms <"$work/curl-warm" | median) ms"
echo "  ui page in Chromium, first    $(median <"$work/chrome-cold") ms (navigation start to load)"
echo "  ui page in Chromium, cached   $(median <"$work/chrome-warm") ms"
echo "  run with the progress file    $(wall "$work/with") s wall, $(cpu "$work/with") s CPU"
echo "  run without it (floor)        $(wall "$work/without") s wall, $(cpu "$work/without") s CPU"
echo "  ratio (wall, CPU)             $(awk -v a="$(wall "$work/with")" -v b="$(wall "$work/without")" 'BEGIN {printf "%.3f", a / b}')x, $(awk -v a="$(cpu "$work/with")" -v b="$(cpu "$work/without")" 'BEGIN {printf "%.3f", a / b}')x"
