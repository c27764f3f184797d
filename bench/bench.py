#!/usr/bin/env python3
"""weir's benchmark driver (issue 9). Run it through bench/run.sh.

  bench.py [--full] [--weir PATH] [--runs N] [--only NAMES] [--skip NAMES]
  bench.py report RESULTS.json        print the tables of a saved run as Markdown

Workloads (NAMES for --only/--skip):
  medallion   JSON files -> bronze ST -> silver ST (casts, join, 3 expectations)
              -> gold MV, initial load; and `increment`: 1% new files, update
  wide        200 datasets in a DAG of depth 10 (bench/wide.py): orchestration
  latency     `weir dry-run` on the wide project, process start
  Baselines: duckdb (hand-written SQL, bench/baselines/duckdb_medallion.py),
  dbt (dbt-duckdb, bench/projects/medallion-dbt), spark (spark-pipelines,
  bench/projects/medallion-spark; --full only).

Every timed run starts from a fresh copy of its project. Runs of the
different tools are interleaved (weir, duckdb, dbt, ... then again), and
ratios are taken pair by pair within an iteration, then the median. Wall
time is measured around the process; CPU time and peak RSS come from
/usr/bin/time; the peak RSS of a process tree (Spark) is sampled from
/proc every 20 ms. Everything lands in bench/work/results/*.json.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
DATA = os.path.join(BENCH, "data")
WORK = os.path.join(BENCH, "work")
RUNS = os.path.join(WORK, "runs")
FILES = 100  # files per orders data set; the increment adds one more (1%)
SIZES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}
SPARK_VENV = os.path.join(WORK, "spark-venv")
DBT_VENV = os.path.join(WORK, "dbt-venv")
SPARK_PKG = "pyspark[pipelines]==4.1.4"
# dbt-core 1.11+ downloads a parser wheel from GitHub at install time, which
# this sandbox cannot reach; 1.10 is the newest that installs from PyPI alone.
DBT_PKGS = ["dbt-duckdb==1.10.1", "dbt-core==1.10.23", "duckdb==1.4.4"]


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


# ---- measuring ---------------------------------------------------------------


CLK_TCK = os.sysconf("SC_CLK_TCK")


def tree_rss_kb(pid, cpu=None):
    """Sum of VmRSS over pid and its descendants, in KiB. When cpu is a
    dict, record each process's user+sys seconds in it (pid -> seconds):
    a process tree whose grandchildren are not waited for (Spark's JVMs)
    escapes /usr/bin/time's CPU count."""
    total, stack, seen = 0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open("/proc/%d/statm" % p) as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
            if cpu is not None:
                with open("/proc/%d/stat" % p) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                cpu[p] = (int(fields[11]) + int(fields[12])) / CLK_TCK
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            pass
    return total


def measure(cmd, cwd=None, env=None, timeout=3600, sample=True, check=True):
    """Run cmd; return wall, user, sys (s), rss_kb (largest process, from
    /usr/bin/time), tree_kb (sampled peak of the whole tree), rc, out, err."""
    fd, tfile = tempfile.mkstemp(prefix="bench-time-")
    os.close(fd)
    full = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tfile] + list(cmd)
    peak = [0]
    t0 = time.perf_counter()
    p = subprocess.Popen(full, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    stop = threading.Event()

    cpu = {}

    def sampler():
        while not stop.wait(0.02):
            peak[0] = max(peak[0], tree_rss_kb(p.pid, cpu))

    th = threading.Thread(target=sampler, daemon=True) if sample else None
    if th:
        th.start()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += "\n[bench] timed out after %d s" % timeout
    wall = time.perf_counter() - t0
    stop.set()
    if th:
        th.join()
    r = {"wall": wall, "rc": p.returncode, "out": out, "err": err}
    try:
        with open(tfile) as f:
            last = f.read().strip().splitlines()[-1].split()
        r.update(user=float(last[1]), sys=float(last[2]), rss_kb=int(last[3]))
    except (OSError, IndexError, ValueError):
        r.update(user=0.0, sys=0.0, rss_kb=0)
    os.unlink(tfile)
    r["tree_kb"] = max(peak[0], r["rss_kb"])
    # CPU of the whole tree as last sampled (misses the last 20 ms of each
    # process); the larger of it and /usr/bin/time's figure is kept.
    tree_cpu = sum(cpu.values())
    if tree_cpu > r["user"] + r["sys"]:
        r["user"], r["sys"], r["cpu_from"] = tree_cpu, 0.0, "tree"
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (exit %s):\n%s\n%s" % (
            " ".join(cmd), p.returncode, out[-3000:], err[-3000:]))
    return r


