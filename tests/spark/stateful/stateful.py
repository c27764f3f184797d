#!/usr/bin/env python3
"""Stateful streaming pipelines over several updates, on Apache Spark
(`spark-pipelines` 4.1 semantics) and on weir, every table compared after
every update (issue 41; README.md beside this file).

A corpus entry is a folder of corpus/: a pipeline project (spark-pipeline.yml,
transformations/), its input in input/<k>/ (files laid into the project
before update k, k = 1..updates), entry.json (what it shows, its status for
weir, the updates that are full refreshes) and, where open-source Spark
needs another spelling of the same pipeline, spark/ (files that replace the
project's in Spark's copy; entry.json says why). Spark's tables after each
update are stored in expected/<entry>/<k>/<table>.json (or expected/<entry>/
error.json when Spark fails the entry).

Commands:
  corpus       (default) run the entries. Modes:
                 (none)            Spark and weir: Spark's answers must equal
                                   the stored ones, weir's Spark's;
                 --write-expected  Spark only; store its answers;
                 --expected        weir only, against the stored answers
                                   (no Java: stdlib Python plus WEIR_PYTHON's
                                   pyspark-client for weir's Python files).
               Exit status 1 on a failure; with --expected and a single
               --only entry whose status is `unguarded`, 77 (ctest's skip).
  list         entry names, optionally of one --status
  prepare E D  a fresh weir copy of entry E in folder D (--sql-sources:
               with its landing folders defined in SQL, see sql_sources)
  lay E K D    lay update K's input into D
  updates E    the number of updates of entry E
  args E K     weir run's arguments for update K (--full-refresh-all or none)
  check E K D  weir's tables in D against the stored answers of update K

Spark runs in one Spark Connect server started for the run (one JVM: a
`spark-pipelines run` of the same project would start one per update), each
update a `python -m pyspark.pipelines.cli run` with SPARK_REMOTE set, each
entry in its own database (spec `database:`), so the session catalog keeps
the tables between updates as a persistent catalog would.
"""
import argparse
import decimal
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPARK_DIR = os.path.dirname(HERE)
ROOT = os.path.abspath(os.path.join(SPARK_DIR, "..", ".."))
CORPUS = os.path.join(HERE, "corpus")
EXPECTED = os.path.join(HERE, "expected")
sys.path.insert(0, SPARK_DIR)
import difftest  # noqa: E402  (stdlib only at import time)
import pipelines  # noqa: E402
import python_pipelines as pp  # noqa: E402

STATUSES = ("compared", "refused", "unguarded", "spark-error")
# A few entries for the tier's --quick (CI) run.
QUICK = ("sql-tumbling", "py-dedup")
SKIP = 77
# Spark confs of every Spark copy (the spec's configuration).
SPARK_CONFS = {"spark.sql.shuffle.partitions": "1",
               "spark.sql.session.timeZone": "UTC",
               "spark.sql.pipelines.execution.maxConcurrentFlows": "1"}
# A refusal names where: a file of the project and its line.
WHERE_RE = re.compile(r"\.(sql|py):\d+")


# --- the corpus --------------------------------------------------------------

class Entry:
    def __init__(self, name):
        self.name = name
        self.folder = os.path.join(CORPUS, name)
        with open(os.path.join(self.folder, "entry.json"), encoding="utf-8") as f:
            meta = json.load(f)
        self.about = meta["about"]
        self.status = meta["status"]
        if self.status not in STATUSES:
            raise SystemExit("%s: status %r is not one of %s" % (name, self.status, STATUSES))
        self.updates = int(meta["updates"])
        self.full_refresh = set(meta.get("full_refresh", []))
        self.refusal = meta.get("refusal", [])
        if self.status in ("refused", "unguarded") and not self.refusal:
            raise SystemExit("%s: a %s entry lists the refusal's words" % (name, self.status))
        self.spark_note = meta.get("spark", "")
        # a spark-error entry where weir's error class differs from Spark's
        # for now: {"class": weir's, "why": ...} (reported, not failed)
        self.weir_class = meta.get("weir_class")

    def run_args(self, k):
        """Update K's run arguments, the same for weir and spark-pipelines."""
        return ["--full-refresh-all"] if k in self.full_refresh else []

    def database(self):
        return "st_" + re.sub(r"[^a-z0-9]", "_", self.name.lower())


