# weir --version names weir's and DuckDB's versions.

run_weir --version
expect_exit 0
expect_stderr_empty
expect_stdout_matches '^weir [0-9]+\.[0-9]+\.[0-9]+ \(DuckDB v?[0-9]+\.[0-9]+\.[0-9]+.*\)$'
expect_equal "lines" "$(wc -l <"$WEIR_STDOUT")" 1

run_weir version
expect_exit 0
expect_stdout_matches '^weir [0-9.]+ \(DuckDB '
