# The bad-input corpus: each folder under inputs/ is one malformed input (a
# spec file, an SQL file, a data file or a command line) and the error weir
# must answer it with. weir must not crash (no signal, no sanitizer report),
# not hang (each command is killed after 120 s), exit with the expected
# code and print every line of the folder's `expected` file (error class and
# path:line:col) in its output, and write nothing.
#
# A folder holds the project files and:
#   cmd              the weir arguments, in shell syntax (default: dry-run)
#   exit             the expected exit code (default 2)
#   expected         lines that must occur in the output (fixed strings;
#                    stderr, or stdout for errors reported as events)
#   stdin            fed to weir (default: empty)
#   before.sh        sourced first, in the folder (e.g. a good update, then
#                    the bad data file lands)
#   fingerprint.sql  a query whose result must be the same before and after
#                    the command. Without it nothing at all may change in the
#                    folder (names and sizes of every file).
# The corpus was checked by hand when it was written: see
# docs/reliability.md for how to add an input.

n_inputs=0
for dir in inputs/*/; do
    name=$(basename "$dir")
    n_inputs=$((n_inputs + 1))
    (
        cd "$dir"
        cmd=dry-run
        [ ! -f cmd ] || cmd=$(cat cmd)
        want=2
        [ ! -f exit ] || want=$(cat exit)
        input=/dev/null
        [ ! -f stdin ] || input=stdin
        # shellcheck disable=SC1091
        [ ! -f before.sh ] || source ./before.sh
        snapshot() {
            if [ -f fingerprint.sql ]; then
                "$WEIR" query --format csv "$(cat fingerprint.sql)" 2>&1 || true
            else
                find . -path ./stdin -prune -o -printf '%p %s\n' | sort
            fi
        }
        snapshot >"$E2E_OUT/before"
        eval "set -- $cmd"
        WEIR_CMD="weir $cmd"
        WEIR_EXIT=0
        timeout -s KILL 120 "$WEIR" "$@" <"$input" >"$WEIR_STDOUT" 2>"$WEIR_STDERR" ||
            WEIR_EXIT=$?
        [ "$WEIR_EXIT" != 137 ] || e2e_fail "$name: weir hung (killed after 120 s)"
        [ "$WEIR_EXIT" -lt 128 ] || e2e_fail "$name: weir died of a signal (exit $WEIR_EXIT)"
        if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$WEIR_STDERR"; then
            e2e_fail "$name: sanitizer report"
        fi
        [ "$WEIR_EXIT" = "$want" ] || e2e_fail "$name: expected exit $want, got $WEIR_EXIT"
        e2e_pass
        if [ -f expected ]; then
            while IFS= read -r line; do
                [ -n "$line" ] || continue
                grep -qF -- "$line" "$WEIR_STDERR" "$WEIR_STDOUT" ||
                    e2e_fail "$name: the output lacks: $line"
                e2e_pass
            done <expected
        fi
        snapshot >"$E2E_OUT/after"
        if ! diff -u "$E2E_OUT/before" "$E2E_OUT/after" >"$E2E_OUT/diff"; then
            e2e_fail "$name: the rejected input changed something:
$(head -n 20 "$E2E_OUT/diff")"
        fi
        e2e_pass
    )
    e2e_pass
done
[ "$n_inputs" -ge 100 ] || e2e_fail "the corpus has only $n_inputs inputs (want >= 100)"
echo "bad-inputs: $n_inputs inputs" >&2
