# CSV sink: a streaming append flow writes gzip-compressed CSV files with a
# header, ';' as the delimiter and NA for NULL. Each run appends only the
# new rows, exactly once; full refresh sends every row again and warns.
# Read back with stock DuckDB.

py=$(weir_python)
check() { # check.py args: see ../sink-common/check.py
    "$py" "$E2E_CASE/../sink-common/check.py" "$@" >"$E2E_OUT/check.txt" \
        2>"$E2E_OUT/check.err" || e2e_fail "$(cat "$E2E_OUT/check.txt" "$E2E_OUT/check.err")"
    e2e_pass
}

run_weir query "CREATE TABLE src (id BIGINT, s STRING)"
run_weir query "INSERT INTO src SELECT id, concat('s;', id) FROM range(0, 500) AS t(id)"
expect_exit 0
run_weir run
expect_exit 0
check csv out/orders --ids 500 --header --sep ';' --ext .csv.gz
expect_equal "files" "$(ls out/orders)" "$(ls out/orders | grep -E '^part-[0-9a-f]{16}-g0-b0-0\.csv\.gz$')"
gzip -dc out/orders/*.csv.gz | head -n 2 >"$E2E_OUT/head.txt"
expect_file_contains "$E2E_OUT/head.txt" 'id;s;twice
0;"s;0";NA'

run_weir query "INSERT INTO src SELECT id, concat('s;', id) FROM range(500, 1200) AS t(id)"
run_weir run
expect_exit 0
check csv out/orders --ids 1200 --header --sep ';' --ext .csv.gz
run_weir run
expect_exit 0
expect_equal "files after an idle run" "$(ls out/orders | wc -l)" 2

run_weir run --full-refresh-all
expect_exit 0
expect_stdout_contains "Full refresh of sink orders_out resets its flows' checkpoints"
check csv out/orders --ids 1200 --copies 2 --header --sep ';' --ext .csv.gz
