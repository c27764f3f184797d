#!/usr/bin/env python3
"""Differential test: run the SQL corpus on Apache Spark and on weir, compare.

Each corpus entry runs once on Spark (all in one local SparkSession, ANSI mode,
session time zone UTC) and on weir (`weir query --format json`, two processes
per entry: one for the result's column names and types, one for its rows).
Rows, column names and column types are compared; rows are compared as a
multiset unless the query has a top-level ORDER BY; floating point values
compare with a relative tolerance of 1e-6.

Outcomes per entry:
  match        same names, types and rows (or both engines raise an error,
               for entries marked `-- error`)
  known        a difference documented in the entry (`-- known: why`)
  unsupported  weir refuses with UNSUPPORTED_SPARK_SQL naming the construct
  error        weir fails with another error where Spark answers
  wrong        weir answers with other rows (or answers where Spark raises)
  type / name  rows match but a column type / name differs
  corpus       Spark itself rejects an entry not marked `-- error`

Writes <out>/results.json and <out>/report.md; exits 1 when there is a
`wrong`, `type`, `name`, `error` or `corpus` outcome (unless --no-fail).
"""
import argparse
import concurrent.futures as cf
import datetime as dt
import decimal
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAILING = ("wrong", "type", "name", "error", "corpus")
functions_version = [""]


# --- corpus -----------------------------------------------------------------

def load_corpus(folder):
    """Entries of every corpus/*.sql file: a query ends with ';' at a line end;
    the `--` lines before it may hold `-- known: reason`, `-- error` and
    `-- conf: key=value` (a session conf for that entry, repeatable)."""
    entries = []
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".sql"):
            continue
        category = fname[:-4]
        notes, lines, n = [], [], 0
        with open(os.path.join(folder, fname), encoding="utf-8") as f:
            for line in f:
                s = line.strip()
                if not lines and (not s or s.startswith("--")):
                    if s.startswith("--"):
                        notes.append(s[2:].strip())
                    continue
                lines.append(line.rstrip("\n"))
                if s.endswith(";"):
                    n += 1
                    sql = "\n".join(lines).strip()[:-1].strip()
                    known = [x[6:].strip() for x in notes if x.startswith("known:")]
                    conf = [x[5:].strip().split("=", 1) for x in notes
                            if x.startswith("conf:")]
                    entries.append({
                        "id": "%s:%d" % (category, n), "category": category,
                        "sql": sql, "known": known[0] if known else None,
                        "expect_error": any(x == "error" for x in notes),
                        "conf": [(k.strip(), v.strip()) for k, v in conf],
                    })
                    notes, lines = [], []
    return entries


