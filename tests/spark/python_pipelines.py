#!/usr/bin/env python3
"""Run the Python pipeline projects on weir and on Apache Spark
(`spark-pipelines run`) and compare every table they produce.

Projects: the scaffold of `weir init --language python` and every folder of
tests/spark/python-projects/ (a corpus of public Python pipeline examples,
written for open-source pyspark.pipelines; README there). Each runs
unchanged on weir (`weir run`, Python from WEIR_PYTHON, else this script's
interpreter). The Spark copy differs only where OSS Spark lacks what weir
supports: `storage` becomes an absolute file:// URI, SQL files get the
adaptations of pipelines.py, and the Databricks spellings (`dp.expect*`,
`append_flow(once=True)`) get their OSS meaning from spark-shim/
sitecustomize.py (drop expectations become filters, warn/fail ones keep
every row; a once flow reads its files as a stream).

The tables compared are every table in Spark's warehouse and every table of
weir's pipeline database (a table only one side has fails). Columns are
matched by name, rows compared as multisets (pipelines.compare: a
difference only in column order or decimal precision passes with a note).

Modes:
  (default)          Spark and weir; --write-expected also stores Spark's
                     answers in tests/spark/python-expected/<project>/.
  --expected         weir only, against the stored answers (no Java, no
                     pyspark server: stdlib Python plus WEIR_PYTHON's
                     pyspark-client for weir). --runs 2 runs each project
                     twice first: a second run must change nothing.
Prints one line per table and a summary; exits 1 on a mismatch.
"""
import argparse
import decimal
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import difftest  # noqa: E402  (stdlib only at import time)
import pipelines  # noqa: E402  (likewise; pyarrow only for Spark's tables)

CORPUS = os.path.join(HERE, "python-projects")
EXPECTED = os.path.join(HERE, "python-expected")
SHIM = os.path.join(HERE, "spark-shim")
# The quick (CI) subset: Spark's start-up (~30 s a project) dominates.
QUICK = ("scaffold", "retail-sales")
# One flow at a time: with several, Spark 4.1 races two append flows into
# one table ("Race while writing batch 0"; the retried flow's rows are
# then skipped as already committed, silently).
SPARK_CONFS = {"spark.sql.shuffle.partitions": "1",
               "spark.sql.session.timeZone": "UTC",
               "spark.sql.pipelines.execution.maxConcurrentFlows": "1"}


def corpus_names():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(CORPUS, "*", "spark-pipeline.yml")))