def slim(r, **extra):
    """What a results file keeps of a measurement."""
    d = {k: r[k] for k in ("wall", "user", "sys", "rss_kb", "tree_kb")}
    d.update(extra)
    return d


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ---- environment ----------------------------------------------------------------


def sh(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                              **kw).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def pyenv_python():
    return sh([os.path.join(ROOT, "scripts", "pyenv.sh")]).splitlines()[-1]


def ensure_venv(path, pkgs, probe):
    """A venv under bench/work with pkgs; None when it cannot be made."""
    exe = os.path.join(path, "bin", probe)
    stamp = os.path.join(path, ".bench-packages")
    want = " ".join(pkgs)
    try:
        if os.path.exists(exe) and open(stamp).read() == want:
            return path
    except OSError:
        pass
    log("installing %s into %s" % (want, os.path.relpath(path, ROOT)))
    try:
        subprocess.run([sys.executable, "-m", "venv", path], check=True)
        subprocess.run([os.path.join(path, "bin", "pip"), "install", "-q",
                        "--disable-pip-version-check"] + pkgs, check=True,
                       timeout=1800)
    except (OSError, subprocess.SubprocessError) as e:
        log("cannot install %s: %s" % (want, e))
        return None
    with open(stamp, "w") as f:
        f.write(want)
    return path if os.path.exists(exe) else None


