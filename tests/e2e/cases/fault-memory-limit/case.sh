# Memory limits: the spec's configuration sets DuckDB's memory limit
# (weir.duckdb.memory_limit, here 64 MB) and threads; an update over data
# larger than the limit completes by spilling to <storage>/tmp, which is
# empty again afterwards. A limit too small for the work fails the flow
# with a clear out-of-memory error and leaves the previous contents.
# (DuckDB's limit covers its buffer manager, not every allocation: the
# process uses more than 64 MB.)

# Watch the spill folder while the update runs.
(
    set +eE
    trap - ERR
    while sleep 0.2; do du -sk storage/tmp 2>/dev/null | cut -f1; done
) >"$E2E_OUT/spill" &
watch=$!
run_weir run
kill "$watch" 2>/dev/null || true
wait "$watch" 2>/dev/null || true
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
spilled=$(sort -n "$E2E_OUT/spill" | tail -n 1)
[ "${spilled:-0}" -gt 65536 ] || e2e_fail "the update did not spill more than the limit (max ${spilled:-0} KB in storage/tmp)"
catalog_kb=$(du -k storage/spark_catalog.duckdb | cut -f1)
[ "$catalog_kb" -gt 65536 ] || e2e_fail "the data ($catalog_kb KB) is not larger than the limit"
# (Checked with more memory: weir query obeys the spec's limit too, and
# DuckDB does not spill a count(DISTINCT).)
expect_query "SELECT (SELECT count(*) FROM ranked) AS n, (SELECT count(DISTINCT rn) FROM ranked) AS ranks, (SELECT max(rn) FROM ranked) AS top, (SELECT sum(n) FROM by_key) AS total" "n,ranks,top,total
3000000,3000000,3000000,3000000" --conf weir.duckdb.memory_limit=1GB
[ -z "$(ls -A storage/tmp 2>/dev/null)" ] || e2e_fail "spill files left in storage/tmp"

# Far too little memory: the flow fails clearly, the old contents stay.
# (8 MB: weir's own bookkeeping, the update record and the event log,
# still fits; the 3-million-row window does not.)
sed -i 's/memory_limit: "64MB"/memory_limit: "8MB"/' spark-pipeline.yml
run_weir run --full-refresh ranked
expect_exit 1
expect_stdout_contains "[UNABLE_TO_ACQUIRE_MEMORY] DuckDB ran out of memory"
expect_stdout_contains "The memory limit is 8MB, set by weir.duckdb.memory_limit"
expect_stdout_not_contains "Out of Memory Error"
expect_stdout_contains "Run is FAILED"
expect_query "SELECT count(*) AS n, max(rn) AS top FROM ranked" "n,top
3000000,3000000"

# weir query runs under the same limit, the spec's or --conf's (it ran
# without any before): a list of 3 million values does not fit in 8 MB.
collect="SELECT size(collect_list(rn)) AS n FROM ranked"
run_weir query "$collect"
expect_exit 1
expect_stderr_contains "[UNABLE_TO_ACQUIRE_MEMORY] DuckDB ran out of memory"
expect_stderr_contains "The memory limit is 8MB"
expect_query "$collect" "n
3000000" --conf weir.duckdb.memory_limit=1GB
sed -i 's/memory_limit: "8MB"/memory_limit: "1GB"/' spark-pipeline.yml
run_weir query --conf weir.duckdb.memory_limit=8MB "$collect"
expect_exit 1
expect_stderr_contains "The memory limit is 8MB"
