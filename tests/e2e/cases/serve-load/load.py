"""Load and faults against `weir serve --spec`: CLIENTS PySpark sessions
(separate processes) each send REQUESTS mixed queries (SQL, table reads,
toPandas, createDataFrame, aggregates) and, halfway, run the stock
pipelines CLI on a project of their own; meanwhile a client is killed in
the middle of a large result, a connection stays half open, and
abuse.py throws garbage and oversized messages at the port. Prints one
line per client and exits non-zero on any error.

usage: python load.py URL PORT TOKEN PROJECTS_DIR CLIENTS REQUESTS ABUSE_PY
"""
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import time

url, port, token, projects = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
n_clients, n_requests, abuse = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]


def client(i, out):
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.remote(url).create()
    errors, runs = [], 0
    for k in range(n_requests):
        try:
            m = k % 6
            if m == 0:
                assert spark.sql(f"SELECT {k} AS x").collect()[0].x == k
            elif m == 1:
                assert spark.table("orders").count() == 6
            elif m == 2:
                pdf = spark.table("by_customer").orderBy("customer").toPandas()
                assert list(pdf["n"]) == [2, 2, 2]
            elif m == 3:
                assert spark.createDataFrame([(i, k)], "a int, b int").collect()[0].b == k
            elif m == 4:
                assert spark.range(0, 1000).selectExpr("sum(id) AS s").first().s == 499500
            else:
                assert spark.table("orders").filter("paid").select("id").orderBy("id").collect()[-1].id == 4
            if k == n_requests // 2:
                env = dict(os.environ, SPARK_REMOTE=url)
                r = subprocess.run([sys.executable, "-m", "pyspark.pipelines.cli", "run"],
                                   cwd=os.path.join(projects, f"p{i}"), env=env,
                                   capture_output=True, text=True, timeout=300)
                if r.returncode != 0 or "Run is COMPLETED" not in r.stdout:
                    errors.append(f"pipeline run: exit {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
                runs += 1
        except Exception as e:  # noqa: BLE001 - every failure counts
            errors.append(f"request {k}: {type(e).__name__}: {str(e)[:200]}")
    spark.stop()
    out.put((i, n_requests, runs, errors))


def big_result_then_killed():
    code = ("import sys\nfrom pyspark.sql import SparkSession\n"
            "s = SparkSession.builder.remote(sys.argv[1]).create()\n"
            "s.range(0, 3000000).selectExpr('id', 'repeat(\"x\", 40) AS pad').toPandas()\n")
    p = subprocess.Popen([sys.executable, "-c", code, url],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2.5)
    p.send_signal(signal.SIGKILL)
    p.wait()


if __name__ == "__main__":
    # A half-open connection: the preface and nothing more, kept open.
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    out = mp.Queue()
    procs = [mp.Process(target=client, args=(i, out)) for i in range(n_clients)]
    for p in procs:
        p.start()
    big_result_then_killed()
    a = subprocess.run([sys.executable, abuse, str(port), token, str(128 << 20)],
                       capture_output=True, text=True, timeout=600)
    results = [out.get(timeout=1200) for _ in procs]
    for p in procs:
        p.join()
    half.close()
    bad = 0
    for i, n, runs, errors in sorted(results):
        print(f"client {i}: {n} requests, {runs} pipeline run, {len(errors)} errors")
        for e in errors[:5]:
            print("   ", e)
        bad += len(errors)
    print(f"abuse.py: exit {a.returncode} {a.stdout.strip()[-300:]} {a.stderr.strip()[-300:]}")
    sys.exit(1 if bad or a.returncode else 0)
