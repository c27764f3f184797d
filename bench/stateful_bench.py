#!/usr/bin/env python3
"""Stateful streaming benchmark (issue 41; goal: an update of 1% new
events costs at most 5% of the initial load).

  stateful_bench.py --weir PATH --python PATH [--work DIR] [--events N]
                    [--updates U]

Needs the duckdb module (build-pyenv has it). N events (default 10M:
id, ts, amount) in a parquet file feed a streaming table; four flows read
it: a window aggregation (1-minute tumbling windows, watermark 2 minutes,
SQL), a deduplication on id without a watermark (every key kept), one on
(id, ts) with a 10-minute watermark (keys expire), and, as the reference,
a stateless filter of the same stream. Then U updates (default 3) each
add 1% new events (later event times; 1 in 20 ids repeats an earlier
one). The time of each flow comes from weir's event log (its flow
duration); the state's size from the catalog file: rows and blocks of
each state table, and the keys or open windows they hold. Prints a table
and writes results.json in the work folder.
"""
import argparse
import json
import os
import shutil
import subprocess
import time

import duckdb

SQL = """
CREATE STREAMING TABLE events AS
SELECT * FROM STREAM read_files('data', format => 'parquet');

CREATE STREAMING TABLE per_minute AS
SELECT window(ts, '1 minute') AS w, count(*) AS n, sum(amount) AS total
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 2 MINUTES
GROUP BY window(ts, '1 minute');

CREATE STREAMING TABLE positive AS
SELECT * FROM STREAM(events) WHERE amount > 0;
"""

PY = """
from pyspark import pipelines as dp


@dp.table
def unique_ids():
    return spark.readStream.table("events").dropDuplicates(["id"])


@dp.table
def unique_recent():
    return (spark.readStream.table("events").withWatermark("ts", "10 minutes")
            .dropDuplicates(["id", "ts"]))
"""

FLOWS = ["per_minute", "unique_ids", "unique_recent", "positive"]


def gen(path, start, n, first_minute, minutes, repeat_below):
    """n events: ids from start, event times over `minutes` minutes from
    first_minute (in order, a few seconds of jitter); 1 in 20 repeats an
    id below repeat_below."""
    con = duckdb.connect()
    con.execute(f"""
        COPY (
          SELECT CASE WHEN {repeat_below} > 0 AND r % 20 = 7
                      THEN (hash(r) % {max(repeat_below, 1)})::BIGINT
                      ELSE ({start} + r)::BIGINT END AS id,
                 TIMESTAMP '2024-01-01 00:00:00'
                   + to_microseconds(({first_minute}::BIGINT * 60000000
                       + r * ({minutes}::BIGINT * 60000000 // {n})
                       + (hash(r, 'j') % 5000000)::BIGINT)::BIGINT) AS ts,
                 (hash(r, 'a') % 1000)::BIGINT - 10 AS amount
          FROM range({n}) t(r)
        ) TO '{path}' (FORMAT parquet)""")


def run(weir, project, python):
    env = dict(os.environ, WEIR_PYTHON=python)
    t0 = time.time()
    p = subprocess.Popen([weir, "run"], cwd=project, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.time() - t0
    if status != 0:
        raise SystemExit("weir run failed:\n" + out.decode()[-3000:])
    return wall, usage.ru_maxrss / 1024.0


def query(weir, project, sql):
    p = subprocess.run([weir, "query", "--format", "json", "-"], input=sql,
                       cwd=project, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def durations(weir, project):
    rows = query(weir, project, """
        SELECT flow_name AS f,
               CAST(get_json_object(details, '$.flow_progress.duration_ms') AS BIGINT) AS ms
        FROM weir.event_log
        WHERE update_id = (SELECT max_by(update_id, sequence) FROM weir.event_log)
          AND get_json_object(details, '$.flow_progress.status') = 'COMPLETED'""")
    return {r["f"].split(".")[-1]: r["ms"] for r in rows}


def state_size(project):
    """Rows and storage blocks of each state table, from the catalog file."""
    path = os.path.join(project, "storage", "spark_catalog.duckdb")
    con = duckdb.connect(path, read_only=True)
    out = {}
    tables = con.execute("SELECT table_name FROM duckdb_tables() "
                         "WHERE schema_name = '_weir' AND (starts_with(table_name, 'dedup ') "
                         "OR starts_with(table_name, 'agg '))").fetchall()
    block = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    for (t,) in tables:
        q = '_weir."%s"' % t.replace('"', '""')
        rows = con.execute(f"SELECT count(*) FROM {q}").fetchone()[0]
        blocks = con.execute(
            f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{q}') "
            "WHERE block_id >= 0").fetchone()[0]
        flow = t.split(" ")[1].split(".")[-1]
        extra = {}
        if t.startswith("agg "):
            extra["open_windows"] = con.execute(
                f"SELECT count(DISTINCT __weir_end_us) FROM {q}").fetchone()[0]
        out[flow] = dict(rows=rows, bytes=blocks * block, **extra)
    out["catalog_file_bytes"] = os.path.getsize(path)
    con.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--python", required=True, help="a Python with pyspark-client")
    ap.add_argument("--work", default="bench/work/stateful")
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--updates", type=int, default=3)
    a = ap.parse_args()
    project = os.path.abspath(os.path.join(a.work, "project"))
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(os.path.join(project, "data"))
    os.makedirs(os.path.join(project, "transformations"))
    with open(os.path.join(project, "spark-pipeline.yml"), "w") as f:
        f.write("name: stateful\nstorage: storage\nlibraries:\n"
                "  - glob:\n      include: transformations/**\n")
    with open(os.path.join(project, "transformations", "flows.sql"), "w") as f:
        f.write(SQL)
    with open(os.path.join(project, "transformations", "dedup.py"), "w") as f:
        f.write(PY)
    n, minutes = a.events, 1000
    gen(os.path.join(project, "data", "part-000.parquet"), 0, n, 0, minutes, 0)
    results = []
    wall, rss = run(a.weir, project, a.python)
    results.append(dict(update="initial", events=n, wall_s=wall, max_rss_mb=rss,
                        flows=durations(a.weir, project), state=state_size(project)))
    inc = n // 100
    for u in range(1, a.updates + 1):
        gen(os.path.join(project, "data", "part-%03d.parquet" % u), n + (u - 1) * inc,
            inc, minutes + (u - 1) * minutes // 100, minutes // 100, n)
        wall, rss = run(a.weir, project, a.python)
        results.append(dict(update="1%% #%d" % u, events=inc, wall_s=wall,
                            max_rss_mb=rss, flows=durations(a.weir, project),
                            state=state_size(project)))
    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    first = results[0]["flows"]
    print("| update | " + " | ".join(FLOWS) + " | max RSS |")
    print("|---|" + "---|" * (len(FLOWS) + 1))
    for r in results:
        cells = []
        for fl in FLOWS:
            ms = r["flows"].get(fl)
            cells.append("%s ms%s" % (ms, "" if r is results[0] or not first.get(fl)
                                      else " (%.1f%%)" % (100.0 * ms / first[fl])))
        print("| %s | %s | %.0f MB |" % (r["update"], " | ".join(cells), r["max_rss_mb"]))
    print()
    print("| update | state table | rows | bytes on disk | open windows |")
    print("|---|---|---|---|---|")
    for r in results:
        for fl, s in r["state"].items():
            if isinstance(s, dict):
                print("| %s | %s | %d | %d | %s |" % (r["update"], fl, s["rows"], s["bytes"],
                                                   s.get("open_windows", "")))


main()
