#!/usr/bin/env python3
"""Spark's keyword and property-list grammar, asked of the pinned pyspark.

Spark decides which keywords may name things (aliases, columns, tables,
CTEs, flows, struct fields, named arguments) and which property-list forms
(OPTIONS, TBLPROPERTIES, read_files' named arguments) it accepts. This
script asks a local SparkSession: the keyword list and Spark's reserved
flag come from `sql_keywords()`, and every statement below goes through
Spark's parser alone (`sessionState.sqlParser.parsePlan`: no tables, no
analysis), once in the default mode and, for the keyword statements, once
with `spark.sql.ansi.enforceReservedKeywords=true`.

    grammar.py --write       # store Spark's answers (tests/spark/grammar-expected.tsv)
                             # and weir's keyword table (src/sql/keywords.inc)
    grammar.py --check       # Spark's answers now == the stored ones (the
                             # Spark tier: a Spark upgrade that changes the
                             # grammar shows up here)
    grammar.py --out F       # write Spark's answers to F
    grammar.py --weir-test T # run weir's parser (T: the test_sql_grammar
                             # binary) against Spark's live answers

weir's side is the unit test tests/unit/test_sql_grammar.c, which parses
every stored statement with weir's parser (parse only) and fails on any
accept/reject or error-class disagreement; it runs in every ctest without
Java. The Spark tier (run.sh) runs `--check --weir-test` (both, against
the live answers).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(HERE, "grammar-expected.tsv")
KEYWORDS_INC = os.path.join(ROOT, "src", "sql", "keywords.inc")

# Per-keyword statements: {kw} is the keyword. The first column names the
# position; weir's test runs the same text through its parser. Spark-only
# syntax is avoided so that each statement means the same on both sides.
KEYWORD_TEMPLATES = [
    ("alias", "SELECT 1 AS {kw}"),
    ("column", "SELECT {kw} FROM t"),
    ("column_expr", "SELECT {kw} + 1 FROM t"),
    ("column_where", "SELECT a FROM t WHERE {kw} = 1"),
    ("column_arg", "SELECT f({kw}) FROM t"),
    ("column_order", "SELECT a FROM t ORDER BY {kw}"),
    ("implicit_alias", "SELECT 1 {kw}"),
    ("qualified_column", "SELECT t.{kw} FROM t"),
    ("column_def", "CREATE MATERIALIZED VIEW mv ({kw} INT) AS SELECT 1"),
    ("table", "SELECT * FROM {kw}"),
    ("table_def", "CREATE MATERIALIZED VIEW {kw} AS SELECT 1"),
    ("table_alias", "SELECT * FROM t AS {kw}"),
    ("implicit_table_alias", "SELECT * FROM t {kw}"),
    ("cte", "WITH {kw} AS (SELECT 1) SELECT * FROM {kw}"),
    ("struct_field", "SELECT s.{kw}.x FROM t"),
    ("struct_type", "SELECT CAST(NULL AS STRUCT<{kw}: INT>)"),
    ("flow", "CREATE FLOW {kw} AS INSERT INTO t BY NAME SELECT 1"),
    ("arg_name", "SELECT * FROM read_files('p', {kw} => 'v')"),
    ("option_key", "CREATE MATERIALIZED VIEW mv TBLPROPERTIES ({kw} = 'v') AS SELECT 1"),
]

# Property lists. Spark has no CREATE SINK: the OPTIONS of weir's sink
# (a format and its options) are asked of Spark's nearest statement,
# CREATE TEMPORARY VIEW .. USING .. OPTIONS (Spark's propertyList, as
# TBLPROPERTIES; CREATE TABLE's OPTIONS take expressions instead).
PROP_KEYS = ["'k'", '"k"', "k", "k.a.b", "`k`", "k.`a b`", "`k.a`.b",
             "kafka.bootstrap.servers", "path", "select", "k.select", "1",
             "k-a"]
PROP_VALUES = ["'v'", '"v"', "1", "-1", "+1", "1.5", "-1.5", "1e3", "1L",
               "true", "FALSE", "null", "v", "'a' 'b'", ""]
PROP_LISTS = [
    "'a' 'x', 'b' 'y'",
    "'a' = 'x', b 'y', c.d = 1",
    "'path' '/x', 'compression' 'zstd'",
    "'k' 'x', 'k' 'y'",
    "'k' 'x', 'K' 'y'",
    "'k' 'x', k 'y'",
    "k.a 'x', `k.a` 'y'",
    "",
    "'a' 'x',",
    ", 'a' 'x'",
    "'a' 'x' 'b' 'y'",
    "'a' == 'x'",
    "('a' 'x')",
]
SINK_SPARK = "CREATE TEMPORARY VIEW s USING parquet OPTIONS ({p})"
SINK_WEIR = "CREATE SINK s USING parquet OPTIONS ({p})"
TBLPROPS = "CREATE MATERIALIZED VIEW mv TBLPROPERTIES ({p}) AS SELECT 1"
READ_FILES_ARGS = [
    "format => 'json'", "`format` => 'json'", "'format' => 'json'",
    "inferSchema => true", "maxFilesPerTrigger => 1", "a.b => 'x'",
    "format = 'json'", "format => 'json', format => 'csv'",
    "format => 'json', header => true, sep => ','",
]
READ_FILES = "SELECT * FROM read_files('/p', {p})"


def statements():
    """(section, spark text, weir text) of the property-list grid."""
    out = []
    lists = []
    for k in PROP_KEYS:
        for v in PROP_VALUES:
            lists.append("%s %s" % (k, v) if v else k)
            if v:
                lists.append("%s = %s" % (k, v))
    lists += PROP_LISTS
    for p in lists:
        out.append(("options", SINK_SPARK.format(p=p), SINK_WEIR.format(p=p)))
        out.append(("tblproperties", TBLPROPS.format(p=p), TBLPROPS.format(p=p)))
    for a in READ_FILES_ARGS:
        out.append(("read_files", READ_FILES.format(p=a), READ_FILES.format(p=a)))
    return out


def error_class(ex):
    get = getattr(ex, "getCondition", None) or getattr(ex, "getErrorClass", None)
    if get and get():
        return get()
    msg = str(ex)
    m = re.search(r"\[([A-Z_][A-Z0-9_.]*)\]", msg)
    return m.group(1) if m else "ERROR"


def ask_spark():
    """Spark's answers: (version, keywords [(kw, ansi_reserved)], rows)."""
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").appName("weir-grammar")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    from pyspark.logger import PySparkLogger
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    parser = spark._jsparkSession.sessionState().sqlParser()

    def parse(text):
        try:
            parser.parsePlan(text)
            return "ok"
        except Exception as ex:  # noqa: BLE001 - the answer is the class
            return error_class(ex)

    modes = [("default", "false"), ("ansi", "true")]
    reserved = {}
    rows = []
    for mode, enforce in modes:
        spark.conf.set("spark.sql.ansi.enabled", "true")
        spark.conf.set("spark.sql.ansi.enforceReservedKeywords", enforce)
        kws = spark.sql("SELECT keyword, reserved FROM sql_keywords()").collect()
        for r in kws:
            reserved.setdefault(r[0], {})[mode] = bool(r[1])
        for r in sorted(kws):
            kw = r[0]
            answers = [parse(t.format(kw=kw)) for _, t in KEYWORD_TEMPLATES]
            rows.append(("keyword", mode, kw, answers))
    spark.conf.set("spark.sql.ansi.enforceReservedKeywords", "false")
    for section, spark_text, weir_text in statements():
        rows.append(("statement", "default", section, parse(spark_text), weir_text))
    version = spark.version
    spark.stop()
    keywords = sorted((k, v.get("ansi", False)) for k, v in reserved.items())
    if any(v.get("default") for v in reserved.values()):
        sys.exit("grammar.py: Spark reports reserved keywords in its default mode")
    return version, keywords, rows


