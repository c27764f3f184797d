# Crash safety, the short (CI) mode of tools/crash.sh: trials of new
# data, `weir run` killed with SIGKILL at a seeded random instant (some
# recovery runs killed too, some full refreshes), a recovery run, and every
# table and the parquet sink compared with the exactly-once result. Zero
# violations allowed; at least a third of the kills must land inside an
# update (the others hit loading or closing).
# 10 trials in the default suite, 50 in heavy/fault-crash;
# WEIR_CRASH_TRIALS and WEIR_CRASH_SEED (default 1) override them.

trials=${WEIR_CRASH_TRIALS:-$(e2e_size 10 50)}
wanted=$trials
bash "$E2E_LIB/../../tools/crash.sh" --trials "$trials" --seed "${WEIR_CRASH_SEED:-1}" \
    --weir "$WEIR" --work "$E2E_ROOT/crash" --report "$E2E_OUT/report" \
    >"$E2E_OUT/crash.out" 2>&1 ||
    e2e_fail "crash harness: $(tail -n 5 "$E2E_OUT/crash.out")
log: $E2E_ROOT/crash/crash.log"
cat "$E2E_OUT/crash.out" >&2
# shellcheck disable=SC1091
source "$E2E_OUT/report"
expect_equal "violations" "$violations" 0
expect_equal "trials" "$trials" "$wanted"
[ "$kills_mid_update" -ge $((trials / 3)) ] ||
    e2e_fail "only $kills_mid_update of $kills kills landed inside an update"
e2e_pass
