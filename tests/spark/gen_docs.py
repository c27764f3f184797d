#!/usr/bin/env python3
"""Generate docs/sql-functions.md from the differential tier's results.

    tests/spark/gen_docs.py build-spark-out/results.json [docs/sql-functions.md]
    tests/spark/gen_docs.py --sql-md    # refresh the function table of docs/sql.md

Every built-in Spark function (SHOW FUNCTIONS of the Spark that ran the
corpus) gets a status: `matches` (every corpus query using it gives Spark's
names, types and rows), `differs` (some query differs: how), `refused`
(weir answers UNSUPPORTED_SPARK_SQL for a use in the corpus), `not supported`
(weir has no translation) or `supported, untested` (weir translates it; the
corpus does not use it yet).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# Spark functions weir handles in its parser or translator, not in the table.
SYNTAX = {"cast", "try_cast", "extract", "position", "trim", "between", "in",
          "like", "ilike", "rlike", "case", "when", "not", "and", "or",
          "isnull", "isnotnull", "struct", "window", "explode", "explode_outer",
          "posexplode", "posexplode_outer", "inline", "inline_outer",
          "json_tuple", "stack", "range"}
RANK = {"match": 0, "known": 2, "type": 2, "name": 2, "unsupported": 3,
        "error": 4, "wrong": 4, "corpus": 1}


def weir_functions():
    """Names in src/sql/functions.c's table."""
    text = open(os.path.join(ROOT, "src", "sql", "functions.c"), encoding="utf-8").read()
    return set(re.findall(r'\{ "([a-z_0-9]+)", -?\d+, -?\d+,', text)) | SYNTAX


def used(sql, names):
    sql = re.sub(r"(?i)\b(AS|ARRAY<|MAP<)\s*\w+\s*\(", " ", sql)  # types: DECIMAL(10,2)
    return {m.lower() for m in re.findall(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", sql)
            if m.lower() in names}


def blamed(e, fs):
    """The functions of entry e its difference is about: those its error or
    note names, else all of them."""
    if e["outcome"] in ("match", "corpus"):
        return fs
    text = ((e.get("known") or "") + " " + (e["weir"].get("error") or "")).lower()
    named = {f for f in fs if re.search(r"\b%s\b" % re.escape(f), text)}
    return named or fs


def sql_md_table():
    """Rewrite the "| Spark | args | DuckDB translation |" table of
    docs/sql.md from src/sql/functions.c."""
    src = open(os.path.join(ROOT, "src", "sql", "functions.c"), encoding="utf-8").read()
    rows = []
    for name, lo, hi, flags, tmpl, handler in re.findall(
            r'\{ "([a-z_0-9]+)", (-?\d+), (-?\d+), ([A-Z| ]+|0),\s*'
            r'((?:"(?:[^"\\]|\\.)*"\s*)+|NULL),\s*(NULL|weir__fn_\w+) \}', src):
        lo, hi = int(lo), int(hi)
        args = "%d+" % lo if hi < 0 else ("%d" % lo if lo == hi else "%d–%d" % (lo, hi))
        kind = " (aggregate)" if "AGG" in flags else (" (window)" if "WIN" in flags else "")
        if handler != "NULL":
            tr = "custom: `%s` (see below)" % handler[len("weir__fn_"):]
        else:
            t = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', tmpl))
            tr = "`%s`" % t.replace("\\\\", "\\").replace('\\"', '"').replace("|", "\\|")
        rows.append("| `%s`%s | %s | %s |" % (name, kind, args, tr))
    path = os.path.join(ROOT, "docs", "sql.md")
    doc = open(path, encoding="utf-8").read()
    head = "| Spark | args | DuckDB translation |\n|---|---|---|\n"
    i = doc.index(head) + len(head)
    j = doc.index("\n\nCustom translations", i)
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc[:i] + "\n".join(rows) + doc[j:])
    print("wrote %s (%d rows)" % (path, len(rows)))