def machine_info(weir, py):
    info = {
        "nproc": os.cpu_count(),
        "cpu": sh(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"]),
        "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
                         / 2**30, 1),
        "kernel": platform.release(),
        "weir": sh([weir, "--version"]),
        "git": sh(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "duckdb_python": sh([py, "-c", "import duckdb; print(duckdb.__version__)"]),
        "python": platform.python_version(),
        "java": sh(["sh", "-c", "java -version 2>&1 | head -1"]),
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
    }
    return info


# ---- data ---------------------------------------------------------------------------


def gen(args):
    subprocess.run([sys.executable, os.path.join(BENCH, "gen.py")] + args,
                   check=True)


def ensure_data(label):
    """data/orders-<label>/ (FILES files), data/orders-<label>-inc/ (one
    file, 1% of the rows, the next ids) and data/customers/."""
    rows = SIZES[label]
    cust = os.path.join(DATA, "customers")
    if not os.path.exists(cust + ".done"):
        shutil.rmtree(cust, ignore_errors=True)
        gen(["customers", cust, "10000"])
        open(cust + ".done", "w").close()
    base = os.path.join(DATA, "orders-" + label)
    inc = base + "-inc"
    stamp = base + ".done"
    want = "rows=%d files=%d" % (rows, FILES)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return base, inc
    log("generating %s orders in %d files" % (label, FILES))
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(inc, ignore_errors=True)
    # Two generator processes over disjoint file ranges: gen.py seeds each
    # file by its number, so the bytes are those of a single call.
    half = FILES // 2
    per = rows // FILES
    procs = [subprocess.Popen([sys.executable, os.path.join(BENCH, "gen.py"),
                               "orders", base, str(per * n), "--files", str(n),
                               "--start", str(s), "--first-id", str(s * per + 1)])
             for s, n in ((0, half), (half, FILES - half))]
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError("gen.py failed")
    gen(["orders", inc, str(rows // 100), "--files", "1", "--start", str(FILES),
         "--first-id", str(rows + 1)])
    with open(stamp, "w") as f:
        f.write(want)
    return base, inc


def link_tree(src, dst):
    """Hard links of src's files under dst (a copy when linking fails)."""
    os.makedirs(dst, exist_ok=True)
    for n in sorted(os.listdir(src)):
        try:
            os.link(os.path.join(src, n), os.path.join(dst, n))
        except OSError:
            shutil.copy2(os.path.join(src, n), os.path.join(dst, n))


# ---- projects ----------------------------------------------------------------------

CONSTRAINTS = re.compile(r"\(\s*\n(\s*CONSTRAINT[^\n]*\n)+\s*\)\n")


def setup_medallion(tool, label, dest):
    """A fresh project for tool under dest, reading the label's data."""
    shutil.rmtree(dest, ignore_errors=True)
    proj = {"weir": "medallion", "weir-noexp": "medallion",
            "duckdb": None, "duckdb-noexp": None,
            "dbt": "medallion-dbt", "spark": "medallion-spark"}[tool]
    if proj:
        shutil.copytree(os.path.join(BENCH, "projects", proj), dest)
    else:
        os.makedirs(dest)
    base, _ = ensure_data(label)
    link_tree(base, os.path.join(dest, "data", "orders"))
    link_tree(os.path.join(DATA, "customers"), os.path.join(dest, "data", "customers"))
    if tool == "weir-noexp":
        p = os.path.join(dest, "transformations", "orders_silver.sql")
        s = open(p).read()
        s2 = CONSTRAINTS.sub("\n", s)
        assert s2 != s, "no CONSTRAINT block in orders_silver.sql"
        open(p, "w").write(s2)
    if tool == "spark":
        for dirpath, _, names in os.walk(dest):
            for n in names:
                if n.endswith((".yml", ".sql", ".py")):
                    p = os.path.join(dirpath, n)
                    s = open(p).read()
                    open(p, "w").write(s.replace("@ROOT@", dest))


def add_increment(label, dest):
    _, inc = ensure_data(label)
    link_tree(inc, os.path.join(dest, "data", "orders"))
    return [os.path.join(dest, "data", "orders", n) for n in sorted(os.listdir(inc))]


# ---- tools ----------------------------------------------------------------------------


class Tools:
    def __init__(self, weir, py, spark, dbt):
        self.weir = weir
        self.py = py
        self.spark = spark
        self.dbt = dbt

    def spark_cmd(self, dest, sub):
        """spark-pipelines SUB in dest (a project with conf/)."""
        env = dict(os.environ, SPARK_CONF_DIR=os.path.join(dest, "conf"),
                   SPARK_LOCAL_IP="127.0.0.1", SPARK_TESTING="1",
                   PYSPARK_PYTHON=os.path.join(self.spark, "bin", "python"),
                   PATH=os.path.join(self.spark, "bin") + ":" + os.environ["PATH"])
        r = measure([os.path.join(self.spark, "bin", "spark-pipelines"), sub],
                    cwd=dest, env=env, timeout=3600)
        if "Run is COMPLETED" not in r["out"] + r["err"]:
            raise RuntimeError("spark-pipelines %s did not complete:\n%s" % (
                sub, r["err"][-3000:]))
        return r

    def weir_run(self, dest, extra=()):
        r = measure([self.weir, "run", "--quiet"] + list(extra), cwd=dest)
        ev = subprocess.run([self.weir, "events", "--format", "json"], cwd=dest,
                            capture_output=True, text=True, check=True).stdout
        flows, update = {}, None
        for line in ev.splitlines():
            e = json.loads(line)
            update = e["update_id"]
        for line in ev.splitlines():
            e = json.loads(line)
            if e["update_id"] != update or e["event_type"] != "flow_progress":
                continue
            d = e.get("details") or {}
            fp = d.get("flow_progress", {}) if isinstance(d, dict) else {}
            if fp.get("status") == "COMPLETED":
                flows[e["flow_name"].split(".")[-1]] = fp.get("duration_ms", 0) / 1000
        return r, flows

    def medallion(self, tool, label, dest, increment):
        """Run one update of tool's project in dest; returns (value, extra)."""
        if tool.startswith("weir"):
            r, flows = self.weir_run(dest)
            st = flows.get("orders_bronze", 0) + flows.get("orders_silver", 0)
            return r, {"flows": flows, "streaming": st}
        if tool.startswith("duckdb"):
            cmd = [self.py, os.path.join(BENCH, "baselines", "duckdb_medallion.py"),
                   os.path.join(dest, "raw.duckdb"), os.path.join(dest, "data")]
            cmd += ["--increment"] + increment if increment else ["--initial"]
            if tool == "duckdb-noexp":
                cmd.append("--no-expectations")
            r = measure(cmd, cwd=dest)
            res = json.loads(r["out"].strip().splitlines()[-1])
            r["process_wall"] = r["wall"]
            r["wall"] = res["total"]  # the SQL only: no Python start, no import
            return r, {"steps": res["steps"], "streaming": res["streaming"],
                       "process_wall": r["process_wall"]}
        if tool == "dbt":
            env = dict(os.environ, DBT_PROFILES_DIR=dest, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
            vars_ = json.dumps({"data_dir": os.path.join(dest, "data"),
                                "db": os.path.join(dest, "bench.duckdb")})
            r = measure([os.path.join(self.dbt, "bin", "dbt"), "build", "--vars", vars_],
                        cwd=dest, env=env)
            nodes = {}
            try:
                rr = json.load(open(os.path.join(dest, "target", "run_results.json")))
                for n in rr["results"]:
                    nodes[n["unique_id"].split(".")[-1]] = n["execution_time"]
                elapsed = rr.get("elapsed_time")
            except (OSError, ValueError, KeyError):
                elapsed = None
            st = nodes.get("orders_bronze", 0) + nodes.get("orders_silver", 0)
            return r, {"nodes": nodes, "streaming": st, "dbt_elapsed": elapsed}
        if tool == "spark":
            r = self.spark_cmd(dest, "run")
            return r, {"streaming": spark_streaming_seconds(r["out"] + r["err"])}
        raise ValueError(tool)


def spark_streaming_seconds(text):
    """Seconds from the first streaming flow STARTING to the last COMPLETED
    (console timestamps have a 1 s resolution)."""
    ts = {}
    for m in re.finditer(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d): Flow '?[\w.]*?(orders_bronze|orders_silver)'? "
                         r"(is STARTING|has COMPLETED)", text, re.M):
        t = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"))
        ts.setdefault(m.group(3), []).append(t)
    if "is STARTING" in ts and "has COMPLETED" in ts:
        return max(ts["has COMPLETED"]) - min(ts["is STARTING"])
    return None


# ---- workloads --------------------------------------------------------------------------


def run_medallion(tools, labels, tool_list, runs, res):
    for label in labels:
        ensure_data(label)
        out = res.setdefault("medallion", {}).setdefault(label, {})
        n_max = max(runs(label, t) for t in tool_list)
        for i in range(n_max):
            for tool in tool_list:
                if i >= runs(label, tool):
                    continue
                dest = os.path.join(RUNS, "medallion-" + label, tool)
                setup_medallion(tool, label, dest)
                log("medallion %s %s run %d/%d: initial" % (label, tool, i + 1,
                                                            runs(label, tool)))
                r, x = tools.medallion(tool, label, dest, None)
                rec = out.setdefault(tool, {"initial": [], "increment": []})
                rec["initial"].append(slim(r, **x))
                files = add_increment(label, dest)
                log("medallion %s %s run %d/%d: increment (%.2fs initial)" % (
                    label, tool, i + 1, runs(label, tool), r["wall"]))
                r, x = tools.medallion(tool, label, dest, files)
                rec["increment"].append(slim(r, **x))
            save(res)
        for tool in tool_list:
            shutil.rmtree(os.path.join(RUNS, "medallion-" + label, tool),
                          ignore_errors=True)


def wide_sources(src):
    """(name, level, sql) of the wide project's datasets in file order."""
    out = []
    tdir = os.path.join(src, "transformations")
    for n in sorted(os.listdir(tdir)):
        sql = open(os.path.join(tdir, n)).read()
        out.append((n[:-4], int(n[1:3]), sql))
    return out


def wide_duckdb_script(src):
    """The wide project as DuckDB statements, in dependency (level) order."""
    stmts = []
    for name, level, sql in wide_sources(src):
        m = re.search(r"STREAM\(range\((\d+)\)\)", sql)
        if m:
            stmts.append("CREATE TABLE %s AS SELECT range AS id, range %% 7 AS k "
                         "FROM range(%s)" % (name, m.group(1)))
        else:
            body = sql.split(" AS\n", 1)[1].rstrip().rstrip(";")
            stmts.append("CREATE OR REPLACE TABLE %s AS %s" % (name, body))
    return stmts


def setup_wide_dbt(src, dest):
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "models"))
    with open(os.path.join(dest, "dbt_project.yml"), "w") as f:
        f.write("name: bench_wide\nversion: '1.0'\nconfig-version: 2\n"
                "profile: bench_wide\nmodel-paths: [models]\n"
                "models:\n  bench_wide:\n    +materialized: table\n")
    with open(os.path.join(dest, "profiles.yml"), "w") as f:
        f.write("bench_wide:\n  target: bench\n  outputs:\n    bench:\n"
                "      type: duckdb\n      path: %s\n      threads: 2\n"
                % os.path.join(dest, "wide.duckdb"))
    for name, level, sql in wide_sources(src):
        m = re.search(r"STREAM\(range\((\d+)\)\)", sql)
        if m:
            body = "SELECT range AS id, range % 7 AS k FROM range(" + m.group(1) + ")"
        else:
            body = sql.split(" AS\n", 1)[1].rstrip().rstrip(";")
            body = re.sub(r"FROM (\w+) a JOIN (\w+) b",
                          lambda mm: "FROM {{ ref('%s') }} a JOIN {{ ref('%s') }} b"
                          % (mm.group(1), mm.group(2)), body)
        with open(os.path.join(dest, "models", name + ".sql"), "w") as f:
            f.write(body + "\n")


