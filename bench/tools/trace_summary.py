#!/usr/bin/env python3
"""Summarise a sqltrace log (bench/tools/sqltrace.c): time per kind of
statement, and how the run's wall time splits into DuckDB calls and the
rest (weir's own code, thread start, waiting).

  trace_summary.py TRACE.tsv [--top N]

Kinds: data (the flows' own INSERT/CREATE ... AS and the MV row count),
checkpoint (reads and writes of _weir.* tables), txn (BEGIN/COMMIT),
events (event_log / updates writes), setup (open, session SQL, ATTACH,
schemas, catalog reads), analysis (prepare: schema inference of every flow).
"""
import collections
import re
import sys


def kind(fn, sql):
    s = sql.lstrip()
    if fn == "prepare":
        return "analysis (prepare)"
    if fn in ("open", "connect", "disconnect", "close"):
        return "setup (open/connect/close)"
    if s.startswith(("BEGIN", "COMMIT", "ROLLBACK")):
        return "txn " + s.split()[0]
    if "event_log" in s or "weir.main.updates" in s:
        return "events"
    if "_weir." in s:
        return "checkpoint/_weir tables"
    if s.startswith(("SET", "ATTACH", "CREATE SCHEMA", "CREATE TABLE IF NOT EXISTS")) \
            or "duckdb_columns()" in s or "duckdb_tables()" in s:
        return "setup (session, attach, catalog)"
    if s.startswith(("CREATE TABLE", "DROP TABLE \"spark")):
        return "materialize (CREATE TABLE)"
    if s.startswith("SELECT count(*) FROM") or s.startswith("SELECT coalesce(max(rowid)"):
        return "row counts"
    if "__weir_batch" in s or s.startswith("SELECT count(*), count_if"):
        return "data (expectations)"
    return "data"


def main():
    path = sys.argv[1]
    rows, total_line = [], None
    for line in open(path):
        if line.startswith("#total"):
            total_line = line.split("\t")
            continue
        p = line.rstrip("\n").split("\t")
        if len(p) < 5:
            continue
        rows.append((float(p[0]), float(p[1]), p[2], p[3], p[4]))
    agg = collections.defaultdict(lambda: [0, 0.0])
    for st, d, tid, fn, sql in rows:
        k = kind(fn, sql)
        agg[k][0] += 1
        agg[k][1] += d
    wall = float(total_line[3].split()[0]) if total_line else max(r[0] + r[1] for r in rows)
    # wall-clock union of the intervals in which some DuckDB call ran
    iv = sorted((st, st + d) for st, d, *_ in rows)
    union, cur_s, cur_e = 0.0, None, None
    for s, e in iv:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                union += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        union += cur_e - cur_s
    print("wall since the shim loaded: %8.1f ms" % (wall / 1000))
    print("  some DuckDB call running: %8.1f ms" % (union / 1000))
    print("  no DuckDB call running:   %8.1f ms  (weir's own code, process exit, threads)"
          % ((wall - union) / 1000))
    print("calls: %d on %d threads; summed call time %.1f ms" % (
        len(rows), len(set(r[2] for r in rows)), sum(r[1] for r in rows) / 1000))
    print()
    print("%-36s %6s %10s %9s" % ("kind", "calls", "sum ms", "mean ms"))
    for k, (n, t) in sorted(agg.items(), key=lambda x: -x[1][1]):
        print("%-36s %6d %10.1f %9.2f" % (k, n, t / 1000, t / 1000 / n))
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
    if top:
        print()
        for st, d, tid, fn, sql in sorted(rows, key=lambda r: -r[1])[:top]:
            print("%8.1f ms  %s %s" % (d / 1000, fn, re.sub(r"\s+", " ", sql)[:150]))


if __name__ == "__main__":
    main()
