#!/usr/bin/env python3
"""What a Python pipeline costs over the same pipeline in SQL (issue 13).

Times, as whole processes, side by side (runs interleaved A B A B ... so a
shared machine's slow phases hit both):

  run     `weir run` of `weir init --language python` against `weir init`
          (same data, fresh storage each run)
  dry     `weir dry-run` of the same two projects (no flow executes)
  empty   the SQL medallion plus one empty .py file against the SQL
          medallion, dry-run: the fixed price of Python (endpoint, launcher,
          interpreter, client, session, graph) with no Python dataset
  wide    N materialized views defined in Python against the same N in SQL,
          dry-run: the price per Python dataset is (wide - empty) / N
  floor   the interpreter alone (`python -c pass`), `import
          pyspark.sql.connect.session`, and the launcher's imports (pyspark
          pipelines + the Connect client): the start-up weir cannot avoid

Usage: python_bench.py --weir BIN --python PY [--runs N] [--wide N] [--json F]
Prints medians (wall and user+sys CPU, ms) and the paired differences.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work", "python")

# Under `python -c`, pyspark.sql.connect takes a __main__ without __file__
# for a doctest run (weir's launcher sets it too).
NO_DOCTEST = "__file__ = '<bench>'; "
CLIENT_IMPORT = NO_DOCTEST + "import pyspark.sql.connect.session"
LAUNCHER_IMPORTS = NO_DOCTEST + (
    "from pyspark import pipelines; "
    "from pyspark.pipelines.spark_connect_graph_element_registry import "
    "SparkConnectGraphElementRegistry; "
    "from pyspark.pipelines.spark_connect_pipeline import create_dataflow_graph; "
    "from pyspark.sql import SparkSession; import yaml"
)


def sh(cmd, cwd=None, env=None):
    subprocess.run(cmd, cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(cmd, cwd, env, reset=None):
    """(wall ms, user+sys ms) of one run of cmd; reset() runs untimed first."""
    if reset:
        reset()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"python_bench: {' '.join(cmd)} in {cwd} failed "
                 f"({r.returncode}):\n{r.stderr.decode(errors='replace')}")
    cpu = ((after.ru_utime - before.ru_utime) +
           (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu


def wipe(project):
    def reset():
        shutil.rmtree(os.path.join(project, "pipeline-storage"),
                      ignore_errors=True)
    return reset


def make_projects(weir, wide_n):
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    sh([weir, "init", "sql"], cwd=WORK)
    sh([weir, "init", "--language", "python", "py"], cwd=WORK)
    # The same data for both (init writes the same files; make sure).
    shutil.rmtree(os.path.join(WORK, "py", "data"))
    shutil.copytree(os.path.join(WORK, "sql", "data"),
                    os.path.join(WORK, "py", "data"))
    shutil.copytree(os.path.join(WORK, "sql"), os.path.join(WORK, "empty"))
    with open(os.path.join(WORK, "empty", "transformations", "empty.py"),
              "w") as f:
        f.write("# defines nothing: the fixed price of a Python file\n")
    for lang in ("wide-sql", "wide-py"):
        d = os.path.join(WORK, lang, "transformations")
        os.makedirs(d)
        with open(os.path.join(WORK, lang, "spark-pipeline.yml"), "w") as f:
            f.write(f"name: {lang}\nstorage: pipeline-storage\n"
                    "libraries:\n  - glob:\n      include: transformations/**\n")
    with open(os.path.join(WORK, "wide-sql", "transformations", "views.sql"),
              "w") as f:
        for i in range(wide_n):
            f.write(f"CREATE MATERIALIZED VIEW mv_{i} AS "
                    f"SELECT id, id * {i} AS v FROM range(10);\n")
    with open(os.path.join(WORK, "wide-py", "transformations", "views.py"),
              "w") as f:
        f.write("from pyspark import pipelines as dp\n\n\n"
                "def define(i):\n"
                "    @dp.materialized_view(name=f'mv_{i}')\n"
                "    def view():\n"
                "        return spark.range(10).selectExpr('id', f'id * {i} AS v')\n\n\n"
                f"for i in range({wide_n}):\n    define(i)\n")


def pair(name, a, b, runs, warmup=1):
    """Interleaved runs of a and b: dicts with cmd, cwd, env, reset."""
    rows = {"a": [], "b": []}
    for i in range(warmup + runs):
        for key, spec in (("a", a), ("b", b)):
            if spec is None:
                continue
            t = timed(spec["cmd"], spec["cwd"], spec.get("env"),
                      spec.get("reset"))
            if i >= warmup:
                rows[key].append(t)
    return rows


def med(values):
    return statistics.median(values) if values else float("nan")


def summary(name, rows, n_datasets=None):
    a, b = rows["a"], rows["b"]
    out = {"name": name,
           "a_wall_ms": med([w for w, _ in a]), "a_cpu_ms": med([c for _, c in a])}
    if b:
        out["b_wall_ms"] = med([w for w, _ in b])
        out["b_cpu_ms"] = med([c for _, c in b])
        out["diff_wall_ms"] = med([x[0] - y[0] for x, y in zip(a, b)])
        out["diff_cpu_ms"] = med([x[1] - y[1] for x, y in zip(a, b)])
    if n_datasets:
        out["datasets"] = n_datasets
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--wide", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    weir, py = os.path.abspath(args.weir), args.python
    env = dict(os.environ, WEIR_PYTHON=py, NO_COLOR="1")
    make_projects(weir, args.wide)
    p = lambda name: os.path.join(WORK, name)  # noqa: E731

    def job(name, *cmd, reset=False):
        return {"cmd": [weir, *cmd], "cwd": p(name), "env": env,
                "reset": wipe(p(name)) if reset else None}

    def pyjob(code):
        return {"cmd": [py, "-c", code], "cwd": WORK, "env": env}

    results = []
    steps = [
        ("run: python vs sql medallion", job("py", "run", reset=True),
         job("sql", "run", reset=True), 3),
        ("dry-run: python vs sql medallion", job("py", "dry-run"),
         job("sql", "dry-run"), 3),
        ("dry-run: sql + empty.py vs sql", job("empty", "dry-run"),
         job("sql", "dry-run"), None),
        (f"dry-run: {args.wide} views python vs sql", job("wide-py", "dry-run"),
         job("wide-sql", "dry-run"), args.wide),
        ("floor: import pyspark.sql.connect.session vs python -c pass",
         pyjob(CLIENT_IMPORT), pyjob("pass"), None),
        ("floor: launcher imports vs python -c pass",
         pyjob(LAUNCHER_IMPORTS), pyjob("pass"), None),
    ]
    for name, a, b, n in steps:
        print(f"[python-bench] {name} ({args.runs} runs each)", file=sys.stderr)
        results.append(summary(name, pair(name, a, b, args.runs), n))

    fixed = results[2]["diff_wall_ms"]
    wide = results[3]
    per_dataset = (wide["diff_wall_ms"] - fixed) / args.wide
    per_dataset_cpu = (wide["diff_cpu_ms"] - results[2]["diff_cpu_ms"]) / args.wide
    print(f"{'measure':62} {'A wall':>8} {'B wall':>8} {'A-B':>8} "
          f"{'A cpu':>8} {'B cpu':>8} {'A-B':>8}   (ms, medians)")
    for r in results:
        print(f"{r['name']:62} {r['a_wall_ms']:8.1f} {r.get('b_wall_ms', 0):8.1f} "
              f"{r.get('diff_wall_ms', 0):8.1f} {r['a_cpu_ms']:8.1f} "
              f"{r.get('b_cpu_ms', 0):8.1f} {r.get('diff_cpu_ms', 0):8.1f}")
    print(f"per Python dataset beyond the fixed price: {per_dataset:.2f} ms wall, "
          f"{per_dataset_cpu:.2f} ms CPU  ((wide - empty) / {args.wide})")
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"on {os.cpu_count()} CPUs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "per_dataset_ms": per_dataset,
                       "per_dataset_cpu_ms": per_dataset_cpu,
                       "runs": args.runs, "wide": args.wide,
                       "load": load}, f, indent=2)


if __name__ == "__main__":
    main()
