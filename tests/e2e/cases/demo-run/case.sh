# The init project end to end: first run, a run with nothing new, a new
# landing file picked up once, a full refresh, a selective refresh.

run_weir init demo
expect_exit 0
cd demo

# --- First run -----------------------------------------------------------------
run_weir run
expect_exit 0
expect_stdout_contains "Loading pipeline spec from $E2E_WORK/demo/spark-pipeline.yml..."
expect_stdout_contains "Starting run..."
expect_stdout_contains "Flow spark_catalog.default.orders_bronze is QUEUED."
expect_stdout_contains "Flow spark_catalog.default.orders_silver has COMPLETED."
expect_stdout_contains "Flow spark_catalog.default.daily_revenue is PLANNING."
expect_stdout_contains "Flow spark_catalog.default.daily_revenue has COMPLETED."
expect_stdout_matches '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}: Run is COMPLETED\.$'
expect_stdout_not_contains "FAILED"
# Piped output has no progress line.
expect_stdout_not_contains $'\r'
expect_dir_exists pipeline-storage

expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
# 1007 has no amount (filtered), 1014 a negative one (dropped).
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
expect_query "SELECT count(*) AS n FROM orders_silver WHERE order_id IN (1007, 1014)" "n
0"
expect_query "SELECT order_date, orders, revenue FROM daily_revenue ORDER BY order_date" \
"order_date,orders,revenue
2026-01-05,9,572.13
2026-01-06,9,460.93
2026-01-07,10,735.57"

# The expectation's counts for this update.
run_weir events --quality --format csv
expect_exit 0
expect_stdout_contains "dataset,expectation,passed_records,failed_records"
expect_stdout_contains "valid_amount,28,1"

# --- Nothing new: streaming tables read each file once ---------------------------
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
30"
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"

# --- A new landing file ----------------------------------------------------------
cp ../orders-0004.json data/landing/orders/
run_weir run
expect_exit 0
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
35"
expect_query "SELECT order_date, orders, revenue FROM daily_revenue ORDER BY order_date" \
"order_date,orders,revenue
2026-01-05,9,572.13
2026-01-06,9,460.93
2026-01-07,10,735.57
2026-01-08,5,150.50"

# --- Full refresh: recomputed from scratch, same result -------------------------------
run_weir run --full-refresh-all
expect_exit 0
expect_query "SELECT count(*) AS n FROM orders_bronze" "n
35"
expect_query "SELECT count(*) AS n FROM orders_silver" "n
33"

# --- Selective refresh: the others are EXCLUDED --------------------------------------
run_weir run --refresh daily_revenue
expect_exit 0
expect_stdout_contains "Flow 'spark_catalog.default.orders_bronze' is EXCLUDED."
expect_stdout_contains "Flow spark_catalog.default.daily_revenue has COMPLETED."

run_weir run --full-refresh orders_silver --refresh daily_revenue --quiet
expect_exit 0
expect_stdout_empty
expect_query "SELECT count(*) AS n FROM orders_silver" "n
33"

# --- The event log -----------------------------------------------------------------
run_weir events
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_stdout_matches '^Update [0-9a-f-]+$'
run_weir events --update all --format csv
expect_exit 0
expect_stdout_contains "id,update_id,sequence,timestamp,level,event_type,message,flow_name,dataset_name,details,error"
expect_equal "updates in the log" \
    "$(tail -n +2 "$WEIR_STDOUT" | grep -c 'Run is COMPLETED.')" 6
