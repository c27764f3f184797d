#!/usr/bin/env python3
"""Run the example pipeline projects on weir and on Spark (`spark-pipelines
run`) and compare every dataset they produce.

Projects: the medallion example that `weir init` scaffolds, and every folder
of examples/ holding a spark-pipeline.yml. Each project runs unchanged on weir.
For Spark, a copy is adapted only where open-source Spark lacks a Databricks
extension that weir supports:
  * `read_files(path, format => f, k => v)` becomes a temporary view defined
    in a generated Python file (spark.read / spark.readStream with the same
    format and options, schema inferred by Spark from the same files);
  * `CONSTRAINT n EXPECT (cond) ON VIOLATION DROP ROW` becomes a filter
    `WHERE cond` around the query; other expectations (warn, fail) are
    removed (they keep every row);
  * `storage` becomes an absolute file:// URI.
Spark's tables are read back from its warehouse (parquet) with pyarrow;
weir's with `weir query`. Rows are compared as multisets, with column names
and types. Prints one line per dataset and 'N passed, N failed'.
"""
import argparse
import datetime as dt
import decimal
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402  (value normalisation and type names)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV_BIN = os.path.dirname(sys.executable)

DATASET_RE = re.compile(
    r"CREATE\s+(?:OR\s+REFRESH\s+)?(?:PRIVATE\s+)?(?:TEMPORARY\s+)?"
    r"(MATERIALIZED\s+VIEW|STREAMING\s+TABLE|LIVE\s+TABLE|VIEW)\s+"
    r"(?:IF\s+NOT\s+EXISTS\s+)?([\w.`]+)", re.I)
READ_FILES_RE = re.compile(r"(STREAM\s*)?\bread_files\s*\(", re.I)
EXPECT_RE = re.compile(
    r",?\s*CONSTRAINT\s+\w+\s+EXPECT\s*\((?P<cond>(?:[^()]|\([^()]*\))*)\)"
    r"(?:\s+ON\s+VIOLATION\s+(?P<act>DROP\s+ROW|FAIL\s+UPDATE))?\s*,?", re.I)


def projects(work):
    out = []
    demo = os.path.join(work, "medallion")
    os.makedirs(work, exist_ok=True)
    subprocess.run([WEIR, "init", "medallion"], cwd=work, check=True,
                   capture_output=True)
    out.append(demo)
    for spec in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "spark-pipeline.y*ml"))):
        src = os.path.dirname(spec)
        dst = os.path.join(work, "example-" + os.path.basename(src))
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
            "pipeline-storage", "storage", "spark-warehouse"))
        out.append(dst)
    return out


def sql_files(project):
    return sorted(glob.glob(os.path.join(project, "**", "*.sql"), recursive=True))


def datasets(project):
    names = []
    for f in sql_files(project):
        for m in DATASET_RE.finditer(open(f, encoding="utf-8").read()):
            if "TEMPORARY" not in m.group(0).upper():
                names.append(m.group(2).strip("`"))
    return names


# --- weir --------------------------------------------------------------------

