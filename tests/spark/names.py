#!/usr/bin/env python3
"""Spark's generated column names, asked of Spark itself.

Every built-in function's documented examples (`DESCRIBE FUNCTION
EXTENDED`, the `> SELECT ...;` lines of each function of `SHOW
FUNCTIONS`), plus the queries of EXTRA below (qualified columns, operators,
casts and literals in names), are analysed by a local Spark (pyspark 4.1.4,
classic session; analysis only, nothing runs) and the names of their result
columns stored in names-expected.jsonl beside this script, one JSON object
a line: {"fn": function, "q": query, "cols": [names]}. Queries Spark cannot
analyse are left out.

weir's unit test tests/unit/test_sql_names.c gives each stored query to
weir's SQL front end and compares the name weir generates for each column
(src/sql/pretty.c, the one rule) with Spark's.

    build-spark-venv/bin/python tests/spark/names.py            # check: Spark == stored
    build-spark-venv/bin/python tests/spark/names.py --write    # store Spark's answers
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STORED = os.path.join(HERE, "names-expected.jsonl")

# Names the examples do not show: qualifiers, operators, literals, casts,
# the DataFrame spellings' SQL equivalents.
EXTRA = [
    "SELECT sum(t.amount), max(abs(t.amount)) FROM VALUES (1) AS t(amount)",
    "SELECT abs(t.amount), t.amount + 1, upper(t.s) FROM VALUES (1, 'a') AS t(amount, s)",
    "SELECT upper(t.s.x) FROM VALUES (named_struct('x', 'a')) AS t(s)",
    "SELECT upper(s.x) FROM VALUES (named_struct('x', 'a')) AS t(s)",
    "SELECT count(*), count(1), count(t.a), count(DISTINCT a) FROM VALUES (1) AS t(a)",
    "SELECT a IS NOT NULL, a IS NULL, isnotnull(a), isnull(a), NOT a IS NULL FROM VALUES (1) AS t(a)",
    "SELECT a = 1, a <> 1, a != 1, a <=> 1, a > 1 AND a < 3, a >= 1 OR a <= 3 FROM VALUES (1) AS t(a)",
    "SELECT -a, +a, ~a, a % 2, a DIV 2, a & 1, a | 1, a ^ 1 FROM VALUES (1) AS t(a)",
    "SELECT CAST(a AS STRING), CAST(a + 1 AS INT), upper(CAST(a AS STRING)) FROM VALUES (1) AS t(a)",
    "SELECT 1, 1L, 1S, 1Y, 1.5, 1.5D, 1.5F, 1e3, 'x', NULL, true, DATE'2024-01-01'",
    "SELECT TIMESTAMP'2024-01-01 00:00:00', X'0A', INTERVAL 1 DAY, array(1, 2), map('a', 1)",
    "SELECT a IN (1, 2), a NOT IN (1, 2), a BETWEEN 1 AND 2, a NOT BETWEEN 1 AND 2 FROM VALUES (1) AS t(a)",
    "SELECT s LIKE 'a%', s NOT LIKE 'a%', s RLIKE 'a', s ILIKE 'A%' FROM VALUES ('a') AS t(s)",
    "SELECT CASE WHEN a > 0 THEN 'p' ELSE 'n' END, CASE a WHEN 1 THEN 'one' END FROM VALUES (1) AS t(a)",
    "SELECT s || 'x', concat(s, 'x'), a[0], m['k'], st.x FROM VALUES ('a', array(1), map('k', 1), named_struct('x', 1)) AS t(s, a, m, st)",
    "SELECT coalesce(a, 0), nvl(a, 0), ifnull(a, 0), if(a > 0, 1, 0) FROM VALUES (1) AS t(a)",
    "SELECT dateadd(d, 1), date_add(d, 1), datediff(d, d), date_sub(d, 1) FROM VALUES (DATE'2024-01-01') AS t(d)",
    "SELECT bround(2.5), bround(2.5, 0), round(2.5), round(2.5, 0), ceil(2.5), ceiling(2.5), floor(2.5)",
    "SELECT acos(1), asin(1), atan(1), cos(1), sin(1), tan(1), sqrt(4), exp(1), ln(1), log10(1), log2(1), log(1), e(), pi()",
    "SELECT upper('a'), ucase('a'), lower('a'), lcase('a'), length('a'), len('a'), char_length('a')",
    "SELECT hour(ts), minute(ts), second(ts), year(ts), month(ts), day(ts), dayofmonth(ts) FROM VALUES (TIMESTAMP'2024-01-01 00:00:00') AS t(ts)",
    "SELECT row_number() OVER (ORDER BY a), rank() OVER (PARTITION BY a ORDER BY a), sum(a) OVER (PARTITION BY a) FROM VALUES (1) AS t(a)",
    "SELECT lag(a) OVER (ORDER BY a), lead(a, 2) OVER (ORDER BY a), first(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM VALUES (1) AS t(a)",
    "SELECT avg(a), mean(a), min(a), max(a), stddev(a), variance(a), collect_list(a), collect_set(a) FROM VALUES (1) AS t(a)",
    "SELECT first(a), last(a), first(a, true), first_value(a), any_value(a) FROM VALUES (1) AS t(a)",
    "SELECT substr(s, 1), substring(s, 1, 2), trim(s), ltrim(s), rtrim(s), trim(BOTH 'x' FROM s) FROM VALUES ('a') AS t(s)",
    "SELECT transform(a, x -> x + 1), filter(a, x -> x > 1), exists(a, x -> x > 1), aggregate(a, 0, (acc, x) -> acc + x) FROM VALUES (array(1, 2)) AS t(a)",
    "SELECT to_date(s), to_timestamp(s), date_format(d, 'yyyy'), current_date(), current_timestamp() FROM VALUES ('2024-01-01', DATE'2024-01-01') AS t(s, d)",
    "SELECT a + 1.5, a * 2, a / 2, 2 * (a + 1), (a + 1) * 2 FROM VALUES (1) AS t(a)",
    "SELECT explode(array(1, 2))",
    "SELECT positive(a), negative(a), abs(-a) FROM VALUES (1) AS t(a)",
    "SELECT extract(YEAR FROM d), date_part('year', d), datepart('year', d) FROM VALUES (DATE'2024-01-01') AS t(d)",
    "SELECT position('a' IN s), locate('a', s), instr(s, 'a') FROM VALUES ('a') AS t(s)",
    "SELECT struct(a, b), named_struct('x', a), array(a, b), map(a, b) FROM VALUES (1, 2) AS t(a, b)",
    "SELECT nanvl(a, 0D), isnan(a), greatest(a, 1D), least(a, 1D) FROM VALUES (1D) AS t(a)",
    "SELECT sum(a) FILTER (WHERE a > 0), count(DISTINCT a, b) FROM VALUES (1, 2) AS t(a, b)",
    "SELECT percentile_approx(a, 0.5), approx_count_distinct(a), count_if(a > 0) FROM VALUES (1) AS t(a)",
    "SELECT try_cast(a AS STRING), a::string, CAST(NULL AS INT) FROM VALUES (1) AS t(a)",
]


def session():
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").appName("weir-names")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    from pyspark.logger import PySparkLogger
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    return spark


def examples(text):
    """The `> SELECT ...;` queries of a DESCRIBE FUNCTION EXTENDED text
    (a query may continue on the following lines up to its `;`)."""
    out, cur = [], None
    for line in text.splitlines():
        s = line.strip()
        if cur is not None:
            cur += " " + s
        elif s.startswith("> SELECT") or s.startswith("> select"):
            cur = s[2:]
        else:
            continue
        if cur.rstrip().endswith(";"):
            out.append(cur.rstrip()[:-1].strip())
            cur = None
    return out


def ask(spark):
    rows = []
    seen = set()
    fns = sorted(r[0] for r in spark.sql("SHOW FUNCTIONS").collect())
    for fn in fns:
        if not re.match(r"^[a-z_][a-z0-9_]*$", fn):
            continue  # operators (+, ||, ...): covered by EXTRA
        try:
            text = "\n".join(r[0] for r in spark.sql(
                "DESCRIBE FUNCTION EXTENDED `%s`" % fn).collect())
        except Exception:  # noqa: BLE001
            continue
        for q in examples(text):
            if q in seen:
                continue
            seen.add(q)
            try:
                cols = spark.sql(q).columns
            except Exception:  # noqa: BLE001 (an example that raises)
                continue
            rows.append({"fn": fn, "q": q, "cols": cols})
    for q in EXTRA:
        try:
            rows.append({"fn": "", "q": q, "cols": spark.sql(q).columns})
        except Exception as e:  # noqa: BLE001
            print("names.py: Spark refuses %s: %s" % (q, str(e).splitlines()[0]),
                  file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    rows = ask(session())
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if args.write:
        with open(STORED, "w") as f:
            f.write(text)
        print("names.py: %d queries stored" % len(rows))
        return 0
    stored = open(STORED).read() if os.path.exists(STORED) else ""
    if stored != text:
        print("names.py: Spark's names differ from the stored ones; "
              "rerun with --write and review the diff", file=sys.stderr)
        return 1
    print("names.py: %d queries, Spark's names as stored" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
