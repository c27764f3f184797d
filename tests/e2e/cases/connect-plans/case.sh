# DataFrame plans captured from the real pyspark-client (plans/*.bin, made
# by gen_plans.py) translate to Spark SQL that weir runs with Spark's
# results (plans/*.expected: CSV rows in any order, or the error class weir
# must refuse the plan with); the streaming ones run as a pipeline. Plans
# whose .expected is "SQL <text>" (Kafka reads: they need a broker) are
# checked for that exact text by unit/test_connect_plan.
PLAN="$(dirname "$WEIR")/tests/test_connect_plan"
[ -x "$PLAN" ] || e2e_fail "no plan translator at $PLAN (build test_connect_plan)"

cat >spark-pipeline.yml <<'YML'
name: plans
storage: storage
libraries:
  - glob:
      include: transformations/**
YML
run_weir query "CREATE TABLE orders AS SELECT * FROM VALUES
  (1L, 10L, 25.5D, 'open'), (2L, 10L, 100.0D, 'closed'), (3L, 20L, 7.25D, 'open'),
  (4L, 30L, CAST(NULL AS DOUBLE), 'open'), (5L, 20L, 60.0D, 'closed')
  AS v(order_id, customer_id, amount, status)"
expect_exit 0
run_weir query "CREATE TABLE customers AS SELECT * FROM VALUES
  (10L, 'ann', 'US'), (20L, 'bob', 'DE'), (40L, 'cy', CAST(NULL AS STRING))
  AS v(id, name, country)"
expect_exit 0

# Header line, then the rows sorted (plans need not order their rows).
sorted() { head -n 1 "$1"; tail -n +2 "$1" | sort; }

n=0
for f in plans/*.bin; do
    name=$(basename "$f" .bin)
    want=$(head -n 1 "plans/$name.expected")
    [ "$want" != PIPELINE ] || continue
    case "$want" in "SQL "*) continue ;; esac # exact text: unit/test_connect_plan
    sql=$("$PLAN" --print "$f") || true
    case "$want" in
    ERROR*)
        case "$sql" in
        "$want:"*) ;;
        *) e2e_fail "$name: expected $want, got: $sql" ;;
        esac
        continue ;;
    esac
    run_weir query --format csv "$sql"
    [ "$WEIR_EXIT" = 0 ] || e2e_fail "$name: query failed (exit $WEIR_EXIT): $sql"
    sorted "plans/$name.expected" >"$E2E_OUT/expected"
    sorted "$WEIR_STDOUT" >"$E2E_OUT/actual"
    compare_files "$name: $sql" "$E2E_OUT/expected" "$E2E_OUT/actual"
    n=$((n + 1))
done
expect_equal "plans run" "$([ "$n" -ge 45 ] && echo ok)" ok

# Streaming plans as a pipeline: Auto Loader into bronze, a stream of it
# into silver, a batch aggregate of silver.
mkdir -p transformations landing
printf '{"id": 1, "amount": 0.5, "ts": "2024-01-01 00:00:00"}\n{"id": 2, "amount": 3, "ts": "2024-01-01 00:01:00"}\n' >landing/a.json
{
    echo "CREATE STREAMING TABLE bronze AS $("$PLAN" --print plans/stream_bronze.bin);"
    echo "CREATE STREAMING TABLE silver AS $("$PLAN" --print plans/stream_silver.bin);"
    echo "CREATE MATERIALIZED VIEW gold AS $("$PLAN" --print plans/stream_gold.bin);"
} >transformations/plans.sql
run_weir run
expect_exit 0
expect_query "SELECT id, amount, ingested FROM bronze ORDER BY id" "id,amount,ingested
1,0.5,true
2,3.0,true"
expect_query "SELECT * FROM silver" "id,amount10
2,30.0"
printf '{"id": 3, "amount": 5, "ts": "2024-01-01 00:02:00"}\n' >landing/b.json
run_weir run
expect_exit 0
expect_query "SELECT * FROM gold" "total
80.0"
