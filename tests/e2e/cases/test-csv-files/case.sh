# weir test with CSV file fixtures: a folder read as a stream gets one CSV
# file (with a header) per step, from inline rows (a comma in a value is
# quoted, null is an empty field) and from a query; a single CSV file
# comes from a CSV file beside the test.
run_weir test
expect_exit 0
expect_stdout_contains "PASS csv_files_in_steps ("
expect_stdout_contains "1 test: 1 passed, 0 failed"
expect_no_file storage
expect_no_file landing
