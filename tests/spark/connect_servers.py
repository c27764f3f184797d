"""Spark Connect servers for the Spark tier's client-side tests
(doctests.py, dataframes.py): a local Apache Spark Connect server (pyspark
4.1.4 from the tier's venv, Java 17) and `weir serve --spec` on a scratch
project. Each start returns (url, stop); stop() ends the server and
everything it started. Standard library only.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(proc, port, what, log):
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited; see %s" % (what, log))
        with socket.socket() as s:
            s.settimeout(1)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise RuntimeError("%s did not listen within 180 s" % what)


def stop(proc, hard_after=60):
    """SIGTERM to proc's process group (it was started in a session of its
    own), SIGKILL after hard_after seconds."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(hard_after)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start_spark(venv, work, confs=None):
    """A Spark Connect server (local[2], session time zone UTC) from
    venv's pyspark, its warehouse and log under work."""
    port = free_port()
    py = os.path.join(venv, "bin", "python")
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=py,
               SPARK_DRIVER_MEMORY="2g", TZ="UTC")
    log = os.path.join(work, "spark-server.log")
    all_confs = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.sql.warehouse.dir": os.path.join(work, "warehouse"),
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        # pyspark-client 4.2 reads these as plain integers; Spark 4.1 lacks
        # some and writes the others with a unit.
        "spark.sql.session.localRelationCacheThreshold": "67108864",
        "spark.sql.session.localRelationSizeLimit": "3221225472",
        "spark.sql.session.localRelationChunkSizeRows": "1000000",
        "spark.sql.session.localRelationChunkSizeBytes": "16777216",
        "spark.sql.session.localRelationBatchOfChunksSizeBytes": "134217728",
    }
    all_confs.update(confs or {})
    cmd = [os.path.join(venv, "bin", "spark-submit"), "--master", "local[2]",
           "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
    for k, v in all_confs.items():
        cmd += ["--conf", "%s=%s" % (k, v)]
    cmd.append("spark-internal")
    proc = subprocess.Popen(cmd, cwd=work, stdout=open(log, "a"),
                            stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        wait_port(proc, port, "the Spark Connect server", log)
    except Exception:
        stop(proc)
        raise
    return "sc://127.0.0.1:%d" % port, lambda: stop(proc)


def start_weir(weir, work, spec="name: scratch\nstorage: storage\nlibraries: []\n"):
    """`weir serve --port 0 --spec` on a project in work (a fresh storage
    each start: a server killed in the middle of a query leaves its storage
    behind)."""
    with open(os.path.join(work, "spark-pipeline.yml"), "w") as f:
        f.write(spec)
    shutil.rmtree(os.path.join(work, "storage"), ignore_errors=True)
    log = os.path.join(work, "serve.log")
    proc = subprocess.Popen([weir, "serve", "--port", "0", "--spec", "spark-pipeline.yml"],
                            cwd=work, stdout=subprocess.PIPE, stderr=open(log, "a"),
                            text=True, start_new_session=True)
    for line in proc.stdout:
        m = re.match(r"^(sc://localhost:\d+/;token=\S+)$", line.strip())
        if m:
            return m.group(1), lambda: stop(proc, hard_after=20)
    stop(proc)
    raise RuntimeError("weir serve did not start; see " + log)
