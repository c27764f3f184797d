#!/usr/bin/env bash
# A Python virtual environment for the tests that use independent readers
# (stock DuckDB's Python package, the deltalake package). Created once in
# build-pyenv; prints the path of its python. Packages are pinned.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${WEIR_PYENV:-$root/build-pyenv}"
want="duckdb==1.4.4 deltalake==1.2.1 pyarrow==21.0.0"
stamp="$venv/.weir-packages"
# Tests run in parallel: one creator at a time, the others wait for it.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check $want >&2
    echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