def make_project(weir, work, name):
    """A fresh copy of project NAME in WORK; returns its folder."""
    dst = os.path.join(work, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    if name == "scaffold":
        subprocess.run([weir, "init", "--language", "python", name], cwd=work,
                       check=True, capture_output=True)
    else:
        shutil.copytree(os.path.join(CORPUS, name), dst, ignore=shutil.ignore_patterns(
            "pipeline-storage", "spark-warehouse", "spark-storage"))
    return dst


# --- weir --------------------------------------------------------------------

def weir_query(weir, project, sql):
    p = subprocess.run([weir, "query", "--format", "json", "-"], input=sql, cwd=project,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[-800:])
    return [json.loads(line, parse_float=decimal.Decimal)
            for line in p.stdout.splitlines() if line.strip()]


def weir_run(weir, project, python, runs):
    env = dict(os.environ, WEIR_PYTHON=python)
    for i in range(runs):
        r = subprocess.run([weir, "run"], cwd=project, capture_output=True, text=True,
                           env=env, timeout=600)
        if r.returncode != 0:
            raise RuntimeError("weir run %d failed:\n%s" % (i + 1, (r.stdout + r.stderr)[-3000:]))


def weir_tables(weir, project, names=None):
    """Every table of the pipeline's database (weir query starts a process
    each: under ASan that is what costs). With NAMES, the tables expected
    to exist, their columns and rows come in one query; else, or when one
    of them is missing, the tables are listed first (two queries)."""
    columns = ("SELECT table_name AS __t, NULL AS __j, column_name AS __c, "
               "data_type AS __d, ordinal_position AS __o "
               "FROM information_schema.columns WHERE table_schema = 'default'")
    out, read = None, set()
    if names:
        try:
            out = tables_of(weir_query(weir, project, "\nUNION ALL\n".join(
                [columns] + [row_query(t) for t in sorted(names)])))
            read = set(names)
        except RuntimeError:
            pass
    if out is None:
        out = tables_of(weir_query(weir, project, columns))
    rest = sorted(set(out) - read)
    if rest:
        for r in weir_query(weir, project, "\nUNION ALL\n".join(map(row_query, rest))):
            add_row(out, r)
    return out


def row_query(table):
    return ("SELECT '%s' AS __t, to_json(__q) AS __j, NULL AS __c, NULL AS __d, "
            "NULL AS __o FROM %s __q" % (table, table))


def tables_of(records):
    """{table: {cols, rows}} from records of weir_tables' query: column
    records first (by position), then rows as JSON."""
    out = {}
    for r in sorted((r for r in records if r["__j"] is None),
                    key=lambda r: (r["__t"], r["__o"])):
        out.setdefault(r["__t"], {"cols": [], "rows": []})["cols"].append(
            (r["__c"], difftest.duck_to_spark(r["__d"])))
    for r in records:
        if r["__j"] is not None:
            add_row(out, r)
    return out


def add_row(out, r):
    t = out[r["__t"]]
    row = json.loads(r["__j"], parse_float=decimal.Decimal)
    t["rows"].append([row.get(c) for c, _ in t["cols"]])


# --- Spark -------------------------------------------------------------------

def spark_tables(project):
    notes = pipelines.adapt_for_spark(project)
    # Tiny inputs: one shuffle partition (200 tasks per streaming
    # aggregation or deduplication otherwise).
    spec = glob.glob(os.path.join(project, "spark-pipeline.y*ml"))[0]
    text = open(spec).read()
    confs = "".join("  %s: \"%s\"\n" % kv for kv in SPARK_CONFS.items())
    if "\nconfiguration:" in text:
        text = text.replace("\nconfiguration:\n", "\nconfiguration:\n" + confs, 1)
    else:
        text = text.rstrip("\n") + "\nconfiguration:\n" + confs
    with open(spec, "w") as f:
        f.write(text)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(filter(None, [SHIM, os.environ.get("PYTHONPATH")])))
    for attempt in range(3):
        run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "spark-pipelines"),
                              "run"], cwd=project, capture_output=True, text=True,
                             env=difftest.pipelines_env(env), timeout=1200)
        # spark-pipelines' Connect server binds port 15002 (an ephemeral one
        # when it is taken, see pipelines_env): another Spark taking it
        # meanwhile (or one shutting down) is worth a wait and a retry.
        if run.returncode == 0 or "SparkConnectService" not in run.stderr or \
                "port" not in run.stderr:
            break
        time.sleep(20)
        shutil.rmtree(os.path.join(project, "spark-warehouse"), ignore_errors=True)
        shutil.rmtree(os.path.join(project, "spark-storage"), ignore_errors=True)
    with open(os.path.join(project, "spark-run.log"), "w") as f:
        f.write(run.stdout + run.stderr)
    if run.returncode != 0:
        raise RuntimeError("spark-pipelines run failed:\n" + (run.stdout + run.stderr)[-3000:])
    wh = os.path.join(project, "spark-warehouse")
    names = sorted(d for d in os.listdir(wh) if not d.startswith((".", "_"))) \
        if os.path.isdir(wh) else []
    return read_warehouse(wh, names), notes


def committed_files(folder):
    """The parquet files of a table as Spark reads it: a streaming table's
    files are those its file sink log (_spark_metadata) added; files an
    aborted batch left behind are not part of it."""
    log = os.path.join(folder, "_spark_metadata")
    if not os.path.isdir(log):
        return sorted(glob.glob(os.path.join(folder, "*.parquet")))
    live = {}
    entries = sorted((f for f in os.listdir(log) if f.split(".")[0].isdigit()),
                     key=lambda f: int(f.split(".")[0]))
    for f in entries:
        with open(os.path.join(log, f), encoding="utf-8") as fh:
            for line in fh.read().splitlines()[1:]:
                if line.strip():
                    e = json.loads(line)
                    path = e["path"].replace("file://", "", 1)
                    if e.get("action") == "delete":
                        live.pop(path, None)
                    else:
                        live[path] = True
    return sorted(live)


