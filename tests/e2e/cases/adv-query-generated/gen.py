"""Generated `weir query` statements against a model (adv-query-generated).

From a fixed seed, builds batches of statements: writes to the user's own
tables (t0..t3) whose effect a Python model predicts, self-reads (INSERT
OVERWRITE t SELECT ... FROM t), reads of weir's state, and at the end of
most batches one statement that must fail without changing anything: a
failing write, a write to weir's state spelled some way (USE, one-, two-
and three-part names, quoting, case), a change to a pipeline dataset, or a
DuckDB statement that reaches past the catalogs. The CLI stops a batch at
its first failure and keeps the statements before it, as the model does.

At the end it checks, with stock DuckDB reading the storage files: every
user table equals the model (0 rows lost or added), and weir's own state
(the weir catalog, the _weir schemas, the catalog files) and the pipeline's
datasets are exactly as they were before.

usage: python gen.py WEIR SEED   (in a project folder after `weir run`)
"""
import os
import random
import subprocess
import sys

import duckdb

WEIR, SEED = sys.argv[1], int(sys.argv[2])
STORAGE = "pipeline-storage"
TABLES = ["t0", "t1", "t2", "t3"]
# 40 weir query invocations in the full version (heavy/adv-query-generated),
# 15 in the default suite.
BATCHES = 40 if os.environ.get("WEIR_E2E_HEAVY") == "1" else 15
SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:")

rng = random.Random(SEED)
model = {t: list(range(k * 10, k * 10 + 100)) for k, t in enumerate(TABLES)}


def weir_query(sql):
    p = subprocess.run([WEIR, "query", "--format", "csv", "-"], input=sql,
                       capture_output=True, text=True, timeout=120)
    for s in SANITIZER:
        if s in p.stderr:
            sys.exit("sanitizer report for:\n%s\n%s" % (sql, p.stderr))
    return p


# ---- the user's tables: statements and their effect on the model --------

def spell(t):
    """One of the ways to name a user table (all resolve to default.t)."""
    return rng.choice([t, t.upper(), "`%s`" % t, "default.%s" % t,
                       "spark_catalog.default.%s" % t,
                       "`spark_catalog`.`default`.`%s`" % t, "DEFAULT.%s" % t])


def keep(m, r, v):
    return v % m == r


def good_write():
    t = rng.choice(TABLES)
    src = rng.choice(TABLES)
    m, r, c = rng.randint(2, 7), rng.randint(0, 1), rng.randint(1, 500)
    big = len(model[t]) > 400
    if big:
        kind = rng.choice(["delete", "overwrite_self"])
    else:
        kind = rng.choices(["insert", "insert_values", "delete", "update",
                            "overwrite_self", "overwrite_other", "truncate"],
                           [5, 2, 1, 2, 3, 1, 0.3])[0]
    T = spell(t)
    if kind == "insert":
        new = [v + c for v in model[src] if not keep(m, r, v)]
        model[t] = model[t] + new
        return "INSERT INTO %s SELECT id + %d FROM %s WHERE id %% %d <> %d" % (
            T, c, spell(src), m, r)
    if kind == "insert_values":
        vals = [rng.randint(0, 10000) for _ in range(rng.randint(1, 4))]
        model[t] = model[t] + vals
        return "INSERT INTO TABLE %s VALUES %s" % (
            T, ", ".join("(%d)" % v for v in vals))
    if kind == "delete":
        model[t] = [v for v in model[t] if not keep(m, r, v)]
        return "DELETE FROM %s WHERE id %% %d = %d" % (T, m, r)
    if kind == "update":
        model[t] = [v + c if keep(m, r, v) else v for v in model[t]]
        return "UPDATE %s SET id = id + %d WHERE id %% %d = %d" % (T, c, m, r)
    if kind == "overwrite_self":
        model[t] = [(v * 3 + c) % 100003 for v in model[t] if not keep(m, r, v)]
        return ("INSERT OVERWRITE %s SELECT (id * 3 + %d) %% 100003 FROM %s "
                "WHERE id %% %d <> %d" % (T, c, spell(t), m, r))
    if kind == "overwrite_other":
        model[t] = [v + c for v in model[src]]
        return "INSERT OVERWRITE TABLE %s (id) SELECT id + %d FROM %s" % (
            T, c, spell(src))
    model[t] = []
    return "TRUNCATE TABLE %s" % T


def good_read():
    return rng.choice([
        "SELECT count(*) AS n FROM weir.event_log",
        "SELECT count(*) AS n FROM weir.updates",
        "SELECT * FROM weir.catalogs",
        "SELECT count(*) AS n FROM spark_catalog._weir.checkpoints",
        "SELECT count(*) AS n FROM event_log()",
        "SELECT count(*) AS n FROM orders_silver",
        "SELECT * FROM daily_revenue ORDER BY order_date LIMIT 2",
    ])