def top_level_order_by(sql):
    """True when ORDER BY appears outside parentheses and quotes."""
    depth, i, quote = 0, 0, None
    text = sql.upper()
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and re.match(r"ORDER\s+BY\b", text[i:]) and \
                (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            return True
        i += 1
    return False


# --- values -----------------------------------------------------------------

def ts_text(v):
    s = v.strftime("%Y-%m-%d %H:%M:%S")
    if v.microsecond:
        s += (".%06d" % v.microsecond).rstrip("0")
    return s


def blob_text(b):
    return "".join(chr(c) if 32 <= c < 127 and c != 92 else "\\x%02X" % c
                   for c in bytes(b))


def norm_spark(v):
    """A Spark (pyspark) value in the shape weir's JSON rows take."""
    from pyspark.sql import Row
    if v is None or isinstance(v, (bool, int, float, str, decimal.Decimal)):
        return v
    if isinstance(v, dt.datetime):
        return ts_text(v)
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return {"interval_us": v // dt.timedelta(microseconds=1)}
    if isinstance(v, (bytes, bytearray)):
        return blob_text(v)
    if isinstance(v, Row):
        return {k: norm_spark(x) for k, x in zip(v.__fields__, v)}
    if isinstance(v, dict):
        return {str(norm_spark(k)) if not isinstance(norm_spark(k), str)
                else norm_spark(k): norm_spark(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [norm_spark(x) for x in v]
    return str(v)


INTERVAL_RE = re.compile(r"(-?\d+) (year|month|day)s?|(-?)(\d+):(\d+):(\d+(?:\.\d+)?)")


def interval_us(text):
    """DuckDB interval text ('1 day 02:00:00') in microseconds (days only)."""
    total = 0
    for m in INTERVAL_RE.finditer(text):
        if m.group(1):
            n, unit = int(m.group(1)), m.group(2)
            total += n * {"day": 86400, "month": 30 * 86400,
                          "year": 365 * 86400}[unit] * 10**6
        else:
            sign = -1 if m.group(3) else 1
            secs = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + \
                decimal.Decimal(m.group(6))
            total += sign * int(secs * 10**6)
    return total


def is_num(v):
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def same(a, b, ty=""):
    """Spark value a equals weir value b (b from JSON)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, dict) and "interval_us" in a and isinstance(b, str):
        return a["interval_us"] == interval_us(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if is_num(a) and is_num(b):
        if isinstance(a, float) or isinstance(b, float) or ty in ("double", "float"):
            fa, fb = float(a), float(b)
            if math.isnan(fa) or math.isnan(fb):
                return math.isnan(fa) and math.isnan(fb)
            return math.isclose(fa, fb, rel_tol=1e-6, abs_tol=1e-12)
        return decimal.Decimal(a) == decimal.Decimal(b)
    if isinstance(a, str) and isinstance(b, decimal.Decimal):
        # a nested decimal of a reused answer is stored as its text (the
        # column types, compared apart, tell a real string)
        try:
            return decimal.Decimal(a) == b
        except decimal.InvalidOperation:
            return False
    if isinstance(a, float) and isinstance(b, str):  # NaN/Infinity as text
        return str(a).lower().lstrip("+") == b.lower().replace("infinity", "inf")
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        # to_json leaves out NULL struct fields: a missing key is NULL
        return set(b) <= set(a) and all(same(a[k], b.get(k)) for k in a)
    return a == b


def sort_key(v):
    """A canonical text for multiset comparison (floats rounded)."""
    if is_num(v):
        f = float(v)
        return "n:" + ("nan" if math.isnan(f) else "%.6g" % f)
    if isinstance(v, dict) and "interval_us" in v:
        return "i:%d" % v["interval_us"]
    if isinstance(v, list):
        return "[" + ",".join(sort_key(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(k + "=" + sort_key(v[k]) for k in sorted(v)) + "}"
    return type(v).__name__ + ":" + str(v)


def weir_sort_key(v, ty):
    if ty.startswith("interval") and isinstance(v, str):
        return "i:%d" % interval_us(v)
    return sort_key(v)


# --- types ------------------------------------------------------------------

DUCK_NAMES = {
    "BIGINT": "bigint", "INTEGER": "int", "SMALLINT": "smallint",
    "TINYINT": "tinyint", "DOUBLE": "double", "FLOAT": "float",
    "VARCHAR": "string", "BOOLEAN": "boolean", "DATE": "date",
    "TIMESTAMP": "timestamp", "TIMESTAMP WITH TIME ZONE": "timestamp",
    "TIMESTAMP_S": "timestamp", "TIMESTAMP_MS": "timestamp",
    "TIMESTAMP_NS": "timestamp", "TIMESTAMP_US": "timestamp",
    "BLOB": "binary", "HUGEINT": "decimal(38,0)", "UHUGEINT": "decimal(38,0)",
    "UTINYINT": "smallint", "USMALLINT": "int", "UINTEGER": "bigint",
    "UBIGINT": "decimal(20,0)", "INTERVAL": "interval", '"NULL"': "void",
    "NULL": "void", "UUID": "string", "JSON": "string", "BIT": "binary",
}


def duck_to_spark(s):
    """weir's DuckDB->Spark type naming (weir__sql_duckdb_type_to_spark)."""
    pos = [0]

    def skip():
        while pos[0] < len(s) and s[pos[0]] == " ":
            pos[0] += 1

    def name():
        skip()
        if s[pos[0]:pos[0] + 1] == '"':
            j = pos[0] + 1
            out = ""
            while j < len(s):
                if s[j] == '"':
                    if s[j + 1:j + 2] == '"':
                        out += '"'
                        j += 2
                        continue
                    j += 1
                    break
                out += s[j]
                j += 1
            pos[0] = j
            return out
        m = re.match(r"[^ ,)]*", s[pos[0]:])
        pos[0] += m.end()
        return m.group(0)

    def typ():
        skip()
        rest = s[pos[0]:]
        if rest.upper().startswith("STRUCT("):
            pos[0] += 7
            fields = []
            while True:
                skip()
                if pos[0] >= len(s) or s[pos[0]] == ")":
                    pos[0] += 1
                    break
                n = name()
                fields.append("%s:%s" % (n, typ()))
                skip()
                if s[pos[0]:pos[0] + 1] == ",":
                    pos[0] += 1
            out = "struct<%s>" % ",".join(fields)
        elif rest.upper().startswith("MAP("):
            pos[0] += 4
            k = typ()
            skip()
            pos[0] += 1  # ,
            v = typ()
            skip()
            pos[0] += 1  # )
            out = "map<%s,%s>" % (k, v)
        elif rest.upper().startswith("DECIMAL("):
            j = s.index(")", pos[0])
            out = "decimal(%s)" % s[pos[0] + 8:j].replace(" ", "")
            pos[0] = j + 1
        else:
            m = re.match(r"[^,)\[]*", rest)
            n = m.group(0).rstrip()
            pos[0] += len(n)
            out = DUCK_NAMES.get(n.upper(), n.lower())
            if n.upper().startswith("ENUM("):
                out = "string"
        while s[pos[0]:pos[0] + 1] == "[":
            pos[0] = s.index("]", pos[0]) + 1
            out = "array<%s>" % out
        return out

    return typ()


def spark_type(t):
    """Spark's simpleString, with interval types folded to `interval`."""
    s = t.simpleString().replace("`", "")
    s = re.sub(r"interval (day|hour|minute|second)( to (day|hour|minute|second))?",
               "interval", s)
    return s


# --- engines ----------------------------------------------------------------

def pipelines_env(env):
    """env for a `spark-pipelines run`: its local Spark Connect server binds
    port 15002, which another engineer's Spark may hold on a shared machine;
    then SPARK_TESTING=1 makes pyspark bind an ephemeral port and connect to
    it (pyspark's own test mode, SPARK-42272). SPARK_CONNECT_EPHEMERAL=1
    asks for that always, =0 never."""
    import socket
    want = os.environ.get("SPARK_CONNECT_EPHEMERAL")
    if want is None:
        with socket.socket() as s:
            s.settimeout(1)
            want = "1" if s.connect_ex(("127.0.0.1", 15002)) == 0 else "0"
    if want == "1":
        env = dict(env, SPARK_TESTING="1")
    return env


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def error_class(msg):
    m = re.search(r"\[([A-Z_][A-Z0-9_.]*)\]", msg)
    return m.group(1) if m else ""


def run_spark(entries, log):
    from pyspark.sql import SparkSession
    t0 = time.time()
    spark = (SparkSession.builder.master("local[1]").appName("weir-difftest")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.ansi.enabled", "true")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "1")
             # tiny inputs: interpreting beats compiling code per query
             .config("spark.sql.codegen.wholeStage", "false")
             .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
             .config("spark.sql.adaptive.enabled", "false")
             .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    from pyspark.logger import PySparkLogger
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    log("spark: session up in %.1fs" % (time.time() - t0))
    functions = sorted(r[0] for r in spark.sql("SHOW FUNCTIONS").collect())
    functions_version[0] = spark.version
    for e in entries:
        for k, v in e["conf"]:
            spark.conf.set(k, v)
        try:
            df = spark.sql(e["sql"])
            cols = [(f.name, spark_type(f.dataType)) for f in df.schema.fields]
            rows = [[norm_spark(v) for v in r] for r in df.collect()]
            e["spark"] = {"cols": cols, "rows": rows}
        except Exception as ex:  # noqa: BLE001 - any Spark failure is a result
            msg = first_line(str(ex))
            e["spark"] = {"error": msg, "class": error_class(msg)}
        for k, _ in e["conf"]:
            spark.conf.unset(k)
    log("spark: %d queries in %.1fs" % (len(entries), time.time() - t0))
    spark.stop()
    return functions


def weir_run(weir, cwd, sql, conf=()):
    args = [weir, "query", "--format", "json"]
    for k, v in conf:
        args += ["--conf", "%s=%s" % (k, v)]
    p = subprocess.run(args + ["-"], input=sql,
                       cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_weir_one(weir, cwd, e):
    sql = e["sql"]
    rc, out, err = weir_run(weir, cwd,
                            "CREATE TEMPORARY VIEW __q AS %s;\nDESCRIBE __q" % sql,
                            e["conf"])
    if rc == 0:
        cols = [(json.loads(l)["col_name"], json.loads(l)["data_type"])
                for l in out.splitlines() if l.strip()]
        rc, out, err = weir_run(weir, cwd,
                                "SELECT to_json(__q) AS __j FROM (%s) __q" % sql,
                                e["conf"])
    if rc != 0:
        msg = ""
        for line in err.splitlines():
            if "error:" in line:
                msg = line.split("error:", 1)[1].strip()
                break
        msg = msg or first_line(err) or "exit status %d" % rc
        return {"error": msg, "class": error_class(msg)}
    rows = []
    for line in out.splitlines():
        if not line.strip():
            continue
        j = json.loads(line)["__j"]
        pairs = json.loads(j, parse_float=decimal.Decimal,
                           object_pairs_hook=Pairs)
        if len(pairs) == len(cols):
            rows.append([to_plain(v) for _, v in pairs])
        else:  # weir's to_json leaves out NULL fields, as Spark's does
            row = dict(pairs)
            rows.append([to_plain(row.get(name)) for name, _ in cols])
    return {"cols": cols, "rows": rows}


class Pairs(list):
    """A JSON object as its (key, value) pairs, to keep duplicate keys."""


def to_plain(v):
    """Pairs below the top level back to dicts."""
    if isinstance(v, Pairs):
        return {k: to_plain(x) for k, x in v}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    return v


def run_weir(entries, weir, jobs, log):
    t0 = time.time()
    homes = []
    for _ in range(jobs):
        d = tempfile.mkdtemp(prefix="weir-difftest-")
        with open(os.path.join(d, "spark-pipeline.yml"), "w") as f:
            f.write("name: difftest\nstorage: storage\nlibraries: []\n")
        homes.append(d)

    def work(i):
        e = entries[i]
        try:
            e["weir"] = run_weir_one(weir, homes[i % jobs], e)
        except Exception as ex:  # noqa: BLE001
            e["weir"] = {"error": "harness: %s" % ex, "class": "HARNESS"}

    # Each worker owns a storage folder: group entries by worker slot.
    with cf.ThreadPoolExecutor(jobs) as pool:
        slots = [[i for i in range(len(entries)) if i % jobs == k] for k in range(jobs)]
        list(pool.map(lambda idx: [work(i) for i in idx], slots))
    log("weir: %d queries in %.1fs" % (len(entries), time.time() - t0))


# --- comparison -------------------------------------------------------------

def compare(e):
    s, w = e["spark"], e["weir"]
    if "error" in s:
        if "error" in w:
            return ("match", "") if e["expect_error"] else ("corpus", s["error"])
        return ("corpus", s["error"]) if not e["expect_error"] else \
            ("wrong", "Spark raises, weir answers")
    if "error" in w:
        kind = "unsupported" if (w["class"] == "UNSUPPORTED_SPARK_SQL" or
                                 "not supported by weir" in w["error"]) else "error"
        return kind, w["error"]
    if len(s["cols"]) != len(w["cols"]):
        return "wrong", "column count differs"
    types = [t for _, t in s["cols"]]
    sr, wr = s["rows"], w["rows"]
    if not top_level_order_by(e["sql"]):
        sr = sorted(sr, key=lambda r: [sort_key(v) for v in r])
        wr = sorted(wr, key=lambda r: [weir_sort_key(v, t) for v, t in zip(r, types)])
    if len(sr) != len(wr) or not all(
            len(a) == len(b) and all(same(x, y, t) for x, y, t in zip(a, b, types))
            for a, b in zip(sr, wr)):
        return "wrong", "rows differ"
    if [t for _, t in s["cols"]] != [t for _, t in w["cols"]]:
        return "type", "types differ"
    if [n for n, _ in s["cols"]] != [n for n, _ in w["cols"]]:
        return "name", "column names differ"
    return "match", ""


def show(r, limit=160):
    if "error" in r:
        text = "ERROR " + r["error"]
    else:
        cols = ", ".join("%s %s" % c for c in r["cols"])
        rows = json.dumps(r["rows"], default=str, ensure_ascii=False)
        text = "(%s) %s" % (cols, rows)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def report(entries, path):
    order = ["wrong", "error", "type", "name", "corpus", "unsupported", "known"]
    lines = ["# weir vs Spark: differential results", ""]
    counts = {}
    for e in entries:
        counts[e["outcome"]] = counts.get(e["outcome"], 0) + 1
    total = len(entries)
    lines.append("%d queries: %s; match rate %.1f%%" % (
        total, ", ".join("%s %d" % kv for kv in sorted(counts.items())),
        100.0 * counts.get("match", 0) / max(total, 1)))
    lines += ["", "| id | outcome | construct | Spark | weir |", "|---|---|---|---|---|"]
    for kind in order:
        for e in entries:
            if e["outcome"] != kind:
                continue
            q = e["sql"].replace("\n", " ").replace("|", "\\|")
            note = e.get("known") or e.get("detail") or ""
            lines.append("| %s | %s | `%s` | %s | %s%s |" % (
                e["id"], kind, q[:150], show(e["spark"]), show(e["weir"]),
                (" — " + note.replace("|", "\\|")[:200]) if note else ""))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weir", required=True, help="the weir binary")
    ap.add_argument("--out", required=True, help="folder for results")
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--quick", action="store_true",
                    help="every 5th entry of each category (the CI subset)")
    ap.add_argument("--only", help="regular expression on entry ids")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-fail", action="store_true")
    ap.add_argument("--reuse-spark", metavar="RESULTS",
                    help="take Spark's answers from a previous results.json "
                         "for entries of the same SQL and confs (iterating "
                         "on weir without restarting Spark)")
    a = ap.parse_args()

    # pyspark turns timestamps into datetimes of this process's zone
    os.environ["TZ"] = "UTC"
    time.tzset()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    entries = load_corpus(a.corpus)
    if a.quick:
        entries = [e for e in entries if int(e["id"].split(":")[1]) % 5 == 1]
    if a.only:
        entries = [e for e in entries if re.search(a.only, e["id"])]
    os.makedirs(a.out, exist_ok=True)
    functions, fresh = [], entries
    if a.reuse_spark:
        with open(a.reuse_spark, encoding="utf-8") as f:
            old = json.load(f)
        known = {(e["sql"], json.dumps(e.get("conf", []))): e["spark"]
                 for e in old["entries"] if "spark" in e}
        functions = old.get("spark_functions", [])
        functions_version[0] = old.get("spark_version", "")
        fresh = []
        for e in entries:
            hit = known.get((e["sql"], json.dumps([list(c) for c in e["conf"]])))
            if hit is None:
                fresh.append(e)
            else:
                if "cols" in hit:  # JSON gave lists; run_spark makes tuples
                    hit["cols"] = [tuple(c) for c in hit["cols"]]
                    # decimals were stored as their text
                    for row in hit.get("rows", []):
                        for i, (_, ty) in enumerate(hit["cols"]):
                            if (i < len(row) and ty.startswith("decimal")
                                    and isinstance(row[i], str)):
                                row[i] = decimal.Decimal(row[i])
                e["spark"] = hit
        log("spark: %d answers reused, %d to run" % (len(entries) - len(fresh),
                                                     len(fresh)))
    with cf.ThreadPoolExecutor(1) as bg:
        weir_done = bg.submit(run_weir, entries, os.path.abspath(a.weir),
                              a.jobs, log)
        if fresh:
            functions = run_spark(fresh, log)
        weir_done.result()
    for e in entries:
        kind, detail = compare(e)
        if kind != "match" and e["known"]:
            kind = "known"
        e["outcome"], e["detail"] = kind, detail
    with open(os.path.join(a.out, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"spark_version": functions_version[0],
                   "spark_functions": functions, "entries": entries}, f,
                  default=str, indent=1)
    counts = report(entries, os.path.join(a.out, "report.md"))
    total = len(entries)
    print("%d queries: %s" % (total, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    print("match rate: %.1f%% (%d/%d); report: %s" % (
        100.0 * counts.get("match", 0) / max(total, 1), counts.get("match", 0),
        total, os.path.join(a.out, "report.md")))
    bad = sum(counts.get(k, 0) for k in FAILING)
    print("%d passed, %d failed" % (total - bad, bad))
    return 0 if a.no_fail or bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
