# weir events: the event log of the latest update, all updates or one, as a
# table, CSV or JSON; --quality sums the expectation counts.

run_weir init demo
cd demo

run_weir events
expect_exit 0
expect_stderr_contains "No events recorded yet"

run_weir run
expect_exit 0
run_weir events --format csv
expect_exit 0
expect_stdout_contains "id,update_id,sequence,timestamp,level,event_type,message,flow_name,dataset_name,details,error"
update=$(sed -n 2p "$WEIR_STDOUT" | cut -d, -f2)
expect_stdout_contains "Run is COMPLETED."

run_weir events
expect_exit 0
expect_stdout_contains "Update $update"
expect_stdout_matches '│ timestamp +│ level +│ event_type +│ flow_name +│ message +│'
expect_stdout_contains "Flow spark_catalog.default.orders_bronze is QUEUED."

run_weir events --format json
expect_exit 0
expect_json_lines
expect_stdout_contains '"details":{"'

run_weir run
run_weir events --update "$update" --format csv
expect_exit 0
expect_equal "one update" "$(tail -n +2 "$WEIR_STDOUT" | cut -d, -f2 | sort -u)" "$update"
run_weir events --update all --format csv
expect_equal "two updates" "$(tail -n +2 "$WEIR_STDOUT" | cut -d, -f2 | sort -u | wc -l)" 2

run_weir events --quality --update "$update" --format csv
expect_exit 0
expect_stdout_equals "dataset,expectation,passed_records,failed_records
spark_catalog.default.orders_silver,valid_amount,28,1"
# The second update read nothing new.
run_weir events --quality --format csv
expect_exit 0
expect_stdout_not_contains ",28,1"
run_weir events --quality
expect_exit 0
expect_stdout_contains "│ dataset "
expect_stderr_contains "No expectation was checked in this update: no dataset with expectations read new rows (weir events --quality --update all shows every update's)."
run_weir events --quality --update all
expect_exit 0
expect_stderr_empty
