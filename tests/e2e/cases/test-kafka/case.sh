# Kafka topics as test fixtures, without a broker: topic fixtures (inline,
# JSON, CSV, SQL; in steps) feed read_kafka through the test storage's
# local topics, with the Kafka source's columns and types, and the Kafka
# sink's output is captured there and checked with `topic:` expectations.
# The broker address in the SQL is a closed port, so any attempt to reach
# it would fail the tests.
run_weir test
expect_exit 0
expect_stdout_contains "PASS orders_flow_to_the_sink_topic ("
expect_stdout_contains "PASS topics_from_csv_and_sql ("
expect_stdout_contains "PASS no_messages_no_rows ("
expect_stdout_contains "3 tests: 3 passed, 0 failed"
expect_no_file storage

# A sink topic that differs: a diff naming the topic.
cat >tests/wrong.yml <<'YML'
sink_topic_differs:
  given:
    - topic: orders
      rows: [{key: ann, value: '{"order_id": 1, "amount": 2}'}]
  expect:
    - topic: orders_clean
      rows: [{key: ann, value: '{"id":1,"amount":3.0}'}]
YML
run_weir test wrong
expect_exit 1
expect_stdout_contains "[ROWS_DIFFER] tests/wrong.yml:6: rows of topic orders_clean differ: 1 of them (expected 1 row, got 1)"
expect_stdout_contains 'value: expected {"id":1,"amount":3.0}, got {"id":1,"amount":2.0}'

# A fixture row with a column a message does not have, a fixture naming
# two inputs: invalid definitions at their file:line:col.
cat >tests/wrong.yml <<'YML'
bad_topic_column:
  given:
    - topic: orders
      rows: [{key: ann, offset: 3}]
  expect:
    - topic: orders_clean
      rows: []
two_inputs:
  given:
    - topic: orders
      table: t
      rows: []
  expect:
    - query: SELECT 1 WHERE false
YML
run_weir test
expect_exit 2
expect_stderr_contains "tests/wrong.yml:4:25: error: [TEST_DEFINITION_INVALID] \`offset\` is not a column of a topic fixture"
expect_stderr_contains "tests/wrong.yml:10:7: error: [TEST_DEFINITION_INVALID] A fixture names one of \`table\`, \`files\` (a path the SQL reads) or \`topic\` (a Kafka topic), not several."

# Bad values in rows read from a file: the test fails at its fixture.
cat >tests/wrong.yml <<'YML'
bad_headers:
  given:
    - topic: orders
      sql: SELECT 'a' AS key, 'x' AS value, '[1]' AS headers
  expect:
    - topic: orders_clean
      rows: []
YML
run_weir test bad_headers
expect_exit 1
expect_stdout_contains "[FIXTURE_FAILED] fixture topic orders, row 1: \`headers\` should be a JSON object of header names and string values"

# The same from Python (spark.readStream.format("kafka"), dp.create_sink
# "kafka"), with the real pyspark-client.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON
cd python
run_weir test
expect_exit 0
expect_stdout_contains "PASS python_kafka_round_trip ("
expect_no_file storage
