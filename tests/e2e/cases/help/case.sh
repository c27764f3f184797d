# Help: `weir` alone prints the usage on stderr (exit 2); `weir help`,
# `weir help CMD`, `weir CMD --help` and `-h` print on stdout (exit 0).

run_weir
expect_exit 2
expect_stdout_empty
expect_stderr_contains "usage: weir <command> [options]"

for args in "help" "--help" "-h"; do
    run_weir $args
    expect_exit 0
    expect_stderr_empty
    for cmd in init run dry-run graph query events test ui report help; do
        expect_stdout_contains "  $cmd"
    done
done

for cmd in init run dry-run graph query events test ui report help; do
    run_weir help "$cmd"
    expect_exit 0
    expect_stdout_contains "usage: weir $cmd"
    help_text=$(cat "$WEIR_STDOUT")
    run_weir "$cmd" --help
    expect_exit 0
    expect_equal "weir $cmd --help" "$(cat "$WEIR_STDOUT")" "$help_text"
    run_weir "$cmd" -h
    expect_exit 0
    expect_equal "weir $cmd -h" "$(cat "$WEIR_STDOUT")" "$help_text"
done

run_weir help run
expect_stdout_contains "--full-refresh-all"
expect_stdout_contains "--refresh LIST"
run_weir help graph
expect_stdout_contains "text|dot|mermaid"

# --help wins over everything else on the line.
run_weir run --spec nowhere.yml --help
expect_exit 0
expect_stdout_contains "usage: weir run"

run_weir help nope
expect_exit 2
expect_stderr_contains "weir: no help for 'nope'"
