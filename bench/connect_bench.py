"""Driver of bench/connect.sh: the same PySpark Connect client against
`weir serve --spec` and against a local Apache Spark Connect server.

Per server: the median round trip of spark.sql("SELECT 1").collect()
over --pings calls (after a warm-up), and the best of --runs toPandas()
of --rows rows from a stored table (weir: a table in the project's
storage; Spark: a Parquet table in its warehouse) and from a generated
range with three computed columns. Prints a table with weir's figure over
Spark's and writes --json.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--weir", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--json", required=True)
ap.add_argument("--rows", type=int, default=1_000_000)
ap.add_argument("--pings", type=int, default=200)
ap.add_argument("--runs", type=int, default=3)
args = ap.parse_args()

from pyspark.sql import SparkSession  # noqa: E402

COLS = ["id", "id * 2 AS twice", "concat('row-', CAST(id AS STRING)) AS name",
        "CAST(id AS DOUBLE) / 7 AS ratio"]
GEN = ", ".join(COLS)


def measure(spark, label):
    out = {}
    for _ in range(10):
        spark.sql("SELECT 1").collect()
    times = []
    for _ in range(args.pings):
        t = time.perf_counter()
        spark.sql("SELECT 1").collect()
        times.append(time.perf_counter() - t)
    out["select1_ms"] = statistics.median(times) * 1000
    for what, df in (("table", lambda: spark.table("big")),
                     ("range", lambda: spark.range(0, args.rows).selectExpr(*COLS))):
        best = None
        for _ in range(args.runs):
            t = time.perf_counter()
            pdf = df().toPandas()
            dt = time.perf_counter() - t
            assert len(pdf) == args.rows, (label, what, len(pdf))
            best = dt if best is None else min(best, dt)
        out[f"{what}_rows_per_s"] = args.rows / best
    print(f"[connect-bench] {label}: {out}", file=sys.stderr)
    return out


def weir_side():
    proj = os.path.join(args.work, "weir")
    shutil.rmtree(proj, ignore_errors=True)
    os.makedirs(os.path.join(proj, "transformations"))
    with open(os.path.join(proj, "spark-pipeline.yml"), "w") as f:
        f.write("name: bench\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n")
    subprocess.run([args.weir, "query", f"CREATE TABLE big AS SELECT {GEN} FROM range({args.rows}) AS t(id)"],
                   cwd=proj, check=True, stdout=subprocess.DEVNULL)
    srv = subprocess.Popen([args.weir, "serve", "--spec", "spark-pipeline.yml", "--port", "0", "--token", "bench"],
                           cwd=proj, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = None
    for line in srv.stdout:
        if line.startswith("sc://"):
            url = line.strip()
            break
    try:
        spark = SparkSession.builder.remote(url).getOrCreate()
        res = measure(spark, "weir")
        spark.stop()
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=60)
    return res


def spark_side():
    wh = os.path.join(args.work, "spark-warehouse")
    shutil.rmtree(wh, ignore_errors=True)
    spark = (SparkSession.builder.remote("local[2]")
             .config("spark.sql.warehouse.dir", wh)
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.range(0, args.rows).selectExpr(*COLS).write.mode("overwrite").saveAsTable("big")
    res = measure(spark, "spark")
    spark.stop()
    return res


os.makedirs(args.work, exist_ok=True)
w = weir_side()
s = spark_side()
rows = [("spark.sql('SELECT 1').collect() round trip, median ms", "select1_ms", False),
        (f"toPandas() of a {args.rows:,}-row table, rows/s", "table_rows_per_s", True),
        (f"toPandas() of a {args.rows:,}-row generated range, rows/s", "range_rows_per_s", True)]
print("| measure | weir serve | Spark Connect | weir vs Spark |")
print("|---|---:|---:|---:|")
for label, key, higher in rows:
    ratio = w[key] / s[key] if higher else s[key] / w[key]
    fmt = "{:,.0f}" if higher else "{:.2f}"
    print(f"| {label} | {fmt.format(w[key])} | {fmt.format(s[key])} | {ratio:.1f}x {'faster' if ratio >= 1 else 'slower'} |")
with open(args.json, "w") as f:
    json.dump({"rows": args.rows, "pings": args.pings, "runs": args.runs, "weir": w, "spark": s}, f, indent=1)