def failing_write():
    """A write that fails (parse, bind or run time): nothing changes. The
    run-time failures are picked only when some row of the model makes them
    fail."""
    name = rng.choice(TABLES)
    rows = model[name]
    t = spell(name)
    choices = [
        "INSERT OVERWRITE %s SELECT nosuch FROM %s" % (t, t),
        "INSERT INTO %s SELECT id, id FROM %s" % (t, t),
        "ALTER TABLE %s ADD COLUMNS (extra INT, id INT)" % t,
        "INSERT OVERWRITE %s SELECT id FROM no_such_table" % t,
        "INSERT INTO %s VALUES (1), ('not a number')" % t,
    ]
    if rows:
        choices += [
            "INSERT OVERWRITE %s SELECT id + CAST('x' AS INT) FROM %s" % (t, t),
            "INSERT INTO %s SELECT CAST(concat('x', id) AS INT) FROM %s" % (t, t),
            "UPDATE %s SET id = CAST(concat('y', id) AS INT)" % t,
            "DELETE FROM %s WHERE CAST(concat('z', id) AS INT) > 0" % t,
        ]
    if any(v % 5 == 4 for v in rows):
        choices.append(
            "INSERT OVERWRITE %s SELECT CAST(CASE WHEN id %% 5 = 4 THEN 'x' "
            "ELSE CAST(id AS STRING) END AS INT) FROM %s" % (t, t))
    return rng.choice(choices)


# ---- guarded names -------------------------------------------------------

WEIR_TABLES = {"event_log": "level", "updates": "state", "meta": "value",
               "catalogs": "alias"}
STATE_TABLES = {"checkpoints": "flow", "files": "path", "flow_state": "flow",
                "tables": "name", "file_schemas": "source",
                "sink_batches": "state"}
DATASETS = {"orders_bronze": "status", "orders_silver": "status",
            "daily_revenue": "orders"}


def case(s):
    return rng.choice([s, s.upper(), s.capitalize()])


def quote(s):
    return rng.choice([s, "`%s`" % s, case(s)])


def state_name():
    """(prefix statements, name) reaching weir's state."""
    if rng.random() < 0.5:
        t = rng.choice(list(WEIR_TABLES))
        col = WEIR_TABLES[t]
        prefix, name = rng.choice([
            ("", "%s.%s" % (quote("weir"), quote(t))),
            ("", "%s.%s.%s" % (quote("weir"), quote("main"), quote(t))),
            ("USE %s; " % quote("weir"), quote(t)),
            ("USE CATALOG %s; " % quote("weir"), quote(t)),
            ("USE %s.%s; " % (quote("weir"), quote("main")), quote(t)),
            ("USE default; ", "%s.%s" % (quote("weir"), quote(t))),
        ])
    else:
        t = rng.choice(list(STATE_TABLES))
        col = STATE_TABLES[t]
        prefix, name = rng.choice([
            ("", "%s.%s.%s" % (quote("spark_catalog"), quote("_weir"), quote(t))),
            ("USE spark_catalog; ", "%s.%s" % (quote("_weir"), quote(t))),
            ("USE %s; " % quote("spark_catalog"), "%s.%s" % (quote("_weir"), quote(t))),
            ("USE spark_catalog._weir; ", quote(t)),
            ("USE SCHEMA %s; " % quote("_weir"), quote(t)),
            ("", "%s.%s" % (quote("_weir"), quote(t))),
        ])
    return prefix, name, col


def dataset_name():
    t = rng.choice(list(DATASETS))
    prefix, name = rng.choice([
        ("", quote(t)), ("", "default.%s" % quote(t)),
        ("", "%s.%s.%s" % (quote("spark_catalog"), quote("default"), quote(t))),
        ("USE spark_catalog.default; ", quote(t)),
        ("USE spark_catalog; ", "default.%s" % quote(t)),
    ])
    return prefix, name, DATASETS[t]


def change(name, col):
    return rng.choice([
        "DELETE FROM %s" % name,
        "DELETE FROM %s WHERE true" % name,
        "UPDATE %s SET %s = %s" % (name, col, col),
        "DROP TABLE %s" % name,
        "DROP TABLE IF EXISTS %s" % name,
        "TRUNCATE TABLE %s" % name,
        "INSERT INTO %s SELECT * FROM %s" % (name, name),
        "INSERT OVERWRITE %s SELECT * FROM %s" % (name, name),
        "INSERT OVERWRITE %s SELECT * FROM %s WHERE false" % (name, name),
        "CREATE OR REPLACE TABLE %s AS SELECT 1 AS a" % name,
        "CREATE OR REPLACE VIEW %s AS SELECT 1 AS a" % name,
        "ALTER TABLE %s ADD COLUMNS (zz INT)" % name,
    ])


OUTSIDE = [
    "ATTACH 'other.duckdb' AS other", "DETACH weir", "DETACH spark_catalog",
    "INSTALL httpfs", "LOAD httpfs", "FORCE INSTALL httpfs",
    "PRAGMA enable_profiling", "COPY weir.catalogs TO 'x.csv'",
    "COPY FROM DATABASE weir TO spark_catalog", "EXPORT DATABASE 'exported'",
    "IMPORT DATABASE 'exported'", "CALL checkpoint()", "CHECKPOINT weir",
    "VACUUM", "RESET search_path", "BEGIN TRANSACTION", "COMMIT", "ROLLBACK",
    "PREPARE p AS DELETE FROM weir.catalogs",
]


