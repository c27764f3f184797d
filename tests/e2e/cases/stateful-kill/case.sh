# Stateful streaming flows are exactly once under kill -9 (issue 41): each
# entry of the stateful corpus (tests/spark/stateful) that weir computes
# (status `compared`) runs its updates again with `weir run` killed with
# SIGKILL at random instants (lib.sh's kill_run) before each update is
# finished by a run that is not killed; then every table must equal
# Spark's stored answer for that update: no row lost or written twice, no
# window, session, deduplicated key or outer-join row emitted twice or
# missed. Heavy (ctest -L heavy); skipped (exit 77) while no entry is
# compared. WEIR_STATEFUL_KILLS (default 200) kills in all, spread over the
# entries' updates; WEIR_STATEFUL_SEED (default 41); WEIR_STATEFUL_ENTRIES
# (default: every compared entry). The SQL entries' landing folders are
# defined in SQL (stateful.py prepare --sql-sources), so that the kills land
# in weir's work rather than in Python importing pyspark.
st="python3 $E2E_LIB/../spark/stateful/stateful.py"
entries=${WEIR_STATEFUL_ENTRIES:-$($st list --status compared)}
if [ -z "$entries" ]; then
    echo "stateful-kill: skipped, no entry of tests/spark/stateful is compared yet" >&2
    trap - ERR
    exit 77
fi
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
kills=${WEIR_STATEFUL_KILLS:-200}
RANDOM=${WEIR_STATEFUL_SEED:-41}

slots=0
for e in $entries; do
    slots=$((slots + $($st updates "$e")))
done
per_update=$(((kills + slots - 1) / slots))

killed=0 tried=0
for e in $entries; do
    $st prepare --sql-sources "$e" "$E2E_WORK/$e"
    cd "$E2E_WORK/$e"
    for k in $(seq 1 "$($st updates "$e")"); do
        $st lay "$e" "$k" .
        read -r -a args <<<"$($st args "$e" "$k")"
        for i in $(seq 1 "$per_update"); do
            kill_run "$E2E_OUT/$e-$k-$i.out" 120 "${args[@]}"
            killed=$((killed + kill_landed))
            tried=$((tried + 1))
            echo "$e update $k kill $i: ${kill_delay_ms} ms into the run, landed $kill_landed (update ~${kill_est_ms} ms)" >>"$E2E_OUT/log"
        done
        run_weir run "${args[@]}"
        expect_exit 0
        if ! $st check "$e" "$k" . --weir "$WEIR" 2>"$E2E_OUT/check.err"; then
            cat "$E2E_OUT/check.err" >&2
            e2e_fail "$e: the tables after update $k (and $per_update kills) differ from Spark's"
        fi
        e2e_pass
    done
    cd "$E2E_WORK"
done
echo "stateful-kill: $killed of $tried runs killed mid-update over $(wc -w <<<"$entries") entries" >&2
[ "$killed" -ge $((tried / 3)) ] || e2e_fail "only $killed of $tried kills landed during an update"
e2e_pass
