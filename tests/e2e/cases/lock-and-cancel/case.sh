# One update at a time: a second `weir run` (or `weir query`) on the same
# storage fails at once with a clear error; Ctrl-C (SIGINT) cancels a run
# cleanly and releases the storage.

"$WEIR" run >"$E2E_OUT/bg.out" 2>&1 &
bg=$!
# Wait until the first run holds the storage and is running.
for _ in $(seq 1 100); do
    grep -q "slow is RUNNING" "$E2E_OUT/bg.out" && break
    sleep 0.1
done
expect_file_contains "$E2E_OUT/bg.out" "slow is RUNNING"

start=$(date +%s%N)
run_weir run
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
expect_exit 1
expect_stderr_contains "[PIPELINE_STORAGE_BUSY] storage $E2E_WORK/storage is in use by another weir process (pid $bg)"
[ "$elapsed" -lt 3000 ] || e2e_fail "the second run waited ${elapsed} ms instead of failing at once"

run_weir query "SELECT 1"
expect_exit 1
expect_stderr_contains "PIPELINE_STORAGE_BUSY"

# Cancel the first run.
kill -INT "$bg"
wait "$bg" && status=0 || status=$?
expect_equal "exit code of the cancelled run" "$status" 1
expect_file_contains "$E2E_OUT/bg.out" "Flow 'spark_catalog.default.slow' has STOPPED."
expect_file_contains "$E2E_OUT/bg.out" "Run is CANCELED."

# The storage is free again and nothing half-done is visible.
run_weir query "SELECT count(*) AS n FROM weir.updates WHERE state = 'CANCELED'"
expect_exit 0
expect_stdout_contains "1"
