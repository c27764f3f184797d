# Usage errors exit 2 with a one-line reason and a hint, before anything
# is loaded.

run_weir bogus
expect_exit 2
expect_stdout_empty
expect_stderr_contains "weir: unknown command 'bogus'"
expect_stderr_contains "Run 'weir help' for the list of commands."

run_weir rnu
expect_exit 2
expect_stderr_contains "Did you mean 'weir run'?"

run_weir --bogus
expect_exit 2
expect_stderr_contains "weir: unknown option '--bogus'"

run_weir run --bogus
expect_exit 2
expect_stderr_contains "weir: unknown option '--bogus'"
expect_stderr_contains "Run 'weir run --help' for its options."

run_weir dry-run --jsno
expect_exit 2
expect_stderr_contains "weir: unknown option '--jsno'"
expect_stderr_contains "Did you mean '--json'?"

run_weir run -x
expect_exit 2
expect_stderr_contains "weir: unknown option '-x'"

run_weir run --spec
expect_exit 2
expect_stderr_contains "weir: option '--spec' needs a value"

run_weir run --refresh --quiet
expect_exit 2
expect_stderr_contains "weir: option '--refresh' needs a value"

run_weir run --quiet=yes
expect_exit 2
expect_stderr_contains "weir: option '--quiet' takes no value"

run_weir run extra
expect_exit 2
expect_stderr_contains "weir: unexpected argument 'extra'"

run_weir graph --format png
expect_exit 2
expect_stderr_contains "weir: unknown graph format 'png'"

run_weir query --format xml "SELECT 1"
expect_exit 2
expect_stderr_contains "weir: unknown format 'xml'"

run_weir query "SELECT 1" "SELECT 2"
expect_exit 2
expect_stderr_contains "weir: unexpected argument 'SELECT 2'"

run_weir query "   "
expect_exit 2
expect_stderr_contains "weir: no SQL to run"

run_weir query - <<<""
expect_exit 2
expect_stderr_contains "weir: no SQL to run"

run_weir events --format yaml
expect_exit 2
expect_stderr_contains "weir: unknown format 'yaml'"

run_weir events --update "x' OR '1'='1"
expect_exit 2
expect_stderr_contains "weir: invalid update"

# Values may also be attached with '='.
run_weir graph --format=png
expect_exit 2
expect_stderr_contains "weir: unknown graph format 'png'"