def weir_tables(project, names):
    run = subprocess.run([WEIR, "run"], cwd=project, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("weir run failed: " + run.stderr[-2000:])
    out = {}
    for name in names:
        d = subprocess.run([WEIR, "query", "--format", "json",
                            "CREATE TEMPORARY VIEW __q AS SELECT * FROM %s;\nDESCRIBE __q" % name],
                           cwd=project, capture_output=True, text=True)
        if d.returncode != 0:
            out[name] = {"error": d.stderr.strip()[-500:]}
            continue
        cols = [(json.loads(l)["col_name"], json.loads(l)["data_type"])
                for l in d.stdout.splitlines() if l.strip()]
        r = subprocess.run([WEIR, "query", "--format", "json",
                            "SELECT to_json(__q) AS __j FROM %s __q" % name],
                           cwd=project, capture_output=True, text=True)
        rows = []
        for line in r.stdout.splitlines():
            row = dict(json.loads(json.loads(line)["__j"], parse_float=decimal.Decimal))
            rows.append([row.get(c) for c, _ in cols])
        out[name] = {"cols": cols, "rows": rows}
    return out


# --- Spark -------------------------------------------------------------------

def split_call(text, start):
    """Arguments of the call whose '(' is at text[start - 1], and its end."""
    depth, i, quote, args, cur = 1, start, None, [], ""
    while i < len(text):
        c = text[i]
        if quote:
            cur += c
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
            cur += c
        elif c == "(":
            depth += 1
            cur += c
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return args, i + 1
            cur += c
        elif c == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    raise ValueError("unterminated read_files(")


def unquote(s):
    s = s.strip()
    return s[1:-1] if s[:1] in "'\"" else s


def adapt_for_spark(project):
    """Rewrite the copy in place for OSS Spark; returns what was changed."""
    notes, views = [], []
    for f in sql_files(project):
        text = open(f, encoding="utf-8").read()
        new = text
        while True:
            m = READ_FILES_RE.search(new)
            if not m:
                break
            args, end = split_call(new, m.end())
            path = os.path.join(project, unquote(args[0]))
            opts = {}
            for a in args[1:]:
                k, v = a.split("=>", 1)
                opts[k.strip()] = unquote(v)
            name = "read_files_%d" % len(views)
            views.append((name, bool(m.group(1)), path, opts))
            new = new[:m.start()] + ("STREAM(%s)" % name if m.group(1) else name) + new[end:]
            notes.append("%s: read_files -> Python view %s" % (os.path.basename(f), name))
        for m in list(EXPECT_RE.finditer(new)):
            if m.group("act") and m.group("act").upper().startswith("DROP"):
                notes.append("%s: EXPECT DROP ROW -> WHERE %s" % (os.path.basename(f), m.group("cond")))
            else:
                notes.append("%s: expectation removed (keeps all rows)" % os.path.basename(f))
        new = drop_expectations(new)
        if new != text:
            with open(f, "w", encoding="utf-8") as out:
                out.write(new)
    if views:
        lines = ["from pyspark import pipelines as dp",
                 "from pyspark.sql import SparkSession",
                 "from pyspark.sql import functions as F", "",
                 "spark = SparkSession.active()", ""]
        for name, stream, path, opts in views:
            fmt = opts.pop("format", "json")
            o = "".join(".option(%r, %r)" % kv for kv in opts.items())
            # read_files infers timestamps and adds _rescued_data; schema
            # inference is analysis, not allowed inside the function.
            if fmt in ("json", "csv"):
                o += ".option('inferTimestamp', 'true')"
            lines += ["%s_schema = spark.read.format(%r)%s.load(%r).schema" % (name, fmt, o, path),
                      "", "", "@dp.temporary_view(name=%r)" % name, "def %s():" % name]
            reader = "spark.readStream" if stream else "spark.read"
            lines.append("    return (%s.format(%r)%s.schema(%s_schema).load(%r)"
                         % (reader, fmt, o, name, path))
            lines.append("            .withColumn('_rescued_data', F.lit(None).cast('string')))")
            lines.append("")
        tdir = os.path.join(project, "transformations")
        os.makedirs(tdir, exist_ok=True)
        with open(os.path.join(tdir, "spark_sources.py"), "w") as out:
            out.write("\n".join(lines))
    spec = glob.glob(os.path.join(project, "spark-pipeline.y*ml"))[0]
    text = open(spec).read()
    text = re.sub(r"(?m)^storage:.*$", "storage: file://%s/spark-storage" % project, text)
    with open(spec, "w") as out:
        out.write(text)
    return notes


def drop_expectations(sql):
    """Remove CONSTRAINT .. EXPECT items; DROP ROW ones become a WHERE."""
    out = []
    for stmt in re.split(r"(?<=;)", sql):
        conds = [m.group("cond") for m in EXPECT_RE.finditer(stmt)
                 if m.group("act") and m.group("act").upper().startswith("DROP")]
        stmt = EXPECT_RE.sub(" ", stmt)
        stmt = re.sub(r"\(\s*\)", "", stmt)  # an emptied column list
        if conds:
            m = re.search(r"\bAS\s+(SELECT|WITH)\b", stmt, re.I)
            body = stmt[m.start(1):].rstrip().rstrip(";")
            stmt = stmt[:m.start(1)] + "SELECT * FROM (%s) WHERE %s;\n" % (
                body, " AND ".join("(%s)" % c for c in conds))
        out.append(stmt)
    return "".join(out)


ARROW_TYPES = {"int8": "tinyint", "int16": "smallint", "int32": "int",
               "int64": "bigint", "float": "float", "double": "double",
               "string": "string", "large_string": "string", "bool": "boolean",
               "date32[day]": "date", "binary": "binary"}


def arrow_type(t):
    s = str(t)
    if s.startswith("timestamp"):
        return "timestamp"
    m = re.match(r"decimal128\((\d+), (\d+)\)", s)
    if m:
        return "decimal(%s,%s)" % m.groups()
    return ARROW_TYPES.get(s, s)


def spark_tables(project, names):
    env = difftest.pipelines_env(dict(os.environ, PYSPARK_PYTHON=sys.executable))
    run = subprocess.run([os.path.join(VENV_BIN, "spark-pipelines"), "run"],
                         cwd=project, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise RuntimeError("spark-pipelines run failed:\n" + (run.stdout + run.stderr)[-3000:])
    import pyarrow.parquet as pq
    out = {}
    for name in names:
        path = os.path.join(project, "spark-warehouse", name)
        if not os.path.isdir(path):
            out[name] = {"error": "no table folder %s" % path}
            continue
        files = sorted(glob.glob(os.path.join(path, "*.parquet")))
        tables = [pq.read_table(f) for f in files]
        import pyarrow as pa
        t = pa.concat_tables(tables) if tables else None
        cols = [(f.name, arrow_type(f.type)) for f in t.schema] if t is not None else []
        rows = [[difftest.norm_spark(v) for v in r.values()] for r in t.to_pylist()] if t is not None else []
        out[name] = {"cols": cols, "rows": rows}
    return out


def compare(s, w):
    """difftest's comparison, columns matched by name. A difference only in
    column order passes with a note."""
    notes = []
    if "cols" in s and "cols" in w:
        sn = [c.lower() for c, _ in s["cols"]]
        wn = [c.lower() for c, _ in w["cols"]]
        if sn != wn and sorted(sn) == sorted(wn):
            notes.append("column order differs (Spark: %s)" % ", ".join(sn))
            idx = [wn.index(c) for c in sn]
            w = {"cols": [w["cols"][i] for i in idx],
                 "rows": [[r[i] for i in idx] for r in w["rows"]]}
    e = {"sql": "SELECT *", "spark": s, "weir": w, "expect_error": False}
    kind, detail = difftest.compare(e)
    return kind, "; ".join([detail] + notes if detail else notes)


def main():
    global WEIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="skip (CI subset)")
    a = ap.parse_args()
    if a.quick:
        print("pipelines: skipped in --quick mode")
        return 0
    WEIR = os.path.abspath(a.weir)
    shutil.rmtree(a.out, ignore_errors=True)
    passed = failed = 0
    report = ["# Example pipelines on weir and Spark", ""]
    for proj in projects(os.path.join(a.out, "weir")):
        name = os.path.basename(proj)
        names = datasets(proj)
        spark_proj = os.path.join(a.out, "spark", name)
        shutil.copytree(proj, spark_proj, ignore=shutil.ignore_patterns("pipeline-storage"))
        notes = adapt_for_spark(spark_proj)
        report.append("## %s\n\nSpark adaptation: %s\n" % (name, "; ".join(notes) or "none"))
        try:
            w = weir_tables(proj, names)
            s = spark_tables(spark_proj, names)
        except RuntimeError as ex:
            print("%s: FAILED %s" % (name, ex))
            report.append("FAILED: %s\n" % ex)
            failed += 1
            continue
        for t in names:
            kind, detail = compare(s[t], w[t])
            ok = kind == "match"
            passed += ok
            failed += not ok
            line = "%s.%s: %s %s" % (name, t, kind, detail)
            print(line)
            report.append("* " + line)
            if not ok:
                report.append("  * Spark: %s\n  * weir: %s" % (difftest.show(s[t], 600),
                                                             difftest.show(w[t], 600)))
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(report) + "\n")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


WEIR = None
if __name__ == "__main__":
    sys.exit(main())
