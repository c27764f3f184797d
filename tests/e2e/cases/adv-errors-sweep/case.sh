# No DuckDB message reaches the user raw: every input of the bad-input
# corpus (tests/e2e/cases/bad-inputs/inputs) goes through every command
# that applies (dry-run, run, graph, and query with the input's SQL file as
# the query; an input with its own command line runs that command only),
# and no output may hold DuckDB's own wording: its error types ("Binder
# Error", "Catalog Error", ...), its suggestions ('Did you mean "x"?';
# weir's own "Did you mean 'weir run'?" for a mistyped command is fine) or
# its lists of candidate functions. Nor may weir die of a signal or trip a
# sanitizer. Exit codes and messages are bad-inputs' concern.

raw='Binder Error|Catalog Error|Parser Error|Conversion Error|Invalid Input Error|Out of Memory Error|INTERNAL Error|Did you mean "|Candidate functions|Candidate bindings|SET threads'
corpus="$E2E_CASE/../bad-inputs/inputs"
[ -d "$corpus" ] || e2e_fail "no corpus at $corpus"

# One command on one input, in a fresh copy of the input's folder; stdin is
# the input's stdin file, or $SWEEP_STDIN.
sweep_one() { # dir label args...
    local dir=$1 label=$2
    shift 2
    local work="$E2E_OUT/sweep"
    rm -rf "$work" && cp -R "$dir" "$work"
    (
        cd "$work"
        name=$label
        WEIR_EXIT=0
        # shellcheck disable=SC1091
        [ ! -f before.sh ] || source ./before.sh >/dev/null 2>&1
        input=${SWEEP_STDIN:-/dev/null}
        [ ! -f stdin ] || input=stdin
        timeout -s KILL 120 "$WEIR" "$@" <"$input" >"$WEIR_STDOUT" 2>"$WEIR_STDERR" ||
            WEIR_EXIT=$?
        WEIR_CMD="weir $*"
        [ "$WEIR_EXIT" -lt 128 ] || e2e_fail "$label: weir died of a signal (exit $WEIR_EXIT)"
        if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$WEIR_STDERR"; then
            e2e_fail "$label: sanitizer report"
        fi
        if grep -hE "$raw" "$WEIR_STDOUT" "$WEIR_STDERR" >"$E2E_OUT/raw"; then
            e2e_fail "$label: DuckDB's own text reached the user: $(head -c 400 "$E2E_OUT/raw")"
        fi
    ) || exit 1
    e2e_pass
}

n=0
for dir in "$corpus"/*/; do
    input=$(basename "$dir")
    n=$((n + 1))
    if [ -f "$dir/cmd" ]; then
        eval "set -- $(cat "$dir/cmd")"
        sweep_one "$dir" "$input: weir $*" "$@"
        continue
    fi
    for cmd in dry-run run graph; do
        sweep_one "$dir" "$input: weir $cmd" "$cmd"
    done
    sql=$(find "$dir" -path "$dir/transformations/*" -name '*.sql' | sort | head -n 1)
    if [ -n "$sql" ] && [ -s "$sql" ]; then
        rel=${sql#"$dir"}
        SWEEP_STDIN=$sql sweep_one "$dir" "$input: weir query - <$rel" query -
    fi
done
[ "$n" -ge 100 ] || e2e_fail "the corpus has only $n inputs"
echo "adv-errors-sweep: $n inputs" >&2
