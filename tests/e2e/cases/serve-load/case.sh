# weir serve under load and faults (issue 14): 8 PySpark sessions x 60
# mixed requests (200 in heavy/serve-load) (queries, toPandas, createDataFrame, aggregates) and a
# stock-pipelines-CLI run each, while a client is killed in the middle of
# a 3M-row result, a connection stays half open, and tests/connect/abuse.py
# sends garbage, an oversized message, bad tokens and deep nesting. Every
# request must succeed, the server must keep serving, stop cleanly without
# sanitizer reports, and hold no graph of a released session. The server's
# memory before and after is printed (ASan's quarantine makes it no
# measure of leaks; LeakSanitizer at exit is).
# WEIR_LOAD_CLIENTS / WEIR_LOAD_REQUESTS override them.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
clients=${WEIR_LOAD_CLIENTS:-8}
requests=${WEIR_LOAD_REQUESTS:-$(e2e_size 60 200)}
# The shop project the serve-* cases share.
cp -R "$E2E_CASE/../serve-common/project" project
cd project
run_weir run
expect_exit 0
cd ..
# Each client's pipeline run has a storage of its own (an absolute path:
# the server resolves relative ones against its own root).
for i in $(seq 0 $((clients - 1))); do
    mkdir -p "runs/p$i"
    cp -R project/transformations "runs/p$i/"
    sed "s|^storage: .*|storage: $E2E_WORK/runs/p$i/storage|" \
        project/spark-pipeline.yml >"runs/p$i/spark-pipeline.yml"
done

cd project
start_server --spec spark-pipeline.yml
port=${url#sc://localhost:}
port=${port%%/*}
weir_pid=$(pgrep -P "$srv_pid" | head -1)
rss() { awk '/^VmRSS/ {print $2 " kB"}' "/proc/$weir_pid/status"; }
echo "server memory before: $(rss)" >&2

timeout 1500 "$py" ../load.py "$url" "$port" "$token" "$E2E_WORK/runs" \
    "$clients" "$requests" "$E2E_LIB/../connect/abuse.py" \
    >"$E2E_OUT/load.out" 2>"$E2E_OUT/load.err" ||
    e2e_fail "load: $(cat "$E2E_OUT/load.out"; tail -20 "$E2E_OUT/load.err")"
cat "$E2E_OUT/load.out" >&2
echo "server memory after: $(rss)" >&2
expect_equal "clients without errors" "$(grep -c ' 0 errors$' "$E2E_OUT/load.out")" "$clients"

# Still serving, and the storage opens again after the runs.
"$py" - "$url" >"$E2E_OUT/after.out" 2>&1 <<'PY' || e2e_fail "after the load: $(tail "$E2E_OUT/after.out")"
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print(spark.table("orders").count())
spark.stop()
PY
expect_equal "a query after the load" "$(cat "$E2E_OUT/after.out")" 6
stop_server TERM
expect_file_contains "$E2E_OUT/serve.out" "0 dataflow graphs of unreleased sessions dropped"