def entry_names():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(CORPUS, "*", "entry.json")))


def copy_project(entry, dst, spark=False):
    """A fresh copy of the entry's project (no input yet) in DST."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(entry.folder, dst, ignore=shutil.ignore_patterns(
        "input", "spark", "entry.json", "pipeline-storage", "spark-storage"))
    if spark and os.path.isdir(os.path.join(entry.folder, "spark")):
        shutil.copytree(os.path.join(entry.folder, "spark"), dst, dirs_exist_ok=True)
    os.makedirs(os.path.join(dst, "data"), exist_ok=True)
    return dst


# A sources.py that only defines JSON landing folders as streaming tables
# (the SQL entries' file sources: open-source Spark SQL cannot read files
# as a stream).
SOURCE_RE = re.compile(
    r'@dp\.table\ndef (\w+)\(\):\n    return spark\.readStream\.format\("json"\)'
    r'\.schema\("([^"]*)"\)\.load\(os\.path\.join\(DATA, "(\w+)"\)\)\n')


def sql_sources(project):
    """Against the stored answers, weir reads the landing folders of a
    sources.py like the above through the same definitions in SQL (`STREAM
    read_files`), so that an update does not start Python only to import
    pyspark (about 1.5 s of CPU each): the Python spelling is what the
    Spark tier, the py-* entries and the kill harness run. False when the
    file defines anything else."""
    path = os.path.join(project, "transformations", "sources.py")
    if not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = SOURCE_RE.findall(text)
    if not found or len(found) != text.count("@dp."):
        return False
    sql = ["-- sources.py as SQL (stateful.py sql_sources)"]
    for name, schema, folder in found:
        sql.append("CREATE STREAMING TABLE %s AS SELECT * FROM STREAM read_files("
                   "'data/%s', format => 'json', schema => '%s');" % (name, folder, schema))
    with open(os.path.join(project, "transformations", "sources.sql"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(sql) + "\n")
    os.remove(path)
    return True


def lay_input(entry, project, k):
    """Update K's new input: every file of input/<k>/ at its path in PROJECT."""
    src = os.path.join(entry.folder, "input", str(k))
    if os.path.isdir(src):
        shutil.copytree(src, project, dirs_exist_ok=True)


# --- weir --------------------------------------------------------------------

