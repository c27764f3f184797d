#!/usr/bin/env python3
"""Run a list of SQL statements on a DuckDB database file and time them.

  duckdb_script.py DB STATEMENTS.json

STATEMENTS.json is a JSON array of strings, executed in order, each in
its own autocommit transaction. Timing covers connect + statements +
close (the WAL checkpoint), not the Python start or `import duckdb`.
Prints {"total": seconds, "statements": n}.
"""
import json
import sys
import time


def main():
    db, path = sys.argv[1], sys.argv[2]
    stmts = json.load(open(path))
    import duckdb  # noqa: E402  (not timed)
    t0 = time.perf_counter()
    con = duckdb.connect(db)
    for s in stmts:
        con.execute(s)
    con.close()
    print(json.dumps({"total": time.perf_counter() - t0, "statements": len(stmts)}))


if __name__ == "__main__":
    main()
