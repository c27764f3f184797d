#!/usr/bin/env python3
"""`weir run --remote` against a real Spark Connect server with Spark
Declarative Pipelines (issue 20; docs/spark.md).

Starts a Spark Connect server from the pinned pyspark (this interpreter's)
on an ephemeral loopback port, then:
  - runs three portable projects on it through `weir run --remote` and
    locally with `weir run`, and compares every table (spark.read.table
    over Spark Connect against `weir query`): the Python scaffold of `weir
    init --language python`, a SQL medallion (tests/spark/remote/
    medallion-sql) and append flows with views (remote/flows-views);
  - checks the events weir printed (Spark's flow and run events);
  - `weir dry-run --remote` on the SQL medallion;
  - a flow failing on Spark (remote/failing): exit 1 with Spark's message;
  - SQL weir accepts and Spark refuses (remote/spark-refuses): exit 1,
    Spark's error at the file's line and column;
  - an unreachable server: exit 1 with a clear error within seconds;
  - a bad sc:// URI: exit 2.
Data paths are made absolute (Spark resolves relative ones in its
driver's working directory, the server's). Prints one line per check;
exits 1 when one fails.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftest  # noqa: E402
import pipelines  # noqa: E402
import python_pipelines  # noqa: E402

PROJECTS = os.path.join(HERE, "remote")
GUIDE_DATA = os.path.join(HERE, "python-projects", "guide-flows", "data")

failures = []


def check(ok, what, detail=""):
    print("%s  %s%s" % ("ok  " if ok else "FAIL", what,
                        "" if ok or not detail else "\n      " + detail.replace("\n", "\n      ")),
          flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(work, port):
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               SPARK_DRIVER_MEMORY="1g")
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    log = open(os.path.join(work, "spark-server.log"), "w")
    proc = subprocess.Popen(
        [submit, "--master", "local[2]",
         "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
         "--conf", "spark.connect.grpc.binding.port=%d" % port,
         "--conf", "spark.sql.warehouse.dir=" + os.path.join(work, "spark-warehouse"),
         "--conf", "spark.sql.shuffle.partitions=1",
         "--conf", "spark.sql.session.timeZone=UTC",
         "--conf", "spark.sql.pipelines.execution.maxConcurrentFlows=1",
         "--conf", "spark.ui.enabled=false",
         "spark-internal"],
        cwd=work, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the Spark Connect server exited; see " + log.name)
        with socket.socket() as s:
            s.settimeout(1)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(1)
    stop_server(proc)
    raise RuntimeError("the Spark Connect server did not listen within 180 s")


def stop_server(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def fill(project, data):
    """@DIR@ (the project's folder) and @DATA@ (the absolute data folder)."""
    for path in glob.glob(os.path.join(project, "**", "*"), recursive=True):
        if os.path.isfile(path) and path.endswith((".yml", ".sql", ".py")):
            text = open(path).read()
            new = text.replace("@DIR@", project).replace("@DATA@", data)
            if new != text:
                with open(path, "w") as f:
                    f.write(new)


def weir(args, cwd, timeout=600):
    t0 = time.time()
    # The local event logs of remote runs go under the test's folder.
    env = dict(os.environ, WEIR_PYTHON=sys.executable,
               XDG_CACHE_HOME=os.path.join(WORK, "cache"))
    p = subprocess.run([WEIR] + args, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def spark_tables(spark, names):
    out = {}
    for name in names:
        df = spark.read.table(name)
        cols = [(f.name, difftest.spark_type(f.dataType)) for f in df.schema.fields]
        rows = [[difftest.norm_spark(v) for v in r] for r in df.collect()]
        out[name] = {"cols": cols, "rows": rows}
    return out


def make_projects(work):
    """name -> (remote copy, local copy): two copies of each project, each
    with its own storage."""
    out = {}
    data = os.path.join(work, "data")
    for name in ("medallion-sql", "flows-views"):
        for side in ("remote", "local"):
            dst = os.path.join(work, side, name)
            shutil.copytree(os.path.join(PROJECTS, name), dst)
            fill(dst, data)
        out[name] = (os.path.join(work, "remote", name), os.path.join(work, "local", name))
    # The Python scaffold, as `weir init` writes it (absolute file://
    # storage), its data path made absolute.
    for side in ("remote", "local"):
        rc, so, se, _ = weir(["init", "--language", "python", "scaffold"],
                             os.path.join(work, side))
        if rc != 0:
            raise RuntimeError("weir init failed: " + se)
        proj = os.path.join(work, side, "scaffold")
        for py in glob.glob(os.path.join(proj, "transformations", "*.py")):
            text = open(py).read()
            with open(py, "w") as f:
                f.write(text.replace('"data/', '"%s/' % os.path.join(proj, "data")))
    out["scaffold"] = (os.path.join(work, "remote", "scaffold"),
                       os.path.join(work, "local", "scaffold"))
    # The SQL medallion reads the scaffold's landed orders; the flows the
    # guide's orders.
    os.makedirs(data)
    shutil.copytree(os.path.join(out["scaffold"][1], "data", "landing"),
                    os.path.join(data, "landing"))
    shutil.copytree(os.path.join(GUIDE_DATA, "orders"), os.path.join(data, "orders"))
    for name in ("failing", "spark-refuses"):
        dst = os.path.join(work, "remote", name)
        shutil.copytree(os.path.join(PROJECTS, name), dst)
        fill(dst, data)
    return out


def run_and_compare(spark, uri, name, remote, local):
    rc, so, se, secs = weir(["run", "--remote", uri], remote)
    check(rc == 0, "%s: weir run --remote exits 0 (%.0f s)" % (name, secs),
          (so + se)[-2500:])
    check("Run is COMPLETED." in so, "%s: Spark's events printed" % name, so[-1500:])
    rc, ev, se, _ = weir(["events", "--remote", uri, "--format", "json"], remote)
    recorded = [json.loads(line) for line in ev.splitlines() if line.strip()]
    printed = [line.split(": ", 1)[1] for line in so.splitlines()
               if line.endswith("has COMPLETED.")]
    messages = [e["message"] for e in recorded]
    check(rc == 0 and printed and messages[-1:] == ["Run is COMPLETED."] and
          all(m in messages for m in printed),
          "%s: weir events --remote shows the update (%d events)" % (name, len(recorded)),
          (ev + se)[-1500:])
    rc, so2, se2, _ = weir(["run"], local)
    check(rc == 0, "%s: local weir run exits 0" % name, (so2 + se2)[-2500:])
    if rc != 0:
        return
    w = python_pipelines.weir_tables(WEIR, local)
    try:
        s = spark_tables(spark, sorted(w))
    except Exception as e:  # a table Spark does not have
        check(False, "%s: Spark has weir's tables %s" % (name, sorted(w)), str(e)[:800])
        return
    for t in sorted(w):
        kind, detail = pipelines.compare(s[t], w[t])
        check(kind == "match", "%s: table %s matches (%d rows)" % (name, t, len(w[t]["rows"])),
              "%s %s\nSpark: %s\nweir:  %s" % (kind, detail, difftest.show(s[t], 600),
                                              difftest.show(w[t], 600)))
    # Spark's events name the flows a local run completes.
    def completed(out):
        return sorted(line.split("Flow ")[1].split(" ")[0].strip("'")
                      for line in out.splitlines() if "has COMPLETED." in line)
    check(completed(so) == completed(so2) and completed(so),
          "%s: the same flows COMPLETED as in a local run (%d)" % (name, len(completed(so))),
          "Spark: %s\nweir:  %s" % (completed(so), completed(so2)))


def main():
    global WEIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    global WORK
    WEIR = os.path.abspath(a.weir)
    work = WORK = os.path.abspath(a.out)
    shutil.rmtree(work, ignore_errors=True)
    for side in ("remote", "local"):
        os.makedirs(os.path.join(work, side))
    t0 = time.time()
    projects = make_projects(work)

    # Nobody listens: a clear error, at once.
    rc, so, se, secs = weir(["run", "--remote", "sc://127.0.0.1:%d" % free_port()],
                            projects["medallion-sql"][0], timeout=60)
    check(rc == 1 and "cannot connect to 127.0.0.1:" in se and secs < 15,
          "unreachable server: exit 1, 'cannot connect' in %.1f s" % secs, se[-800:])
    rc, so, se, _ = weir(["run", "--remote", "sc://h:1/;use_ssl=true"], work, timeout=60)
    check(rc == 2 and "INVALID_REMOTE_URI" in se, "use_ssl=true: exit 2", se[-800:])

    port = free_port()
    server = start_server(work, port)
    uri = "sc://localhost:%d" % port
    print("Spark Connect server on port %d (%.0f s to start)" % (port, time.time() - t0),
          flush=True)
    try:
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.remote(uri).getOrCreate()
        rc, so, se, _ = weir(["dry-run", "--remote", uri], projects["medallion-sql"][0])
        check(rc == 0 and "Run is COMPLETED." in so, "medallion-sql: weir dry-run --remote exits 0",
              (so + se)[-1500:])
        for name in ("scaffold", "medallion-sql", "flows-views"):
            run_and_compare(spark, uri, name, *projects[name])

        rc, so, se, _ = weir(["run", "--remote", uri], os.path.join(work, "remote", "failing"))
        check(rc == 1 and "CAST_INVALID_INPUT" in se and "has FAILED" in so,
              "a failing flow: exit 1 with Spark's message", (so + se)[-1500:])
        rc, ev, se, _ = weir(["events", "--remote", uri], os.path.join(work, "remote", "failing"))
        check(rc == 0 and "Run is FAILED: [CAST_INVALID_INPUT]" in ev,
              "a failing flow: recorded with Spark's error", (ev + se)[-1500:])
        rc, so, se, _ = weir(["run", "--remote", uri], os.path.join(work, "remote", "spark-refuses"))
        check(rc == 1 and "transformations/live.sql:1:11: error: [PARSE_SYNTAX_ERROR]" in se,
              "SQL Spark refuses: exit 1, Spark's error at file:line:col", se[-800:])
        spark.stop()
    finally:
        stop_server(server)
    print("remote: %d failed, %.0f s" % (len(failures), time.time() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
