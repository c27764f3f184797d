# spark.sql.session.timeZone (the spec's configuration, a SET before a
# flow, `weir query --conf`, SET TIME ZONE) is applied where Spark applies
# it: casts between strings and timestamps, fields, formatting, unix time,
# current_timezone(), expectations; a bad zone is refused at dry-run.
run_weir run
expect_exit 0
expect_query "SELECT id, unix, h, s, f, d, z FROM local_fields ORDER BY id" \
"id,unix,h,s,f,d,z
1,1705341600,10,2024-01-15 10:00:00,2024-01-15 10:00,2024-01-15,America/Los_Angeles
2,1710066600,3,2024-03-10 03:30:00,2024-03-10 03:30,2024-03-10,America/Los_Angeles
3,1719900000,23,2024-07-01 23:00:00,2024-07-01 23:00,2024-07-01,America/Los_Angeles"
# the flow after SET: the same instants on Kolkata's wall clock
expect_query "SELECT id, s, z FROM kolkata ORDER BY id" \
"id,s,z
1,2024-01-15 23:30:00,Asia/Kolkata
2,2024-03-10 16:00:00,Asia/Kolkata
3,2024-07-02 11:30:00,Asia/Kolkata"
# queries: the pipeline's zone, --conf, SET TIME ZONE
expect_query "SELECT CAST(ts AS STRING) AS s FROM events WHERE id = 1" \
"s
2024-01-15 10:00:00"
expect_query "SELECT CAST(ts AS STRING) AS s FROM events WHERE id = 1" \
"s
2024-01-15 18:00:00" --conf spark.sql.session.timeZone=UTC
run_weir query --format csv - <<<"SET TIME ZONE '+05:30';
SELECT CAST(ts AS STRING) AS s, current_timezone() AS z FROM events WHERE id = 1"
expect_exit 0
expect_stdout_contains "2024-01-15 23:30:00,+05:30"
# a zone Java does not know: Spark's class, at dry-run
sed -i 's|Asia/Kolkata|Mars/Olympus|' transformations/events.sql
run_weir dry-run
expect_exit 2
expect_stderr_contains "INVALID_CONF_VALUE.TIME_ZONE"
expect_stderr_contains "Mars/Olympus"
