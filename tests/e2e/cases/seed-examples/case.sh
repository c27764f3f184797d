# Every example of the four seed documents, as the projects under
# examples/seeds/ (see its README.md): each runs with `weir run` and its
# tables hold what the page describes; the ones weir cannot run yet fail
# with a clear error at the right file and line, never a crash or silence.
root=$(cd "$E2E_LIB/../.." && pwd)
seeds=$root/examples/seeds
WEIR_PYTHON=$("$root/scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

# A fresh copy of one example project; the case goes on inside it.
project() {
    cd "$E2E_WORK"
    rm -rf "$1"
    cp -r "$seeds/$1" "$1"
    cd "$1"
}
# A failing flow fails the update at once (the examples keep Spark's retries).
no_retries() {
    printf 'configuration:\n  spark.sql.pipelines.maxFlowRetryAttempts: "0"\n' >> spark-pipeline.yml
}

# ---- seed 000: append_flow ------------------------------------------------
project 000-append-flow
run_weir run
expect_exit 0
expect_stdout_contains "Flow spark_catalog.default.orders_eu_flow has COMPLETED."
expect_stdout_contains "Flow spark_catalog.default.orders_us has COMPLETED."
expect_query "SELECT order_id, amount, region FROM all_orders ORDER BY order_id" "order_id,amount,region
1,10.0,eu
2,20.0,eu
101,5.5,us"

project 000-delta-sink
run_weir run
expect_exit 0
expect_query 'SELECT event_id, kind FROM delta.`out/delta_sink` ORDER BY event_id' "event_id,kind
10,click
11,view"
printf '{"event_id": 12, "kind": "buy"}\n' > data/events/events-0002.json
run_weir run
expect_exit 0
expect_query 'SELECT count(*) AS n FROM delta.`out/delta_sink`' "n
3"
# The page's backfill into the sink: sinks take streaming flows only.
cp not-runnable/backfill.py transformations/
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/backfill.py:9: error: [INVALID_ONCE_FLOW_TARGET] Flow \`backfill\` is a once flow into the sink \`my_sink\`"

# The page's broker address is a placeholder: the dry run says it does not
# answer, exit 1 as for a source (tests/e2e/cases/kafka-sink-* run sinks
# against a real broker).
project 000-kafka-sink
run_weir dry-run
expect_exit 1
expect_stderr_contains "transformations/kafka.py:8: error: [KAFKA_BROKER_UNREACHABLE] Sink my_kafka_sink: no Kafka broker answered at host:port within 10000 ms"
expect_stderr_not_contains "struct(*)"

# The page's checkpoint folder does not exist here: the flow fails naming
# it, and reads nothing (tests/e2e/cases/import-checkpoint imports real
# Spark checkpoints).
project 000-import-checkpoint
run_weir run
expect_exit 1
expect_stdout_contains "[IMPORT_CHECKPOINT_NOT_FOUND] Flow 'spark_catalog.default.migrate' cannot import its checkpoint: Spark checkpoint /Volumes/my_catalog/my_schema/checkpoints/my_stream does not exist or is not a folder"
expect_query "SELECT count(*) AS n FROM target_table" "n
0"

# ---- seed 001: the sdp skill page ----------------------------------------
project 001-medallion
run_weir dry-run
expect_exit 0
expect_stdout_contains "unity.bronze.orders_silver -> unity.bronze.orders_silver  batch"
run_weir run
expect_exit 0
expect_query "SELECT order_date, order_count, revenue FROM orders_gold ORDER BY order_date" "order_date,order_count,revenue
2026-04-01,2,42.5
2026-04-02,1,8.25"
expect_query "SELECT id, square FROM unity.bronze.numbers ORDER BY id" "id,square
0,0
1,1
2,4
3,9
4,16"
run_weir run --full-refresh-all
expect_exit 0
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
5"

project 001-dlt-spellings
run_weir run
expect_exit 2
expect_stderr_contains "transformations/legacy.py:5: error: ModuleNotFoundError: No module named 'dlt'"

project 001-auto-cdc-sql
run_weir run
expect_exit 0
expect_query "SELECT customer_id, seq, name FROM customers" "customer_id,seq,name
1,1,ada"

project 001-auto-cdc-python
run_weir run
expect_exit 0
expect_query "SELECT customer_id, seq, name FROM customers" "customer_id,seq,name
1,1,ada"

# ---- seed 002: the pipeline API page --------------------------------------
for lang in python sql; do
    project 002-pipeline-api-$lang
    run_weir run
    expect_exit 0
    expect_query "SELECT day, n FROM spark_catalog.analytics.daily_counts ORDER BY day" "day,n
2026-04-30,1
2026-05-01,3
2026-05-02,1"
    # startRun(refresh = Seq("daily_counts"))
    run_weir run --refresh daily_counts
    expect_exit 0
    expect_stdout_contains "1 flows completed"
    expect_stdout_contains "2 excluded"
done
# startRun(fullRefresh = Seq("events")): the backfill runs again, once.
run_weir run --full-refresh events
expect_exit 0
expect_query "SELECT count(*) AS n FROM analytics.events" "n
5"
# The page's own batch reads into the table, as Spark rejects them too.
project 002-pipeline-api-python
cp not-runnable/events_as_written.py transformations/events.py
run_weir dry-run
expect_exit 2
expect_stderr_contains "transformations/events.py:11: error: [INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE]"

# ---- seed 003: the Lakeflow lesson ----------------------------------------
for lang in python sql; do
    project 003-medallion-$lang
    run_weir run
    expect_exit 0
    expect_query "SELECT order_date, revenue FROM orders_daily_gold ORDER BY order_date" "order_date,revenue
2026-03-01,25.00
2026-03-02,142.50
2026-03-03,7.25"
    expect_query "SELECT typeof(order_id) AS i, typeof(amount) AS a, typeof(order_ts) AS t FROM orders_silver LIMIT 1" "i,a,t
bigint,\"decimal(12,2)\",timestamp"
done

# The lab: warn and drop counts, then a row that breaks the fail rule.
for lang in sql python; do
    project 003-expectations-$lang
    no_retries
    run_weir run
    expect_exit 0
    expect_query "SELECT current_page_title, visits, views FROM page_views_gold ORDER BY 1" "current_page_title,visits,views
Home,2,4
Pricing,1,2"
    run_weir events --quality --format csv
    expect_exit 0
    expect_stdout_contains "spark_catalog.default.page_views_silver,valid_customer_age,4,1"
    expect_stdout_contains "spark_catalog.default.page_views_silver,valid_current_page,3,2"
    printf '{"user_id": 6, "age": 50, "current_page_id": 11, "current_page_title": "Pricing", "count": 0}\n' \
        > data/landing/page_views/views-0002.json
    run_weir run
    expect_exit 1
    expect_stdout_contains "[EXPECTATION_VIOLATION] Expectation 'valid_count' of spark_catalog.default.page_views_silver failed for 1 record(s)"
    expect_stdout_contains "Run is FAILED"
done
# The grouped expect_all* forms (Python only).
expect_query "SELECT user_id FROM page_views_silver_grouped ORDER BY user_id" "user_id
1
2
3"
