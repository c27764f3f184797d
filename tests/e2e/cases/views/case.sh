# Temporary views are inlined, persisted views are published, and the
# storage is readable by a stock DuckDB (the Python package, same version).

run_weir run
expect_exit 0
expect_query "SELECT customer, n FROM big_by_customer ORDER BY customer" "customer,n
0,2
1,1
2,2"
expect_query "SELECT customer, total FROM customer_totals ORDER BY customer" "customer,total
0,180
1,120
2,150"
# The temporary view is not in the catalog.
run_weir query "SELECT * FROM big_orders"
expect_exit 2
expect_stderr_contains "TABLE_OR_VIEW_NOT_FOUND"

py=$(weir_python)
"$py" - <<'PY' >"$E2E_OUT/stock.txt"
import duckdb
con = duckdb.connect("storage/spark_catalog.duckdb", read_only=True)
print(con.execute('SELECT count(*) FROM "default".orders').fetchone()[0])
print(con.execute('SELECT total FROM "default".customer_totals ORDER BY customer').fetchall())
print(con.execute("SELECT comment FROM duckdb_views() WHERE view_name = 'customer_totals'").fetchone()[0])
ev = duckdb.connect("storage/weir.duckdb", read_only=True)
print(ev.execute("SELECT count(*) > 0 FROM event_log WHERE message = 'Run is COMPLETED.'").fetchone()[0])
PY
expect_file_contains "$E2E_OUT/stock.txt" "9
[(180,), (120,), (150,)]
Total amount per customer
True"