def weir_cmd(weir, project, args, python, timeout=600):
    env = dict(os.environ, WEIR_PYTHON=python)
    p = subprocess.run([weir] + args, cwd=project, capture_output=True, text=True,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def weir_refuses(weir, entry, project, python):
    """The entry must fail weir's dry-run (the validation `weir run` does
    first) with exit 2, naming the construct (one of the entry's `refusal`
    patterns) and a file:line. Returns (ok, detail)."""
    rc, out, err = weir_cmd(weir, project, ["dry-run"], python)
    text = out + err
    if rc != 2:
        return False, "weir dry-run exits %d, not 2: %s" % (rc, text.strip()[-600:])
    if not any(re.search(p, text, re.I) for p in entry.refusal):
        return False, "weir's error names none of %s: %s" % (entry.refusal, text.strip()[-600:])
    if not WHERE_RE.search(text):
        return False, "weir's error names no file:line: %s" % text.strip()[-600:]
    return True, difftest.first_line(err or out)


def weir_fails_like_spark(weir, entry, project, python, spark_error):
    """Spark fails the entry (spark_error: its update and error class):
    weir must fail at dry-run (exit 2) or at that update, with the class."""
    rc, out, err = weir_cmd(weir, project, ["dry-run"], python)
    if rc == 0:
        for k in range(1, spark_error["update"] + 1):
            if k > 1:
                lay_input(entry, project, k)
            rc, out, err = weir_cmd(weir, project, ["run"] + entry.run_args(k), python)
            if rc != 0:
                break
    text = out + err
    if rc == 0:
        return False, "weir runs what Spark refuses (%s)" % spark_error["class"]
    if "[%s]" % spark_error["class"] in text:
        return True, "exit %d, %s" % (rc, spark_error["class"])
    if entry.weir_class and "[%s]" % entry.weir_class["class"] in text:
        return True, "exit %d, %s; known difference: Spark's class is %s (%s)" % (
            rc, entry.weir_class["class"], spark_error["class"], entry.weir_class["why"])
    return False, "weir fails with another error than Spark's %s: %s" % (
        spark_error["class"], text.strip()[-600:])


# --- Spark -------------------------------------------------------------------

class Spark:
    """One Spark Connect server for the whole run, and a client session to
    create the entries' databases and read their tables."""

    def __init__(self, work, url=None):
        import remote  # noqa: E402  (the tier's server start and stop)
        self.remote = remote
        self.proc = None
        if url:
            self.url = url
        else:
            os.makedirs(work, exist_ok=True)
            port = remote.free_port()
            self.proc = remote.start_server(work, port)
            self.url = "sc://127.0.0.1:%d" % port
        from pyspark.sql import SparkSession
        self.session = SparkSession.builder.remote(self.url).getOrCreate()

    def stop(self):
        try:
            self.session.stop()
        finally:
            if self.proc:
                self.remote.stop_server(self.proc)

    def fresh_database(self, db):
        self.session.sql("DROP DATABASE IF EXISTS %s CASCADE" % db).collect()
        self.session.sql("CREATE DATABASE %s" % db).collect()

    def run(self, project, args):
        env = dict(os.environ, SPARK_REMOTE=self.url, TZ="UTC", PYSPARK_PYTHON=sys.executable)
        env.pop("SPARK_TESTING", None)
        p = subprocess.run([sys.executable, "-m", "pyspark.pipelines.cli", "run"] + args,
                           cwd=project, capture_output=True, text=True, env=env, timeout=1200)
        return p.returncode, p.stdout + p.stderr

    def tables(self, db):
        out = {}
        names = sorted(r.tableName for r in self.session.sql("SHOW TABLES IN %s" % db).collect()
                       if not r.isTemporary)
        for t in names:
            # (the client session caches a table's files; the run replaced
            # a materialized view's)
            self.session.sql("REFRESH TABLE %s.%s" % (db, t)).collect()
            df = self.session.read.table("%s.%s" % (db, t))
            out[t] = {"cols": [(f.name, difftest.spark_type(f.dataType)) for f in df.schema.fields],
                      "rows": [[difftest.norm_spark(v) for v in r] for r in df.collect()]}
        return out


def adapt_spec(project, db):
    """Spark's copy: an absolute storage URI, the entry's database, the
    tier's confs (added to the spec's own configuration)."""
    spec = os.path.join(project, "spark-pipeline.yml")
    text = open(spec, encoding="utf-8").read()
    text = re.sub(r"(?m)^storage:.*$", "storage: file://%s/spark-storage" % project, text)
    text = re.sub(r"(?m)^(catalog|database|schema):.*\n", "", text)
    text = text.rstrip("\n") + "\ndatabase: %s\n" % db
    confs = "".join("  %s: \"%s\"\n" % kv for kv in SPARK_CONFS.items()
                    if kv[0] not in text)
    if "\nconfiguration:" in text:
        text = text.replace("\nconfiguration:\n", "\nconfiguration:\n" + confs, 1)
    else:
        text += "configuration:\n" + confs
    with open(spec, "w", encoding="utf-8") as f:
        f.write(text)


def spark_entry(spark, entry, work, log):
    """Every update of ENTRY on Spark: {"updates": {k: tables}} or, when a
    run fails, {"error": {"update": k, "class": .., "message": ..}} (with
    the updates before it)."""
    project = copy_project(entry, os.path.join(work, "spark", entry.name), spark=True)
    adapt_spec(project, entry.database())
    spark.fresh_database(entry.database())
    result = {"updates": {}}
    for k in range(1, entry.updates + 1):
        lay_input(entry, project, k)
        t0 = time.time()
        rc, text = spark.run(project, entry.run_args(k))
        with open(os.path.join(project, "spark-run-%d.log" % k), "w", encoding="utf-8") as f:
            f.write(text)
        log("  spark update %d: exit %d (%.0f s)" % (k, rc, time.time() - t0))
        if rc != 0:
            result["error"] = {"update": k, "class": spark_error_class(text),
                               "message": spark_error_message(text)}
            break
        result["updates"][k] = spark.tables(entry.database())
    return result


def spark_error_class(text):
    """The error class of a failed run: the first `[CLASS]` of its error
    lines (the flow's failure, else the run's)."""
    for line in text.splitlines():
        if re.search(r"(Error|Exception)\b.*\[[A-Z_][A-Z0-9_.]*\]", line) \
                or line.startswith("Error: ["):
            c = difftest.error_class(line)
            if c:
                return c
    return difftest.error_class(text)


def spark_error_message(text):
    for line in text.splitlines():
        if line.startswith("Error: ") or "AnalysisException" in line:
            return line.strip()[:400]
    return difftest.first_line(text)[:400]


# --- stored answers -----------------------------------------------------------

def write_expected(entry, result):
    folder = os.path.join(EXPECTED, entry.name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for k, tables in result["updates"].items():
        sub = os.path.join(folder, str(k))
        os.makedirs(sub)
        for t, data in sorted(tables.items()):
            rows = sorted(data["rows"], key=lambda r: [difftest.sort_key(v) for v in r])
            with open(os.path.join(sub, t + ".json"), "w", encoding="utf-8") as f:
                f.write('{"columns": %s,\n "rows": [\n' % pp.dump([list(c) for c in data["cols"]]))
                f.write(",\n".join("  " + pp.dump(r) for r in rows))
                f.write("\n]}\n")
    if "error" in result:
        with open(os.path.join(folder, "error.json"), "w", encoding="utf-8") as f:
            json.dump(result["error"], f, indent=1)
            f.write("\n")


def read_expected(entry):
    folder = os.path.join(EXPECTED, entry.name)
    result = {"updates": {}}
    if os.path.exists(os.path.join(folder, "error.json")):
        with open(os.path.join(folder, "error.json"), encoding="utf-8") as f:
            result["error"] = json.load(f)
    for sub in glob.glob(os.path.join(folder, "*", "")):
        k = int(os.path.basename(os.path.dirname(sub)))
        tables = {}
        for path in sorted(glob.glob(os.path.join(sub, "*.json"))):
            with open(path, encoding="utf-8") as f:
                d = json.load(f, parse_float=decimal.Decimal)
            tables[os.path.basename(path)[:-5]] = {"cols": [tuple(c) for c in d["columns"]],
                                                   "rows": d["rows"]}
        result["updates"][k] = tables
    if not result["updates"] and "error" not in result:
        return None
    return result


def compare_tables(expected, actual):
    """[(table, kind, detail)] for every table either side has."""
    out = []
    for t in sorted(set(expected) | set(actual)):
        if t not in expected or t not in actual:
            out.append((t, "missing", "only %s has this table" % (
                "Spark" if t in expected else "weir")))
            continue
        kind, detail = pipelines.compare(expected[t], actual[t])
        out.append((t, kind, detail))
    return out


def same_result(a, b):
    """Spark's answers now equal the stored ones (for the tier's check)."""
    if ("error" in a) != ("error" in b):
        return False, "Spark %s now" % ("fails" if "error" in a else "succeeds")
    if "error" in a and a["error"]["class"] != b["error"]["class"]:
        return False, "Spark's error is %s, stored %s" % (a["error"]["class"], b["error"]["class"])
    for k in sorted(set(a["updates"]) | set(b["updates"])):
        for t, kind, detail in compare_tables(b["updates"].get(k, {}), a["updates"].get(k, {})):
            if kind != "match":
                return False, "update %d, %s: %s %s" % (k, t, kind, detail)
    return True, ""


# --- weir over an entry ----------------------------------------------------------

def weir_entry(weir, entry, work, python, spark_result, stored=False):
    """weir on ENTRY according to its status, against SPARK_RESULT (live or
    STORED). Returns [(what, ok, detail)]; what is `entry` or `k.table`."""
    project = copy_project(entry, os.path.join(work, "weir", entry.name))
    if stored and entry.status == "compared":
        sql_sources(project)
    if entry.status != "compared":
        lay_input(entry, project, 1)
    if entry.status == "spark-error" or "error" in spark_result:
        if "error" not in spark_result:
            return [("entry", False, "status spark-error, but Spark runs the entry")]
        if entry.status != "spark-error":
            return [("entry", False, "Spark fails the entry (%s); its status should be "
                     "spark-error" % spark_result["error"]["class"])]
        ok, detail = weir_fails_like_spark(weir, entry, project, python, spark_result["error"])
        return [("entry", ok, detail)]
    if entry.status == "refused":
        ok, detail = weir_refuses(weir, entry, project, python)
        return [("entry", ok, "refused: " + detail if ok else detail)]
    if entry.status == "unguarded":
        return [("entry", None, "unguarded: weir does not refuse it yet (skipped)")]
    out = []
    for k in range(1, entry.updates + 1):
        lay_input(entry, project, k)
        rc, so, se = weir_cmd(weir, project, ["run"] + entry.run_args(k), python)
        if rc != 0:
            out.append(("%d" % k, False, "weir run exits %d: %s" % (rc, (so + se).strip()[-1500:])))
            return out
        expected = spark_result["updates"][k]
        for t, kind, detail in compare_tables(expected,
                                              pp.weir_tables(weir, project, expected)):
            out.append(("%d.%s" % (k, t), kind == "match", "%s %s" % (kind, detail)))
    return out


def check_update(weir, entry, k, project):
    """The kill harness's check: weir's tables in PROJECT == Spark's after K."""
    stored = read_expected(entry)
    if stored is None or k not in stored["updates"]:
        print("no stored answer for %s update %d" % (entry.name, k), file=sys.stderr)
        return 1
    expected = stored["updates"][k]
    bad = [(t, kind, d) for t, kind, d in compare_tables(expected,
                                                          pp.weir_tables(weir, project, expected))
           if kind != "match"]
    for t, kind, detail in bad:
        print("%s update %d, %s: %s %s" % (entry.name, k, t, kind, detail), file=sys.stderr)
    return 1 if bad else 0


# --- driver ------------------------------------------------------------------

def weir_python():
    """WEIR_PYTHON, else the pinned pyspark-client of scripts/pyclient.sh."""
    if os.environ.get("WEIR_PYTHON"):
        return os.environ["WEIR_PYTHON"]
    return subprocess.run([os.path.join(ROOT, "scripts", "pyclient.sh"), "4.2.0"],
                          check=True, capture_output=True, text=True).stdout.strip()


def run_corpus(a):
    names = entry_names()
    if a.quick:
        names = [n for n in names if n in QUICK]
    if a.only:
        unknown = set(a.only) - set(names)
        if unknown:
            raise SystemExit("no such entry: %s" % ", ".join(sorted(unknown)))
        names = [n for n in names if n in a.only]
    entries = [Entry(n) for n in names]
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, "log.txt"), "a", encoding="utf-8")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    weir = os.path.abspath(a.weir) if a.weir else None
    python = None
    if not a.write_expected:
        if not weir:
            raise SystemExit("--weir is required (unless --write-expected)")
        python = weir_python()
    spark = None if a.expected else Spark(os.path.join(out, "spark-server"), a.spark_remote)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    report = ["# Stateful streaming on weir and %s" % (
        "the stored Spark answers" if a.expected else "Spark"), ""]
    t0 = time.time()
    try:
        for e in entries:
            te = time.time()
            log("%s (%s): %s" % (e.name, e.status, e.about))
            report.append("## %s (%s)\n\n%s\n" % (e.name, e.status, e.about))
            stored = read_expected(e)
            results = []
            if spark:
                live = spark_entry(spark, e, out, log)
                if a.write_expected:
                    write_expected(e, live)
                    results.append(("spark", True, "stored"))
                elif stored is None:
                    results.append(("spark", False, "no stored answers (--write-expected)"))
                else:
                    ok, detail = same_result(live, stored)
                    results.append(("spark", ok, "Spark's answers equal the stored ones"
                                    if ok else "Spark's answers changed: " + detail))
                reference = live
            else:
                reference = stored
                if stored is None and e.status in ("refused", "unguarded"):
                    reference = {"updates": {}}  # (weir refuses: no answers needed)
                elif stored is None:
                    results.append(("spark", False, "no stored answers in %s" %
                                    os.path.join(EXPECTED, e.name)))
            if weir and reference is not None and not a.write_expected:
                try:
                    results += weir_entry(weir, e, out, python, reference, stored=not spark)
                except subprocess.TimeoutExpired as ex:
                    results.append(("entry", False, "timeout: %s" % ex))
            for what, ok, detail in results:
                kind = "skip" if ok is None else "pass" if ok else "fail"
                counts[kind] += 1
                line = "%s %s: %s %s" % (e.name, what, kind.upper(), detail)
                log("  " + line.rstrip())
                report.append("* " + line.rstrip())
            report.append("\n(%.0f s)\n" % (time.time() - te))
    finally:
        if spark:
            spark.stop()
    summary = "%d passed, %d failed" % (counts["pass"], counts["fail"])
    if counts["skip"]:
        summary += ", %d skipped" % counts["skip"]
    report += ["", summary, "", "(%.0f s)" % (time.time() - t0)]
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(report) + "\n")
    print(summary)
    if counts["fail"]:
        return 1
    if counts["skip"] and not counts["pass"]:
        return SKIP
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("corpus", help="run the corpus (the default command)")
    c.add_argument("--weir", help="the weir binary")
    c.add_argument("--out", default=os.path.join(ROOT, "build-spark-out", "stateful"))
    c.add_argument("--quick", action="store_true", help="the CI subset: " + ", ".join(QUICK))
    c.add_argument("--only", action="append", help="entry name (repeatable)")
    c.add_argument("--spark-remote", metavar="URL",
                   help="a running Spark Connect server (sc://host:port) instead of one started here")
    mode = c.add_mutually_exclusive_group()
    mode.add_argument("--expected", action="store_true", help="weir only, stored answers")
    mode.add_argument("--write-expected", action="store_true", help="Spark only; store")
    ls = sub.add_parser("list")
    ls.add_argument("--status", choices=STATUSES)
    for name in ("prepare", "updates", "lay", "args", "check"):
        p = sub.add_parser(name)
        p.add_argument("entry")
        if name not in ("prepare", "updates"):
            p.add_argument("update", type=int)
        if name not in ("args", "updates"):
            p.add_argument("dir")
        if name == "check":
            p.add_argument("--weir", required=True)
        if name == "prepare":
            p.add_argument("--sql-sources", action="store_true")
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        argv = ["corpus"] + argv
    a = ap.parse_args(argv)
    if a.cmd == "corpus":
        return run_corpus(a)
    if a.cmd == "list":
        for n in entry_names():
            if not a.status or Entry(n).status == a.status:
                print(n)
        return 0
    e = Entry(a.entry)
    if a.cmd == "prepare":
        copy_project(e, os.path.abspath(a.dir))
        if a.sql_sources:
            sql_sources(os.path.abspath(a.dir))
    elif a.cmd == "updates":
        print(e.updates)
    elif a.cmd == "lay":
        lay_input(e, os.path.abspath(a.dir), a.update)
    elif a.cmd == "args":
        print(" ".join(e.run_args(a.update)))
    elif a.cmd == "check":
        return check_update(os.path.abspath(a.weir), e, a.update, os.path.abspath(a.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