def spark_type(t):
    """An Arrow type as Spark's simpleString (nested types too)."""
    import pyarrow as pa
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "array<%s>" % spark_type(t.value_type)
    if pa.types.is_struct(t):
        return "struct<%s>" % ",".join("%s:%s" % (f.name, spark_type(f.type)) for f in t)
    if pa.types.is_map(t):
        return "map<%s,%s>" % (spark_type(t.key_type), spark_type(t.item_type))
    return pipelines.arrow_type(t).replace("int32", "int")


def read_warehouse(wh, names):
    """Spark's tables (parquet folders) as {"cols", "rows"}, read with pyarrow."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    out = {}
    for name in names:
        files = committed_files(os.path.join(wh, name))
        if not files:
            out[name] = {"cols": [], "rows": []}
            continue
        t = pa.concat_tables([pq.read_table(f) for f in files])
        out[name] = {"cols": [(f.name, spark_type(f.type)) for f in t.schema],
                     "rows": [[difftest.norm_spark(v) for v in r.values()]
                              for r in t.to_pylist()]}
    return out


# --- stored answers ------------------------------------------------------------

def dump(v):
    """JSON text keeping decimals exact (json.dumps cannot)."""
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join("%s:%s" % (json.dumps(str(k)), dump(x)) for k, x in v.items()) + "}"
    if isinstance(v, float) and v != v:
        return '"NaN"'
    return json.dumps(v, ensure_ascii=False)


def spark_known(name):
    """Tables whose Spark answer is wrong (a Spark bug the project shows):
    python-projects/NAME/spark-known.json, {"why": ..., "tables": [...]}.
    Their stored answers are weir's, checked by hand (--write-known)."""
    path = os.path.join(CORPUS, name, "spark-known.json")
    if not os.path.exists(path):
        return "", set()
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    return d["why"], set(d["tables"])