def setup_wide_spark(src, dest):
    """Spark variant: level 0 are materialized views over range() (OSS Spark
    SQL cannot stream from range()); storage must be an absolute URI."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    shutil.rmtree(os.path.join(dest, "storage"), ignore_errors=True)
    with open(os.path.join(dest, "spark-pipeline.yml"), "w") as f:
        f.write("name: wide\nstorage: file://%s/storage\nconfiguration:\n"
                "  spark.sql.shuffle.partitions: \"2\"\nlibraries:\n"
                "  - glob:\n      include: transformations/**\n" % dest)
    shutil.copytree(os.path.join(BENCH, "projects", "medallion-spark", "conf"),
                    os.path.join(dest, "conf"))
    tdir = os.path.join(dest, "transformations")
    for n in os.listdir(tdir):
        p = os.path.join(tdir, n)
        s = open(p).read()
        s = s.replace("CREATE STREAMING TABLE", "CREATE MATERIALIZED VIEW")
        s = re.sub(r"STREAM\((range\(\d+\))\)", r"\1", s)
        open(p, "w").write(s)


def wide_src():
    src = os.path.join(WORK, "wide-src")
    if not os.path.exists(os.path.join(src, "spark-pipeline.yml")):
        subprocess.run([sys.executable, os.path.join(BENCH, "wide.py"), src,
                        "--datasets", "200", "--depth", "10"], check=True)
    return src


def run_wide(tools, runs, with_dbt, with_spark, res):
    """First update of the wide project from empty storage ("initial"), then
    a second one ("update": the level-0 streaming tables have nothing new,
    the 180 materialized views are recomputed)."""
    src = wide_src()
    stmts = wide_duckdb_script(src)
    script = os.path.join(WORK, "wide-duckdb.json")
    with open(script, "w") as f:
        json.dump(stmts, f)
    script2 = os.path.join(WORK, "wide-duckdb-update.json")
    with open(script2, "w") as f:
        json.dump([s for s in stmts if s.startswith("CREATE OR REPLACE")], f)
    runner = os.path.join(BENCH, "baselines", "duckdb_script.py")
    out = res.setdefault("wide", {})
    tool_list = ["weir", "duckdb"] + (["dbt"] if with_dbt else []) + \
        (["spark"] if with_spark else [])
    n_runs = {"weir": runs, "duckdb": runs, "dbt": 3, "spark": 3}
    for i in range(max(n_runs[t] for t in tool_list)):
        for tool in tool_list:
            if i >= n_runs[tool]:
                continue
            dest = os.path.join(RUNS, "wide", tool)
            log("wide %s run %d/%d" % (tool, i + 1, n_runs[tool]))
            rec = out.setdefault(tool, {"initial": [], "update": []})
            if tool == "weir":
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(src, dest)
                r, flows = tools.weir_run(dest)
                rec["initial"].append(slim(r, flows=len(flows)))
                r, flows = tools.weir_run(dest)
                rec["update"].append(slim(r, flows=len(flows)))
            elif tool == "duckdb":
                shutil.rmtree(dest, ignore_errors=True)
                os.makedirs(dest)
                db = os.path.join(dest, "wide.duckdb")
                for key, sc in (("initial", script), ("update", script2)):
                    r = measure([tools.py, runner, db, sc])
                    pw = r["wall"]
                    r["wall"] = json.loads(r["out"].strip().splitlines()[-1])["total"]
                    rec[key].append(slim(r, process_wall=pw))
            elif tool == "dbt":
                setup_wide_dbt(src, dest)
                env = dict(os.environ, DBT_PROFILES_DIR=dest,
                           DBT_SEND_ANONYMOUS_USAGE_STATS="false")
                for key in ("initial", "update"):
                    r = measure([os.path.join(tools.dbt, "bin", "dbt"), "run"],
                                cwd=dest, env=env)
                    rec[key].append(slim(r))
            else:
                setup_wide_spark(src, dest)
                for key in ("initial", "update"):
                    rec[key].append(slim(tools.spark_cmd(dest, "run")))
        save(res)


def run_latency(tools, runs, with_spark, with_dbt, res):
    src = wide_src()
    dest = os.path.join(RUNS, "latency")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    out = res.setdefault("latency", {})
    log("latency: weir --version, weir dry-run x %d" % runs)
    for _ in range(3):  # warm the page cache
        measure([tools.weir, "dry-run"], cwd=dest, sample=False)
    for i in range(runs):
        out.setdefault("weir --version", []).append(
            slim(measure([tools.weir, "--version"], cwd=dest, sample=False)))
        out.setdefault("weir dry-run", []).append(
            slim(measure([tools.weir, "dry-run"], cwd=dest, sample=False)))
        out.setdefault("weir graph", []).append(
            slim(measure([tools.weir, "graph"], cwd=dest, sample=False)))
    if with_dbt:
        d = os.path.join(RUNS, "latency-dbt")
        setup_wide_dbt(src, d)
        env = dict(os.environ, DBT_PROFILES_DIR=d, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
        for i in range(3):
            log("latency: dbt parse %d/3" % (i + 1))
            shutil.rmtree(os.path.join(d, "target"), ignore_errors=True)
            out.setdefault("dbt parse", []).append(slim(measure(
                [os.path.join(tools.dbt, "bin", "dbt"), "parse", "--no-partial-parse"],
                cwd=d, env=env)))
    if with_spark:
        d = os.path.join(RUNS, "latency-spark")
        setup_wide_spark(src, d)
        for i in range(3):
            log("latency: spark-pipelines dry-run %d/3" % (i + 1))
            out.setdefault("spark-pipelines dry-run", []).append(
                slim(tools.spark_cmd(d, "dry-run")))
    save(res)


# ---- results ----------------------------------------------------------------------------

RESULT_FILE = [None]


def save(res):
    with open(RESULT_FILE[0], "w") as f:
        json.dump(res, f, indent=1)


def fmt_s(x):
    if x is None:
        return "-"
    return "%.3f" % x if x < 10 else "%.1f" % x


def fmt_r(x):
    return "-" if x is None else "%.2f" % x


def fmt_mb(kb):
    return "-" if not kb else "%.0f" % (kb / 1024)


def pair_ratio(a, b, key="wall"):
    """Median over iterations of a[i][key] / b[i][key]."""
    rs = [x[key] / y[key] for x, y in zip(a, b)
          if x.get(key) is not None and y.get(key)]
    return median(rs)


def report(res, md=False):
    """Tables of medians and ratios (plain text or Markdown)."""
    lines = []

    def table(head, rows):
        if md:
            lines.append("| " + " | ".join(head) + " |")
            lines.append("|" + "|".join("---" for _ in head) + "|")
            for r in rows:
                lines.append("| " + " | ".join(r) + " |")
        else:
            w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
            lines.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
            for r in rows:
                lines.append("  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i])
                                       for i, c in enumerate(r)))
        lines.append("")

    env = res.get("machine", {})
    lines.append("machine: %s cores, %s GiB, %s; %s; load average at start %s" % (
        env.get("nproc"), env.get("mem_gib"), env.get("cpu"), env.get("weir"),
        " ".join(env.get("loadavg_start", []))))
    lines.append("")
    for label, tools in res.get("medallion", {}).items():
        lines.append(("### " if md else "== ") + "medallion %s rows" % label)
        lines.append("")
        w = tools.get("weir", {}).get("initial", [])
        wn = tools.get("weir-noexp", {}).get("initial", [])
        rows = []
        for tool, rec in tools.items():
            ini, inc = rec["initial"], rec["increment"]
            base = {"weir": "duckdb", "weir-noexp": "duckdb-noexp"}.get(tool)
            vs_weir = None
            if tool in ("dbt",):
                vs_weir = pair_ratio(ini, w)
            elif tool == "spark":
                vs_weir = pair_ratio(ini, wn or w)
            rows.append([
                tool, str(len(ini)), fmt_s(median(r["wall"] for r in ini)),
                fmt_s(median(r["user"] + r["sys"] for r in ini)),
                fmt_r(pair_ratio(ini, tools[base]["initial"]) if base in tools else None),
                fmt_r(vs_weir),
                fmt_s(median(r["wall"] for r in inc)),
                fmt_s(median(r.get("streaming") for r in inc)),
                fmt_s(median(r.get("streaming") for r in ini)),
                fmt_r(median(b.get("streaming") / a.get("streaming")
                             for a, b in zip(ini, inc)
                             if a.get("streaming") and b.get("streaming") is not None)),
                fmt_r(median(b["wall"] / a["wall"] for a, b in zip(ini, inc))),
                fmt_mb(median(r["tree_kb"] for r in ini)),
            ])
        table(["tool", "n", "initial s", "cpu s", "/ duckdb", "x weir",
               "incr s", "incr ST s", "init ST s", "ST incr/init", "incr/init",
               "peak MB"], rows)
        d_ = tools.get("duckdb", {}).get("initial", [])
        if w and d_:
            py_kb = res.get("machine", {}).get("python_idle_kb", 8700)
            lines.append("peak memory: weir / duckdb = %s (duckdb's figure less the "
                         "Python interpreter's %.0f MB)" % (
                             fmt_r(median(a["tree_kb"] / max(1, b["tree_kb"] - py_kb)
                                          for a, b in zip(w, d_))), py_kb / 1024))
        if w and wn:
            def flow(rs, name):
                return [{"wall": r["flows"].get(name)} for r in rs]
            lines.append("expectations: weir with / without = %s (whole update), "
                         "%s (silver flow); duckdb with / without = %s" % (
                             fmt_r(pair_ratio(w, wn)),
                             fmt_r(pair_ratio(flow(w, "orders_silver"),
                                              flow(wn, "orders_silver"))),
                             fmt_r(pair_ratio(tools.get("duckdb", {}).get("initial", []),
                                              tools.get("duckdb-noexp", {}).get("initial", [])))))
            lines.append("")
    wide = res.get("wide")
    if wide:
        lines.append(("### " if md else "== ") + "wide graph (200 datasets, depth 10)")
        lines.append("")
        rows = []
        w = wide.get("weir", {})
        for tool, rec in wide.items():
            row = [tool, str(len(rec["initial"]))]
            for key in ("initial", "update"):
                rs = rec[key]
                row += [fmt_s(median(r["wall"] for r in rs)),
                        fmt_s(median(r["user"] + r["sys"] for r in rs)),
                        fmt_r(pair_ratio(rs, w.get(key, [])) if tool != "weir" else None)]
            row.append(fmt_mb(median(r["tree_kb"] for r in rec["initial"])))
            rows.append(row)
        table(["tool", "n", "first s", "cpu s", "/ weir", "update s", "cpu s",
               "/ weir", "peak MB"], rows)
        d = wide.get("duckdb", {})
        for key in ("initial", "update"):
            a_, b_ = w.get(key, []), d.get(key, [])
            if not (a_ and b_):
                continue
            per = median((a["wall"] - b["wall"]) / 200 * 1000 for a, b in zip(a_, b_))
            cpu = median(((a["user"] + a["sys"]) - (b["user"] + b["sys"])) / 200 * 1000
                         for a, b in zip(a_, b_))
            lines.append("weir's own time per flow, %s update (weir - duckdb, pair by "
                         "pair, / 200 flows): %.2f ms wall, %.2f ms CPU" % (
                             "first" if key == "initial" else "second", per, cpu))
        lines.append("")
    lat = res.get("latency")
    if lat:
        lines.append(("### " if md else "== ") + "latency (wide project)")
        lines.append("")
        rows = [[k, str(len(v)), "%.1f" % (median(r["wall"] for r in v) * 1000),
                 "%.1f" % (min(r["wall"] for r in v) * 1000),
                 fmt_mb(median(r["rss_kb"] for r in v))] for k, v in lat.items()]
        table(["command", "n", "median ms", "min ms", "peak MB"], rows)
    return "\n".join(lines)


# ---- main ---------------------------------------------------------------------------------


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "report":
        print(report(json.load(open(sys.argv[2])), md="--md" in sys.argv))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--weir", default=os.path.join(ROOT, "build", "weir"))
    ap.add_argument("--runs", type=int, default=None,
                    help="iterations per figure (default 5 quick, 5/3 full)")
    ap.add_argument("--only", default="", help="comma list: medallion,wide,latency")
    ap.add_argument("--sizes", default=None, help="comma list of 100k,1m,10m")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--no-dbt", action="store_true")
    ap.add_argument("--spark-wide", action="store_true",
                    help="also run spark-pipelines on the wide graph (slow)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    weir = os.path.abspath(a.weir)
    if os.path.exists(os.path.join(os.path.dirname(weir), "libweir.so.0")):
        # a copied binary (bench/run.sh): load the library next to it
        os.environ["LD_LIBRARY_PATH"] = os.path.dirname(weir) + (
            ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
    only = set(filter(None, a.only.split(",")))
    want = (lambda w: not only or w in only)
    os.makedirs(os.path.join(WORK, "results"), exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    RESULT_FILE[0] = a.out or os.path.join(
        WORK, "results", "%s-%s.json" % (stamp, "full" if a.full else "quick"))
    py = pyenv_python()
    res = {"mode": "full" if a.full else "quick", "started": stamp,
           "machine": machine_info(weir, py)}
    dbt = None if a.no_dbt else ensure_venv(DBT_VENV, DBT_PKGS, "dbt")
    spark = None
    if a.full and not a.no_spark:
        if not shutil.which("java"):
            res["notes"] = ["spark skipped: no java on PATH"]
        else:
            spark = ensure_venv(SPARK_VENV, [SPARK_PKG], "spark-pipelines")
    res["machine"]["dbt"] = sh([os.path.join(dbt, "bin", "dbt"), "--version"]) if dbt else None
    res["machine"]["pyspark"] = sh([os.path.join(spark, "bin", "python"), "-c",
                                    "import pyspark; print(pyspark.__version__)"]) \
        if spark else None
    res["machine"]["python_duckdb_idle_kb"] = measure(
        [py, "-c", "import duckdb; duckdb.connect()"], sample=False)["rss_kb"]
    # The interpreter alone: subtracted from the DuckDB script's peak RSS
    # for the memory ratio (the DuckDB library's pages stay counted, as
    # they are in weir's).
    res["machine"]["python_idle_kb"] = measure([py, "-c", "pass"],
                                               sample=False)["rss_kb"]
    tools = Tools(weir, py, spark, dbt)
    t_start = time.time()
    if want("medallion"):
        if a.full:
            labels = (a.sizes or "100k,1m,10m").split(",")
        else:
            labels = (a.sizes or "100k,1m").split(",")
        tool_list = ["weir", "duckdb", "weir-noexp", "duckdb-noexp"]
        tool_list += ["dbt"] if dbt else []
        tool_list += ["spark"] if spark else []

        def runs(label, tool):
            if tool == "spark":
                return 3
            if a.runs:
                return a.runs
            if not a.full and label != "100k":
                # the quick set's 1M run measures weir vs duckdb and the
                # cost of expectations; dbt only at 100K
                return 0 if tool == "dbt" else 3
            if tool == "dbt" or label == "10m":
                return 3
            return 5
        run_medallion(tools, labels, tool_list, runs, res)
    # dbt and Spark on the wide graph take minutes per run: full set only
    # (Spark: only with --spark-wide; its dry-run is always measured).
    if want("wide"):
        run_wide(tools, a.runs or 5, bool(dbt) and a.full,
                 bool(spark) and a.spark_wide, res)
    if want("latency"):
        run_latency(tools, max(a.runs or 20, 10), bool(spark),
                    bool(dbt) and a.full, res)
    res["machine"]["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    res["duration_s"] = time.time() - t_start
    save(res)
    latest = os.path.join(WORK, "results", "latest.json")
    try:
        os.unlink(latest)
    except OSError:
        pass
    os.symlink(os.path.basename(RESULT_FILE[0]), latest)
    print(report(res))
    print("results: %s (%.0f s)" % (os.path.relpath(RESULT_FILE[0]), res["duration_s"]))


if __name__ == "__main__":
    main()
