# What a killed or timed-out command leaves behind: a `weir run` killed
# with SIGKILL while Python imports takes its Python child with it
# (PR_SET_PDEATHSIG); the timeout's kill reaches a process a definition
# file forked (the child leads a process group); a `weir test` killed with
# SIGKILL leaves its sandbox, which the next `weir test` removes, while
# sandboxes that are locked (their owner lives) or young stay.
# A stand-in for Python that forks a process, records both pids and
# stays busy, as a definition file could.
cat > fake-python <<'SH'
#!/bin/sh
sleep 600 >/dev/null 2>&1 &
echo $! > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid
echo $$ > python.pid.tmp && mv python.pid.tmp python.pid
wait
SH
chmod +x fake-python
export WEIR_PYTHON=$PWD/fake-python

alive() { kill -0 "$1" 2>/dev/null; }
# Wait (at most 30 s) until the files exist / the process is gone.
wait_files() { local i; for ((i = 0; i < 3000; i++)); do
    [ -s "$1" ] && [ -s "$2" ] && return 0; sleep 0.01; done; return 1; }
wait_gone() { local i; for ((i = 0; i < 3000; i++)); do
    alive "$1" || return 0; sleep 0.01; done; return 1; }
leftovers=()
trap 'for p in "${leftovers[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT

# --- weir run killed with SIGKILL while Python imports ----------------------
cd py
"$WEIR" run >"$E2E_OUT/killed.out" 2>&1 &
weir_pid=$!
wait_files python.pid grandchild.pid || e2e_fail "Python did not start: $(cat "$E2E_OUT/killed.out")"
py_pid=$(cat python.pid) gc_pid=$(cat grandchild.pid)
leftovers+=("$py_pid" "$gc_pid")
kill -9 "$weir_pid"
wait "$weir_pid" || true
wait_gone "$py_pid" || e2e_fail "the Python child $py_pid outlived weir (killed with SIGKILL)"
kill -9 "$gc_pid" 2>/dev/null || true
rm -f python.pid grandchild.pid

# --- the timeout kills what a definition file forked ------------------------
WEIR_PYTHON_TIMEOUT=3 run_weir run
expect_exit 1
expect_stderr_contains "did not finish within 3 seconds (WEIR_PYTHON_TIMEOUT); stopped"
py_pid=$(cat python.pid) gc_pid=$(cat grandchild.pid)
leftovers+=("$py_pid" "$gc_pid")
wait_gone "$py_pid" || e2e_fail "the Python child $py_pid outlived the timeout"
wait_gone "$gc_pid" || e2e_fail "the process $gc_pid a definition file forked outlived the timeout"
cd ..

# --- weir test killed with SIGKILL: its sandbox is removed next time --------
cd sql
export TMPDIR="$PWD/tmp"
mkdir -p "$TMPDIR"
sandbox=
for attempt in 1 2 3 4 5 6 7 8 9 10; do
    "$WEIR" test >"$E2E_OUT/test-killed.out" 2>&1 &
    test_pid=$!
    for ((i = 0; i < 3000; i++)); do
        sandbox=$(find "$TMPDIR" -maxdepth 1 -name 'weir-test-??????' | head -1)
        [ -n "$sandbox" ] && break
        alive "$test_pid" || break
        sleep 0.005
    done
    kill -9 "$test_pid" 2>/dev/null || true
    wait "$test_pid" || true
    sandbox=$(find "$TMPDIR" -maxdepth 1 -name 'weir-test-??????' | head -1)
    [ -n "$sandbox" ] && break
done
[ -n "$sandbox" ] || e2e_fail "no weir test was killed while its sandbox existed"
# Left by the killed run; older than the sweep's minimum age.
touch -d '2 hours ago' "$sandbox"
# A sandbox whose owner lives (it holds the lock), and an old unlocked one
# of another name, and a young unlocked one: all kept.
mkdir "$TMPDIR/weir-test-Live01" "$TMPDIR/weir-test-other" "$TMPDIR/weir-test-Young1"
(exec 9<"$TMPDIR/weir-test-Live01"; flock 9; exec sleep 600) >/dev/null 2>&1 &
holder=$!
leftovers+=("$holder")
for ((i = 0; i < 500; i++)); do
    flock -n "$TMPDIR/weir-test-Live01" true || break; sleep 0.01; done
touch -d '2 hours ago' "$TMPDIR/weir-test-Live01" "$TMPDIR/weir-test-other"
run_weir test
expect_exit 0
expect_stdout_contains "PASS sums ("
[ ! -e "$sandbox" ] || e2e_fail "the killed run's sandbox $sandbox is still there"
expect_dir_exists "$TMPDIR/weir-test-Live01"
expect_dir_exists "$TMPDIR/weir-test-other"
expect_dir_exists "$TMPDIR/weir-test-Young1"
kill "$holder"
wait "$holder" 2>/dev/null || true
rmdir "$TMPDIR/weir-test-Live01" "$TMPDIR/weir-test-other" "$TMPDIR/weir-test-Young1"
expect_equal "temporary folders left" "$(ls -A "$TMPDIR")" ""
