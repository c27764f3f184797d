#!/usr/bin/env bash
# A Python virtual environment with the real, pinned pyspark-client for the
# Python pipeline tests: build-pyclient-VERSION, created once; prints the
# path of its python. VERSION is 4.2.0 (default) or 4.1.3; the exact
# packages are listed in tests/python/pyspark-client-VERSION.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version="${1:-4.2.0}"
reqs="$root/tests/python/pyspark-client-$version.txt"
[ -f "$reqs" ] || { echo "pyclient.sh: no pinned packages for $version" >&2; exit 2; }
venv="$root/build-pyclient-$version"
stamp="$venv/.weir-packages"
# Tests run in parallel: one creator at a time, the others wait for it.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
want=$(sha256sum "$reqs" | awk '{print $1}')
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$reqs" >&2
    echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
