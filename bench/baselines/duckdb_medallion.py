#!/usr/bin/env python3
"""The medallion pipeline as plain DuckDB SQL: the floor weir is measured
against (bench/bench.py runs it with the duckdb==1.4.4 package of
scripts/pyenv.sh).

  duckdb_medallion.py DB DATA_DIR (--initial | --increment FILE...) [--no-expectations]

DB is a DuckDB database file (created by --initial, reused by
--increment). DATA_DIR holds orders/ and customers/ as the weir project
sees them. The statements are what bench/projects/medallion asks for,
written by hand the way a DuckDB user would (see bench/README.md):

  bronze   CREATE TABLE AS / INSERT ... FROM read_json(<the same files and
           options weir passes>), i.e. format 'newline_delimited',
           union_by_name
  customers CREATE OR REPLACE TABLE AS SELECT the same casts
  silver   the expectations as one aggregate over the new rows (warn,
           drop and fail counts; a fail count > 0 aborts), then INSERT of
           the rows that pass the DROP rule; only bronze rows added since
           the last load (rowid >= the previous count), as weir reads them
  gold     CREATE OR REPLACE TABLE AS SELECT ... GROUP BY

Timing covers connect + every statement + close (the close checkpoints
the WAL, which weir's process also pays on exit) and leaves out the
Python start and `import duckdb`. Prints one JSON object: total and
per-step seconds, rows written.
"""
import argparse
import json
import sys
import time

SILVER = """
SELECT
  CAST(o.order_id AS BIGINT) AS order_id,
  CAST(o.customer_id AS BIGINT) AS customer_id,
  CAST(o.amount AS DECIMAL(12,2)) AS amount,
  CAST(o.order_ts AS TIMESTAMP) AS order_ts,
  CAST(o.status AS VARCHAR) AS status,
  c.country
FROM (SELECT * FROM orders_bronze WHERE rowid >= {start}) o
LEFT JOIN customers c ON CAST(o.customer_id AS BIGINT) = c.customer_id
"""

CHECKS = """
SELECT count(*),
       count_if(NOT coalesce(amount IS NOT NULL, false)),
       count_if(NOT coalesce(amount >= 0, false)),
       count_if(NOT coalesce(country IS NOT NULL, false))
FROM ({q})
"""

GOLD = """
CREATE OR REPLACE TABLE revenue_by_day AS
SELECT CAST(order_ts AS DATE) AS order_date, country, count(*) AS orders,
       sum(amount) AS revenue
FROM orders_silver
GROUP BY CAST(order_ts AS DATE), country
"""


def sql_list(paths):
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("data")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--initial", action="store_true")
    mode.add_argument("--increment", nargs="+", metavar="FILE")
    ap.add_argument("--no-expectations", action="store_true")
    a = ap.parse_args()
    import duckdb  # noqa: E402  (not timed)

    reader = "format = 'newline_delimited', union_by_name = true"
    steps = {}
    out = {"steps": steps}
    t0 = time.perf_counter()
    con = duckdb.connect(a.db)
    con.execute("SET TimeZone = 'UTC'")

    def step(name, fn):
        t = time.perf_counter()
        r = fn()
        steps[name] = steps.get(name, 0.0) + time.perf_counter() - t
        return r

    # bronze
    if a.initial:
        step("bronze", lambda: con.execute(
            "CREATE TABLE orders_bronze AS SELECT * FROM read_json('%s/orders/*', %s)"
            % (a.data, reader)))
        start = 0
    else:
        start = step("bronze", lambda: con.execute(
            "SELECT count(*) FROM orders_bronze").fetchone()[0])
        step("bronze", lambda: con.execute(
            "INSERT INTO orders_bronze BY NAME SELECT * FROM read_json(%s, %s)"
            % (sql_list(a.increment), reader)))
    # customers (a materialized view: recomputed on every update)
    step("customers", lambda: con.execute(
        "CREATE OR REPLACE TABLE customers AS SELECT "
        "CAST(customer_id AS BIGINT) AS customer_id, CAST(name AS VARCHAR) AS name, "
        "CAST(country AS VARCHAR) AS country "
        "FROM read_json('%s/customers/*', %s)" % (a.data, reader)))
    # silver
    q = SILVER.format(start=start)
    if a.no_expectations:
        where = ""
    else:
        n, warn, drop, fail = step("silver", lambda: con.execute(
            CHECKS.format(q=q)).fetchone())
        out["expectations"] = {"rows": n, "warn": warn, "drop": drop, "fail": fail}
        if fail:
            sys.exit("customer_known failed for %d rows" % fail)
        where = " WHERE coalesce(amount >= 0, false)"
    if a.initial:
        step("silver", lambda: con.execute(
            "CREATE TABLE orders_silver AS SELECT * FROM (%s)%s" % (q, where)))
    else:
        step("silver", lambda: con.execute(
            "INSERT INTO orders_silver SELECT * FROM (%s)%s" % (q, where)))
    # gold
    step("gold", lambda: con.execute(GOLD))
    step("close", con.close)
    out["total"] = time.perf_counter() - t0
    out["streaming"] = steps["bronze"] + steps["silver"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
