#!/usr/bin/env bash
# Run one end-to-end case against a weir binary:
#
#     bash tests/e2e/run-case.sh CASE_DIR PATH/TO/weir
#
# The case folder is copied to a fresh temporary folder, which becomes the
# current directory; WEIR names the binary; tests/e2e/lib.sh provides the
# expect_* helpers; then the case's case.sh is sourced. The first failed
# expectation stops the case with a diff and keeps the folder for a look;
# a case that passes is cleaned up. See tests/e2e/README.md.
set -uo pipefail

if [ $# -ne 2 ]; then
    echo "usage: run-case.sh CASE_DIR WEIR_BINARY" >&2
    exit 2
fi
if [ ! -f "$1/case.sh" ]; then
    echo "run-case.sh: no case.sh in '$1'" >&2
    exit 2
fi
if [ ! -x "$2" ]; then
    echo "run-case.sh: '$2' is not an executable" >&2
    exit 2
fi

E2E_CASE=$(cd "$1" && pwd -P)
E2E_NAME=$(basename "$E2E_CASE")
E2E_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
WEIR="$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")"
E2E_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/weir-e2e-$E2E_NAME.XXXXXX") || exit 2
E2E_ROOT=$(cd "$E2E_ROOT" && pwd -P)
E2E_WORK="$E2E_ROOT/work"   # the copy of the case: the current directory
E2E_OUT="$E2E_ROOT/out"     # stdout, stderr and the log of each weir call
mkdir -p "$E2E_WORK" "$E2E_OUT"
cp -R "$E2E_CASE"/. "$E2E_WORK"/

# A predictable environment: no colors, UTC, byte-wise text tools.
export WEIR E2E_CASE E2E_NAME E2E_LIB E2E_ROOT E2E_WORK E2E_OUT
export NO_COLOR=1 TZ=UTC LC_ALL=C
unset COLUMNS

cd "$E2E_WORK" || exit 2
exec </dev/null
# shellcheck source=lib.sh
source "$E2E_LIB/lib.sh"
e2e_begin
# shellcheck disable=SC1091
source ./case.sh
e2e_end
