#!/usr/bin/env bash
# Heavy check (not part of scripts/test.sh; `ctest -L heavy`): the doctest
# sweep on weir alone. Every docstring example of the pinned
# pyspark-client's functions, DataFrame, Column, GroupedData and Window runs
# against `weir serve` (tests/spark/doctests.py), and is compared with the
# list of docstrings that pass on Apache Spark 4.1
# (tests/spark/doctest-spark.txt, written by `tests/spark/run.sh --doctests
# --write-expected`). Prints the pass rate; fails when weir passes fewer of
# Spark's docstrings than tests/spark/doctest-floor.txt says (raise it as
# weir improves).
#   tests/heavy/doctests.sh PATH/TO/weir
set -euo pipefail
weir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=$("$root/scripts/pyclient.sh" 4.2.0)
work=$(mktemp -d "${TMPDIR:-/tmp}/weir-doctests.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$py" "$root/tests/spark/doctests.py" --weir "$weir" --client "$py" --timeout 60 \
    --out "$work/weir.json" >"$work/run.log" 2>&1 || { tail -20 "$work/run.log"; exit 1; }
"$py" "$root/tests/spark/doctests.py" --compare - "$work/weir.json" \
    --report "$work/report.md" | tee "$work/compare.log"
passed=$(sed -n 's/^\([0-9]*\) passed, .*/\1/p' "$work/compare.log")
floor=$(tr -dc 0-9 <"$root/tests/spark/doctest-floor.txt")
cat "$work/report.md" | head -20
if [ "$passed" -lt "$floor" ]; then
    echo "doctests.sh: weir passes $passed of Spark's docstrings, fewer than the floor $floor" >&2
    exit 1
fi
