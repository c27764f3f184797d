"""Independent check of a sink's output, shared by the sink-* e2e cases
(this folder has no case.sh, so it is not a case itself).

  check.py FORMAT PATH --ids N [--copies K] [options]

Reads PATH with stock DuckDB (parquet, json, csv folders) or the deltalake
package (delta), and checks that the ids 0..N-1 are there exactly K times
each (default once), that the folder holds only published batch files
(part-<hash>-g<gen>-b<batch>-<i>.<ext>, no temporary or staging files),
and for delta the table's schema, partition columns, version, history
and txn. Prints one summary line; exits 1 with a message on a mismatch.
"""
import argparse
import os
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("format", choices=["delta", "parquet", "json", "csv"])
ap.add_argument("path")
ap.add_argument("--ids", type=int, required=True)
ap.add_argument("--copies", type=int, default=1)
ap.add_argument("--header", action="store_true")
ap.add_argument("--sep", default=",")
ap.add_argument("--ext", default=None)
ap.add_argument("--schema", help="delta: name:type,... in order")
ap.add_argument("--partitions", default="", help="delta: a,b")
ap.add_argument("--version", type=int, help="delta: latest version")
ap.add_argument("--txn", action="append", default=[], help="delta: APP=V")
ap.add_argument("--null-column", action="append", default=[],
                help="delta: COL=N, N rows have COL null")
a = ap.parse_args()


def fail(msg):
    print("check %s %s: %s" % (a.format, a.path, msg))
    sys.stdout.flush()
    os._exit(1)


NAME = re.compile(r"^part-[0-9a-f]{16}-g\d+-b\d+-\d+\.[a-z.]+$")


def check_files(root, ext):
    n = 0
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel.startswith("_delta_log"):
            continue
        for x in dirs:
            if x.startswith("_weir_stage") or x.startswith("."):
                fail("staging folder left behind: %s/%s" % (rel, x))
        for f in files:
            if not NAME.match(f) or not f.endswith(ext):
                fail("unexpected file %s/%s" % (rel, f))
            n += 1
    return n


def check_ids(con, rel):
    row = con.execute(
        "SELECT count(*), count(DISTINCT id), min(id), max(id), "
        "max(c) FROM (SELECT id, count(*) OVER (PARTITION BY id) AS c "
        "FROM %s)" % rel).fetchone()
    want = (a.ids * a.copies, a.ids, 0 if a.ids else None,
            a.ids - 1 if a.ids else None, a.copies if a.ids else None)
    if tuple(row) != want:
        fail("rows, distinct ids, min, max, copies are %s, expected %s"
             % (tuple(row), want))


import duckdb  # noqa: E402

con = duckdb.connect()
if a.format == "delta":
    from deltalake import DeltaTable

    dt = DeltaTable(a.path)
    files = check_files(a.path, ".parquet")
    active = dt.file_uris()
    for f in active:
        if not os.path.exists(f[7:] if f.startswith("file://") else f):
            fail("active file %s is missing" % f)
    tab = dt.to_pyarrow_table()
    con.register("t", tab)
    check_ids(con, "t")
    if a.schema:
        got = ",".join("%s:%s" % (f.name, getattr(f.type, "type", f.type))
                       for f in dt.schema().fields)
        if got != a.schema:
            fail("schema is %s, expected %s" % (got, a.schema))
    parts = ",".join(dt.metadata().partition_columns)
    if parts != a.partitions:
        fail("partition columns are '%s', expected '%s'" % (parts, a.partitions))
    hist = dt.history()
    versions = sorted(h["version"] for h in hist)
    if versions != list(range(dt.version() + 1)):
        fail("history versions %s are not 0..%d" % (versions, dt.version()))
    for h in hist:
        if h.get("operation") != "STREAMING UPDATE" and h["version"] == 0:
            fail("version 0 is a %s" % h.get("operation"))
    if a.version is not None and dt.version() != a.version:
        fail("version is %d, expected %d" % (dt.version(), a.version))
    for t in a.txn:
        app, v = t.split("=")
        got = dt.transaction_version(app)
        if got != int(v):
            fail("txn version of %s is %s, expected %s" % (app, got, v))
    for nc in a.null_column:
        col, n = nc.split("=")
        got = con.execute('SELECT count(*) FROM t WHERE "%s" IS NULL' % col).fetchone()[0]
        if got != int(n):
            fail("%d rows have %s null, expected %s" % (got, col, n))
    print("%s: %d rows, %d active files, version %d" %
          (a.path, tab.num_rows, len(active), dt.version()))
else:
    ext = a.ext or "." + a.format
    files = check_files(a.path, ext)
    glob = "'%s/**/*%s'" % (a.path, ext)
    if a.format == "parquet":
        rel = "read_parquet(%s, hive_partitioning = true)" % glob
    elif a.format == "json":
        rel = "read_json(%s, format = 'newline_delimited')" % glob
    else:
        rel = ("read_csv(%s, header = %s, sep = '%s', hive_partitioning = true)"
               % (glob, "true" if a.header else "false", a.sep))
        if not a.header:
            rel = "(SELECT column0 AS id FROM %s)" % rel
    if a.ids:
        check_ids(con, rel)
    print("%s: %d files" % (a.path, files))
sys.stdout.flush()
os._exit(0)