def render_tsv(version, rows):
    lines = ["# Spark %s's parser on weir's grammar test statements." % version,
             "# Generated by tests/spark/grammar.py --write; do not edit.",
             "# template <name> <text>: {kw} is the keyword",
             "# keyword <mode> <KEYWORD> <answer per template>",
             "# statement <mode> <section> <answer> <weir's text>",
             "# answer: ok, or the class of Spark's ParseException"]
    for name, text in KEYWORD_TEMPLATES:
        lines.append("template\t%s\t%s" % (name, text))
    for r in rows:
        if r[0] == "keyword":
            lines.append("\t".join(["keyword", r[1], r[2]] + r[3]))
        else:
            lines.append("\t".join(["statement", r[1], r[2], r[3], r[4]]))
    return "\n".join(lines) + "\n"


def render_keywords(version, keywords, rows):
    """weir's keyword table: each keyword of Spark's, its ANSI reserved
    flag, and whether it is strict-non-reserved (Spark's default mode
    refuses it as a table alias)."""
    alias = [n for n, _ in KEYWORD_TEMPLATES].index("table_alias")
    strict = {r[2] for r in rows
              if r[0] == "keyword" and r[1] == "default" and r[3][alias] != "ok"}
    lines = ["/* Spark %s's SQL keywords: generated by tests/spark/grammar.py" % version,
             " * --write from sql_keywords() and Spark's parser; do not edit.",
             " * KW(word, reserved in ANSI mode, strict-non-reserved) */"]
    for kw, ansi in keywords:
        lines.append("KW(\"%s\", %d, %d)" % (kw, int(ansi), int(kw in strict)))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--weir-test")
    a = ap.parse_args()
    version, keywords, rows = ask_spark()
    tsv = render_tsv(version, rows)
    inc = render_keywords(version, keywords, rows)
    live = a.out
    if a.weir_test and not live:
        import tempfile
        fd, live = tempfile.mkstemp(suffix=".tsv")
        os.close(fd)
    if live:
        with open(live, "w") as f:
            f.write(tsv)
    if a.write:
        with open(EXPECTED, "w") as f:
            f.write(tsv)
        with open(KEYWORDS_INC, "w") as f:
            f.write(inc)
    bad = 0
    if a.weir_test:
        import subprocess
        r = subprocess.run([a.weir_test, "-f", live])
        if r.returncode:
            print("grammar.py: weir's parser disagrees with Spark %s (above)"
                  % version)
            bad = 1
        if not a.out:
            os.unlink(live)
    if a.check:
        stale = 0
        for path, text in ((EXPECTED, tsv), (KEYWORDS_INC, inc)):
            with open(path) as f:
                if f.read() != text:
                    print("grammar.py: %s differs from Spark %s's answers "
                          "(rerun with --write)" % (os.path.relpath(path, ROOT),
                                                     version))
                    stale = 1
        if stale:
            return 1
        n = sum(len(r[3]) if r[0] == "keyword" else 1 for r in rows)
        print("grammar.py: %d statements, %d keywords: Spark %s agrees with "
              "the stored answers" % (n, len(keywords), version))
    return bad


if __name__ == "__main__":
    sys.exit(main())
