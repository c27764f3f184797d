# weir init never touches an existing folder or file, and checks its
# arguments; all of these are usage errors (exit 2).

mkdir demo
echo keep >demo/mine.txt
run_weir init demo
expect_exit 2
expect_stdout_empty
expect_stderr_contains "Directory 'demo' already exists. Please choose a different name or remove the existing directory."
expect_equal "demo untouched" "$(ls demo)" "mine.txt"

: >plain-file
run_weir init plain-file
expect_exit 2
expect_stderr_contains "Directory 'plain-file' already exists."

run_weir init
expect_exit 2
expect_stderr_contains "weir: init needs a project name"

run_weir init one two
expect_exit 2
expect_stderr_contains "weir: unexpected argument 'two'"

run_weir init --name
expect_exit 2
expect_stderr_contains "weir: option '--name' needs a value"

for bad in "" . .. a/b; do
    run_weir init "$bad"
    expect_exit 2
    expect_stderr_contains "invalid project name '$bad'"
done
expect_no_file a