def differing(entries):
    """The section listing every corpus query whose answer is not Spark's:
    the documented differences (`-- known:`) with their reasons and the
    refused constructs with weir's message."""
    rows = [e for e in entries if e["outcome"] != "match"]
    out = ["", "## Queries that differ", "",
           "Every corpus query whose result is not identical to Spark's, with",
           "the reason (the entry's `-- known:` note) or weir's refusal.", "",
           "| query | outcome | SQL | why |", "|---|---|---|---|"]
    for e in sorted(rows, key=lambda e: (RANK.get(e["outcome"], 4), e["id"])):
        why = e.get("known") or (e["weir"].get("error") or e.get("detail") or "")
        sql = e["sql"].replace("\n", " ")
        sql = sql if len(sql) <= 100 else sql[:97] + "..."
        out.append("| %s | %s | `%s` | %s |" % (
            e["id"], e["outcome"], sql.replace("|", "\\|").replace("`", "'"),
            why.replace("|", "\\|").replace("\n", " ")[:200]))
    if not rows:
        out.append("| (none) | | | |")
    return out


def main():
    if sys.argv[1:] == ["--sql-md"]:
        return sql_md_table()
    res = json.load(open(sys.argv[1], encoding="utf-8"))
    out_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "sql-functions.md")
    spark = {f for f in res["spark_functions"] if re.fullmatch(r"[a-z_][a-z_0-9]*", f)}
    weir = weir_functions()
    per = {}
    for e in res["entries"]:
        fs = used(e["sql"], spark)
        for f in blamed(e, fs):
            per.setdefault(f, []).append(e)
    entries = res["entries"]
    counts = {}
    for e in entries:
        counts[e["outcome"]] = counts.get(e["outcome"], 0) + 1
    lines = [
        "# Spark SQL functions in weir",
        "",
        "Generated by `tests/spark/gen_docs.py` from a run of the Spark differential",
        "tier (`tests/spark/run.sh`): %d corpus queries run on Apache Spark %s and on"
        % (len(entries), res.get("spark_version", "")),
        "weir; %d identical (%.1f%%), %s." % (
            counts.get("match", 0), 100.0 * counts.get("match", 0) / max(len(entries), 1),
            ", ".join("%s %d" % kv for kv in sorted(counts.items()) if kv[0] != "match")),
        "Do not edit by hand: rerun the tier and the script.",
        "",
        "Status: **matches** — every corpus query using the function gives Spark's",
        "column names, types and rows; **differs** — see the note (documented",
        "differences are also in [sql.md](sql.md#known-differences-from-spark));",
        "**refused** — weir raises `UNSUPPORTED_SPARK_SQL` (or 'not supported by",
        "weir') for the use shown; other uses may match;",
        "**not supported** — no translation, weir refuses every call;",
        "**untested** — translated, not yet in the corpus. Operators are in",
        "[sql.md](sql.md).",
        "",
        "| function | status | corpus queries | note |",
        "|---|---|---|---|",
    ]
    summary = {}
    for f in sorted(spark):
        es = per.get(f, [])
        if es:
            worst = max(es, key=lambda e: RANK.get(e["outcome"], 4))
            o = worst["outcome"]
            status = {"match": "matches", "corpus": "matches", "unsupported": "refused"}.get(o, "differs")
            if status == "refused" and any(e["outcome"] == "match" for e in es):
                status = "matches; some uses refused"
            note = ""
            if status == "differs":
                note = worst.get("known") or "%s: `%s`" % (worst.get("detail") or o,
                                                          worst["sql"][:80])
            elif "refused" in status:
                note = (worst["weir"].get("error") or "")[:120]
            n_ok = sum(1 for e in es if e["outcome"] in ("match", "corpus"))
            cq = "%d/%d" % (n_ok, len(es))
        else:
            status = "untested" if f in weir else "not supported"
            note, cq = "", ""
        summary[status] = summary.get(status, 0) + 1
        note = note.replace("|", "\\|").replace("\n", " ")
        lines.append("| `%s` | %s | %s | %s |" % (f, status, cq, note))
    lines[7:7] = ["Functions: " + ", ".join("%s %d" % kv for kv in sorted(summary.items())) + ".", ""]
    lines += differing(entries)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s (%d functions)" % (out_path, len(spark)))


if __name__ == "__main__":
    main()
