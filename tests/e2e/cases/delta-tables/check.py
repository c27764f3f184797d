"""Reads the Delta tables weir stored with the deltalake package (an
independent reader) and checks them:

  check.py TABLE_DIR IDS VERSION [APP=TXN ...] [--where SQL] [/ TABLE_DIR ...]

(IDS below 0: a materialized view of counts n whose sum is -IDS)
for each table (groups separated by "/"): every id of 0..IDS-1 that
passes the filter exactly once, the log's latest version, its history
complete, and the txn versions given. Prints one line a table; exits 1
with a message on a mismatch."""
import os
import sys

import duckdb
from deltalake import DeltaTable


def fail(path, msg):
    print("%s: %s" % (path, msg))
    sys.stdout.flush()
    os._exit(1)


def check(args):
    where = "true"
    if "--where" in args:
        i = args.index("--where")
        where = args[i + 1]
        del args[i:i + 2]
    path, ids, version = args[0], int(args[1]), int(args[2])
    dt = DeltaTable(path)
    con = duckdb.connect()
    con.register("t", dt.to_pyarrow_table())
    if ids < 0:  # a view's rows: SELECT sum(n) over them is -ids
        got = con.execute("SELECT sum(n) FROM t").fetchone()[0]
        if got != -ids:
            fail(path, "sum(n) is %s, expected %d" % (got, -ids))
        ids = 0
    got = con.execute("SELECT count(*), count(DISTINCT %s) FROM t"
                      % ("id" if ids else "k")).fetchone()
    want = con.execute("SELECT count(*), count(*) FROM range(%d) AS r(id) "
                       "WHERE %s" % (ids, where)).fetchone()
    if ids and tuple(got) != tuple(want):
        fail(path, "rows, distinct ids are %s, expected %s"
             % (tuple(got), tuple(want)))
    missing = 0 if not ids else con.execute("SELECT count(*) FROM range(%d) AS r(id) WHERE %s "
                          "AND id NOT IN (SELECT id FROM t)"
                          % (ids, where)).fetchone()[0]
    if missing:
        fail(path, "%d ids missing" % missing)
    if dt.version() != version:
        fail(path, "version is %d, expected %d" % (dt.version(), version))
    versions = sorted(h["version"] for h in dt.history())
    if versions != list(range(version + 1)):
        fail(path, "history versions %s are not 0..%d" % (versions, version))
    for t in args[3:]:
        app, v = t.split("=")
        if dt.transaction_version(app) != int(v):
            fail(path, "txn version of %s is %s, expected %s"
                 % (app, dt.transaction_version(app), v))
    print("%s: %d rows, version %d" % (path, got[0], dt.version()))


group = []
for a in sys.argv[1:] + ["/"]:
    if a == "/":
        check(group)
        group = []
    else:
        group.append(a)
sys.stdout.flush()
os._exit(0)