def refused():
    """(statement, expected error class)."""
    k = rng.random()
    if k < 0.55:
        prefix, name, col = state_name()
        return prefix + change(name, col), "PIPELINE_STATE_READ_ONLY"
    if k < 0.8:
        prefix, name, col = dataset_name()
        return prefix + change(name, col), "PIPELINE_DATASET_READ_ONLY"
    return rng.choice(OUTSIDE), "PIPELINE_STATEMENT_NOT_ALLOWED"


# ---- what must not change ------------------------------------------------

def state_fingerprint():
    """weir's state and the pipeline's datasets, read with stock DuckDB."""
    files = sorted(f for f in os.listdir(STORAGE) if f.endswith(".duckdb"))
    con = duckdb.connect()
    out = ["files " + " ".join(files)]
    for f in files:
        alias = "s_" + f[:-len(".duckdb")]
        con.execute("ATTACH '%s/%s' AS %s (READ_ONLY)" % (STORAGE, f, alias))
        rows = con.execute(
            "SELECT schema_name, table_name, sql FROM duckdb_tables() WHERE "
            "database_name = ? AND (schema_name = '_weir' OR ? = 's_weir' OR "
            "table_name IN ('orders_bronze', 'orders_silver', 'daily_revenue'))"
            " ORDER BY ALL", [alias, alias]).fetchall()
        for schema, table, ddl in rows:
            n, h = con.execute(
                'SELECT count(*), coalesce(sum(hash(r)::HUGEINT), 0) FROM '
                '"%s"."%s"."%s" AS r' % (alias, schema, table)).fetchone()
            out.append("%s.%s.%s %s %d %d" % (f, schema, table, ddl, n, h))
        out.append("%s objects %s" % (f, con.execute(
            "SELECT list(view_name ORDER BY view_name) FROM duckdb_views() "
            "WHERE database_name = ? AND NOT internal", [alias]).fetchone()[0]))
    con.close()
    return out


def user_tables():
    p = weir_query(" UNION ALL ".join(
        "SELECT '%s' AS t, id FROM %s" % (t, t) for t in TABLES))
    if p.returncode:
        sys.exit("reading the tables failed: %s" % p.stderr)
    got = {t: [] for t in TABLES}
    for line in p.stdout.splitlines()[1:]:
        t, v = line.split(",")
        got[t].append(int(v))
    return got


def main():
    p = weir_query("".join("CREATE TABLE %s AS SELECT id FROM range(%d, %d);\n"
                           % (t, k * 10, k * 10 + 100)
                           for k, t in enumerate(TABLES)))
    if p.returncode:
        sys.exit("setup failed: %s" % p.stderr)
    before = state_fingerprint()
    counts = {"good": 0, "read": 0, "failing": 0, "refused": 0}
    total = 0
    log = []
    for b in range(BATCHES):
        stmts = []
        for _ in range(rng.randint(3, 6)):
            if rng.random() < 0.3:
                stmts.append(good_read())
                counts["read"] += 1
            else:
                stmts.append(good_write())
                counts["good"] += 1
        want = None
        if b % 9 != 8:
            if rng.random() < 0.3:
                stmts.append(failing_write())
                want = ""
                counts["failing"] += 1
            else:
                s, want = refused()
                stmts.append(s)
                counts["refused"] += 1
        sql = ";\n".join(stmts)
        total += sql.count(";") + 1
        log.append(sql)
        p = weir_query(sql)
        if want is None and p.returncode != 0:
            sys.exit("batch %d failed (exit %d):\n%s\n%s" % (
                b, p.returncode, sql, p.stderr))
        if want is not None and p.returncode == 0:
            sys.exit("batch %d: the last statement should have failed:\n%s"
                     % (b, sql))
        if want and "[%s]" % want not in p.stderr:
            sys.exit("batch %d: expected [%s]:\n%s\n%s" % (b, want, sql,
                                                           p.stderr))
    got = user_tables()
    for t in TABLES:
        if sorted(got[t]) != sorted(model[t]):
            lost = len(set(model[t]) - set(got[t]))
            sys.exit("%s differs from the model: %d rows, expected %d (%d "
                     "values missing)\nbatches:\n%s" % (
                         t, len(got[t]), len(model[t]), lost,
                         "\n--\n".join(log)))
    after = state_fingerprint()
    if after != before:
        diff = [l for l in after if l not in before] + \
               ["(was) " + l for l in before if l not in after]
        sys.exit("weir's state changed:\n" + "\n".join(diff))
    for f in ("other.duckdb", "x.csv", "exported"):
        if os.path.exists(f):
            sys.exit("%s was created" % f)
    print("%d statements in %d invocations (%s); user tables %s rows; "
          "weir's state unchanged" % (
              total, BATCHES, ", ".join("%s %d" % kv for kv in counts.items()),
              "/".join(str(len(model[t])) for t in TABLES)))


main()
