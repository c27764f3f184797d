# A weir serve query does not outlive its client (issue 39, item 5): a
# query whose client was killed stops and does not hold back the next
# client's; Interrupt stops the query it names and the session goes on;
# SIGTERM stops the server while a query runs. SLOW would run for hours.
# Nothing here is timed: the waits are bounds, after which the case fails.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
SLOW="SELECT count(*) AS n FROM range(100000000) a CROSS JOIN range(100000000) b WHERE a.id + b.id < 0"

doomed= main=
clients_cleanup() {
    for p in $doomed $main; do kill -KILL "$p" 2>/dev/null || true; done
}
e2e_at_exit clients_cleanup

cp -R "$E2E_CASE/../serve-common/project" project
cd project
run_weir run
expect_exit 0
start_server --spec spark-pipeline.yml

# wait_line FILE TEXT: until FILE has a line TEXT (60 s at most).
wait_line() {
    for _ in $(seq 1 600); do
        grep -qx "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    e2e_fail "no line '$2' in $1: $(tail -5 "$1")"
}

# A client killed while its query runs.
"$py" "$E2E_CASE/client.py" "$url" doomed "$SLOW" >"$E2E_OUT/doomed.out" 2>&1 &
doomed=$!
wait_line "$E2E_OUT/doomed.out" sending
sleep 2 # the query reaches the server (if not, the next steps pass anyway)
kill -KILL "$doomed"
wait "$doomed" 2>/dev/null || true

# Another client: its queries run, Interrupt, then the shutdown.
"$py" "$E2E_CASE/client.py" "$url" main "$SLOW" \
    >"$E2E_OUT/main.out" 2>"$E2E_OUT/main.err" &
main=$!
wait_line "$E2E_OUT/main.out" "quick: 3"
wait_line "$E2E_OUT/main.out" "interrupted: 1"
wait_line "$E2E_OUT/main.out" "interrupt outcome: canceled"
wait_line "$E2E_OUT/main.out" "sending"
sleep 2
stop_server TERM
# The client saw its query fail; it may retry for a while against the
# stopped server: it is not waited for.
for _ in $(seq 1 100); do
    grep -q '^shutdown outcome' "$E2E_OUT/main.out" && break
    kill -0 "$main" 2>/dev/null || break
    sleep 0.1
done
kill "$main" 2>/dev/null || true
wait "$main" 2>/dev/null || true
expect_equal "quick queries of the main client" \
    "$(grep -c '^quick: 3$' "$E2E_OUT/main.out")" 2
