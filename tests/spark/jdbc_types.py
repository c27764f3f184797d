#!/usr/bin/env python3
"""Database reads on weir against Spark's JDBC reads of the same tables
(issue 44: "type mapping table checked against Spark's JDBC reads").

Starts a throwaway PostgreSQL and MariaDB (scripts/pg.sh, scripts/mysql.sh)
and writes a SQLite file, each with a table holding a column of every type
the dialects map (tests/spark/jdbc/tables.sql; a row of values and a row of
NULLs), then:
  * Spark 4.1 (pyspark from the tier's venv, local[1], the drivers of
    tests/spark/jdbc-jars.sh) reads each table with spark.read.jdbc;
  * weir runs a pipeline with a materialized view per table
    (SELECT * FROM read_jdbc(url => ..., dbtable => ...)),
and every column's type (DESCRIBE) and every value (as a string: Spark's
CAST(c AS STRING), hex() for binary, computed by each engine on its own
result) must be the same. Known differences are listed in
tests/spark/jdbc/known.json ({"db.table.column": "why"}) and reported, not
failed.

  tests/spark/jdbc_types.py --weir build/weir [--out DIR] [--jars DIR]

Runs with the venv's Python (build-spark-venv/bin/python). Exit 1 on a
difference that is not known.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PASSWORD = "weir-test-pw"
# Spark's JDBC reads find a driver by its class (spark.jars does not
# register them with java.sql.DriverManager).
DRIVERS = {"postgres": "org.postgresql.Driver", "mysql": "com.mysql.cj.jdbc.Driver",
           "sqlite": "org.sqlite.JDBC"}


def tables():
    """{db: (create statements, table)} from jdbc/tables.sql: sections
    `-- db: NAME` (postgres, mysql, sqlite), each ending with the table
    named `types`."""
    out, db = {}, None
    with open(os.path.join(HERE, "jdbc", "tables.sql"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"--\s*db:\s*(\w+)", line)
            if m:
                db = m.group(1)
                out[db] = ""
            elif db and not line.startswith("--"):
                out[db] += line
    return out


def server(script, work, name):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    ep = subprocess.run([os.path.join(ROOT, "scripts", script), "start", d], check=True,
                        capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return d, ep


def sql(script, d, text):
    subprocess.run([os.path.join(ROOT, "scripts", script), "sql", d, "-"], input=text,
                   check=True, capture_output=True, text=True)


def urls(pg, my, lite):
    return {
        "postgres": ("jdbc:postgresql://%s/weir" % pg, "weir"),
        "mysql": ("jdbc:mysql://%s/weir" % my, "weir"),
        "sqlite": ("jdbc:sqlite:%s" % lite, None),
    }


def value_exprs(fields):
    """Spark SQL select items giving each column as a string."""
    items = []
    for name, typ in fields:
        q = "`%s`" % name.replace("`", "``")
        e = "hex(%s)" % q if typ == "binary" else "CAST(%s AS STRING)" % q
        items.append("%s AS %s" % (e, q))
    return ", ".join(items)


def spark_side(jars, conns):
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").appName("weir-jdbc-types")
             .config("spark.jars", ",".join(os.path.join(jars, j)
                                            for j in sorted(os.listdir(jars))))
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.ui.enabled", "false").getOrCreate())
    out = {}
    try:
        for db, (url, user) in conns.items():
            props = {"user": user, "password": PASSWORD} if user else {}
            props["driver"] = DRIVERS[db]
            df = spark.read.jdbc(url, "types", properties=props)
            fields = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
            df.createOrReplaceTempView("t")
            rows = spark.sql("SELECT %s FROM t ORDER BY 1 NULLS LAST" %
                             value_exprs(fields)).collect()
            out[db] = {"fields": fields,
                       "rows": [[None if v is None else str(v) for v in r] for r in rows]}
    finally:
        spark.stop()
    return out


def weir(weir_bin, work, conns, cmd, *args):
    # An ASan build's LeakSanitizer is told what the database scanners keep
    # (tests/lsan.supp), as ctest's db cases tell it.
    env = dict(os.environ)
    env.setdefault("LSAN_OPTIONS", "suppressions=%s:print_suppressions=0"
                   % os.path.join(ROOT, "tests", "lsan.supp"))
    p = subprocess.run([weir_bin, cmd] + list(args), cwd=work, capture_output=True,
                       text=True, timeout=600, env=env)
    if p.returncode != 0:
        raise SystemExit("weir %s failed (%d):\n%s%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p.stdout


def csv_rows(text):
    import csv
    import io
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def weir_side(weir_bin, work, conns):
    proj = os.path.join(work, "weir")
    os.makedirs(os.path.join(proj, "transformations"), exist_ok=True)
    with open(os.path.join(proj, "spark-pipeline.yml"), "w") as f:
        f.write("name: jdbc_types\nstorage: storage\nlibraries:\n"
                "  - glob:\n      include: transformations/**\n")
    with open(os.path.join(proj, "transformations", "types.sql"), "w") as f:
        for db, (url, user) in conns.items():
            creds = ", user => '%s', password => '%s'" % (user, PASSWORD) if user else ""
            f.write("CREATE MATERIALIZED VIEW %s_types AS SELECT * FROM read_jdbc("
                    "url => '%s', dbtable => 'types'%s);\n" % (db, url, creds))
    weir(weir_bin, proj, conns, "run")
    out = {}
    for db in conns:
        _, desc = csv_rows(weir(weir_bin, proj, conns, "query", "--format", "csv",
                                "DESCRIBE %s_types" % db))
        fields = [(r[0], r[1]) for r in desc if r and r[0] and not r[0].startswith("#")]
        # csv: NULL is an empty field, an empty string is ""
        text = weir(weir_bin, proj, conns, "query", "--format", "json",
                    "SELECT %s FROM %s_types ORDER BY 1 NULLS LAST" % (value_exprs(fields), db))
        rows = [list(r.values()) for r in json.loads(text)] if text.strip().startswith("[") \
            else [list(json.loads(line).values()) for line in text.splitlines() if line.strip()]
        out[db] = {"fields": fields,
                   "rows": [[None if v is None else str(v) for v in r] for r in rows]}
    return out


def compare(spark, weir_res, known):
    problems, knowns = [], []
    for db, s in spark.items():
        w = weir_res.get(db)
        if not w:
            problems.append("%s: weir read nothing" % db)
            continue
        sf, wf = dict(s["fields"]), dict(w["fields"])
        for name, typ in s["fields"]:
            key = "%s.types.%s" % (db, name)
            diffs = []
            if name not in wf:
                diffs.append("column missing in weir")
            elif wf[name] != typ:
                diffs.append("type: Spark %s, weir %s" % (typ, wf[name]))
            else:
                i = [n for n, _ in s["fields"]].index(name)
                j = [n for n, _ in w["fields"]].index(name)
                for k, (sr, wr) in enumerate(zip(s["rows"], w["rows"])):
                    if sr[i] != wr[j]:
                        diffs.append("row %d: Spark %r, weir %r" % (k + 1, sr[i], wr[j]))
                if len(s["rows"]) != len(w["rows"]):
                    diffs.append("rows: Spark %d, weir %d" % (len(s["rows"]), len(w["rows"])))
            for d in diffs:
                line = "%s: %s" % (key, d)
                (knowns if key in known else problems).append(
                    line + (" (known: %s)" % known[key] if key in known else ""))
        for name in wf:
            if name not in sf:
                problems.append("%s.types.%s: column only in weir" % (db, name))
    return problems, knowns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "build-spark-out", "jdbc"))
    ap.add_argument("--jars", default=os.environ.get("SPARK_JDBC_JARS",
                                                     os.path.join(ROOT, "build-spark-jdbc")))
    a = ap.parse_args()
    weir_bin = os.path.abspath(a.weir)
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    work = tempfile.mkdtemp(prefix="weir-jdbc-types.")
    started = []
    try:
        ddl = tables()
        pgd, pg = server("pg.sh", work, "pg")
        started.append(("pg.sh", pgd))
        myd, my = server("mysql.sh", work, "mysql")
        started.append(("mysql.sh", myd))
        sql("pg.sh", pgd, ddl["postgres"])
        sql("mysql.sh", myd, ddl["mysql"])
        lite = os.path.join(work, "types.db")
        c = sqlite3.connect(lite)
        c.executescript(ddl["sqlite"])
        c.commit()
        c.close()
        conns = urls(pg, my, lite)
        s = spark_side(a.jars, conns)
        w = weir_side(weir_bin, work, conns)
        with open(os.path.join(HERE, "jdbc", "known.json"), encoding="utf-8") as f:
            known = json.load(f)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({"spark": s, "weir": w}, f, indent=1)
        problems, knowns = compare(s, w, known)
        n = sum(len(v["fields"]) for v in s.values())
        report = ["# weir's database reads against Spark's JDBC reads", "",
                  "%d columns in %d databases; %d differences, %d known" % (
                      n, len(s), len(problems), len(knowns)), ""]
        report += ["* " + p for p in problems] + ["* " + k for k in knowns]
        with open(os.path.join(out, "report.md"), "w") as f:
            f.write("\n".join(report) + "\n")
        print("\n".join(report))
        return 1 if problems else 0
    finally:
        for script, d in started:
            subprocess.run([os.path.join(ROOT, "scripts", script), "stop", d],
                           capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