def weir_refuses(name):
    """The error class weir refuses project NAME with, until it keeps the
    state a flow needs (docs/streaming.md): python-projects/NAME/
    weir-refuses.json, {"class": ..., "why": ...}; None when it runs it."""
    path = os.path.join(CORPUS, name, "weir-refuses.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def weir_check_refused(weir, project, python, refused):
    """weir's dry run must refuse the project with the stated class."""
    env = dict(os.environ, WEIR_PYTHON=python)
    r = subprocess.run([weir, "dry-run"], cwd=project, capture_output=True, text=True,
                       env=env, timeout=600)
    if r.returncode != 2 or "[%s]" % refused["class"] not in r.stderr:
        raise RuntimeError("weir should refuse the project with %s (exit 2), got exit "
                           "%d:\n%s" % (refused["class"], r.returncode,
                                        (r.stdout + r.stderr)[-3000:]))


def write_expected(name, tables, keep=()):
    folder = os.path.join(EXPECTED, name)
    os.makedirs(folder, exist_ok=True)
    for f in glob.glob(os.path.join(folder, "*.json")):
        if os.path.basename(f)[:-5] not in keep:
            os.remove(f)
    for t, data in sorted(tables.items()):
        if t in keep:
            continue
        rows = sorted(data["rows"], key=lambda r: [difftest.sort_key(v) for v in r])
        with open(os.path.join(folder, t + ".json"), "w", encoding="utf-8") as f:
            f.write('{"columns": %s,\n "rows": [\n' % dump([list(c) for c in data["cols"]]))
            f.write(",\n".join("  " + dump(r) for r in rows))
            f.write("\n]}\n")


def read_expected(name):
    out = {}
    for path in sorted(glob.glob(os.path.join(EXPECTED, name, "*.json"))):
        with open(path, encoding="utf-8") as f:
            d = json.load(f, parse_float=decimal.Decimal)
        out[os.path.basename(path)[:-5]] = {"cols": [tuple(c) for c in d["columns"]],
                                            "rows": d["rows"]}
    return out


# --- driver ------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="the CI subset: %s" % ", ".join(QUICK))
    ap.add_argument("--only", action="append", help="project name (repeatable)")
    ap.add_argument("--expected", action="store_true",
                    help="weir only, against tests/spark/python-expected")
    ap.add_argument("--write-expected", action="store_true",
                    help="store Spark's answers in tests/spark/python-expected")
    ap.add_argument("--write-known", action="store_true",
                    help="store weir's answers for the tables of spark-known.json "
                    "(check them by hand)")
    ap.add_argument("--runs", type=int, default=1, help="weir runs before comparing")
    a = ap.parse_args()
    weir = os.path.abspath(a.weir)
    python = os.environ.get("WEIR_PYTHON") or sys.executable
    names = ["scaffold"] + corpus_names()
    if a.quick:
        names = [n for n in names if n in QUICK]
    if a.only:
        names = [n for n in names if n in a.only]
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)

    t0 = time.time()
    counts = {"projects": 0, "tables": 0, "rows": 0, "match": 0, "known": 0, "fail": 0,
              "refused": 0}
    spark_wrong = {}
    report = ["# Python pipelines on weir and %s" % ("the stored Spark answers"
                                                   if a.expected else "Spark"), ""]
    for name in names:
        counts["projects"] += 1
        tp = time.time()
        notes = []
        why, known = spark_known(name)
        try:
            if a.expected:
                s = read_expected(name)
                if not s:
                    raise RuntimeError("no stored answers in %s" % os.path.join(EXPECTED, name))
            else:
                sproj = make_project(weir, os.path.join(out, "spark"), name)
                s, notes = spark_tables(sproj)
                if a.write_expected:
                    write_expected(name, s, keep=known)
            wproj = make_project(weir, os.path.join(out, "weir"), name)
            refused = weir_refuses(name)
            if refused:
                weir_check_refused(weir, wproj, python, refused)
                counts["refused"] += 1
                line = "%s: refused by weir (%s): %s" % (name, refused["class"], refused["why"])
                print(line, flush=True)
                report.append("## %s\n\n%s\n" % (name, line))
                continue
            weir_run(weir, wproj, python, a.runs)
            w = weir_tables(weir, wproj)
            if a.write_known and known:
                write_expected(name, {t: w[t] for t in known if t in w},
                               keep=set(w) - known | set(s) - known)
            if not a.expected and known:
                # Spark's answer is wrong there: compare with the stored one
                stored = read_expected(name)
                for t in known:
                    spark_wrong[(name, t)] = s.get(t)
                    s[t] = stored.get(t, {"error": "no stored answer for %s" % t})
        except (RuntimeError, subprocess.SubprocessError) as ex:
            print("%s: FAILED %s" % (name, ex), flush=True)
            report.append("## %s\n\nFAILED: %s\n" % (name, ex))
            counts["fail"] += 1
            continue
        report.append("## %s\n\n(%.0f s)\n" % (name, time.time() - tp))
        if why:
            report.append("Known Spark bug (%s): %s\n" % (", ".join(sorted(known)), why))
        if notes:
            report.append("Spark adaptation: %s\n" % "; ".join(notes))
        for t in sorted(set(s) | set(w)):
            counts["tables"] += 1
            if t not in w or t not in s:
                kind, detail = "missing", "only %s has this table" % ("Spark" if t in s else "weir")
            else:
                kind, detail = compare(s[t], w[t])
                counts["rows"] += len(s[t].get("rows", []))
            if (name, t) in spark_wrong and kind == "match":
                kind = "known"
                detail = "Spark's answer is wrong (%s); weir equals the stored answer" % (
                    "same as weir's" if spark_wrong[(name, t)] and compare(
                        spark_wrong[(name, t)], w[t])[0] == "match" else "differs")
                counts["known"] += 1
            ok = kind in ("match", "known")
            counts["match" if ok else "fail"] += 1
            line = "%s.%s: %s %s" % (name, t, kind, detail)
            print(line.rstrip(), flush=True)
            report.append("* " + line.rstrip())
            if not ok and t in s and t in w:
                report.append("  * Spark: %s\n  * weir: %s" % (difftest.show(s[t], 1500),
                                                             difftest.show(w[t], 1500)))
    summary = ("%(projects)d projects, %(tables)d tables, %(rows)d rows compared: "
               "%(match)d tables match (%(known)d against hand-checked answers where "
               "Spark is wrong), %(refused)d projects refused by weir, %(fail)d failed"
               % counts)
    report += ["", summary, "", "(%.0f s)" % (time.time() - t0)]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(report) + "\n")
    print(summary)
    return 1 if counts["fail"] else 0


def compare(s, w):
    if "error" in s or "error" in w:
        return "error", (s.get("error") or w.get("error"))[-500:]
    return pipelines.compare(s, w)


if __name__ == "__main__":
    sys.exit(main())
