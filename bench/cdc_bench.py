#!/usr/bin/env python3
"""AUTO CDC benchmark (issue 17): 1M changes over 100K keys in 10 batches.

  cdc_bench.py --weir PATH --duckscript PATH [--work DIR] [--changes N] [--keys K] [--batches B]

Needs the duckdb module (build-pyenv has it). Each batch is a parquet file
of changes (10% deletes, 5% late: sequence values of the previous batch's
range). weir applies them with an AUTO CDC flow, one `weir run` per batch,
SCD 1 and SCD 2. The floor is a hand-written DuckDB script doing the same
per batch, run by bench/tools/duckscript (a process per batch, as weir's,
that opens the database, runs the script in one transaction and closes
it; "floor-1p" runs every batch in this one Python process instead, so it
pays DuckDB's start-up once, not per batch); the three take each batch in
turn. SCD 1 keeps a
state table of each key's latest sequence and tombstones and MERGEs the
newest change per key into both; SCD 2 logs the changes, continues the
current version of keys whose changes arrive in order and rebuilds the
history of the others from the log. Both give weir's result, which the
bench checks (row count and a digest of the rows). Prints a table and
writes results.json in the work folder.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import time

import duckdb


def gen(folder, changes, keys, batches):
    os.makedirs(folder, exist_ok=True)
    per = changes // batches
    con = duckdb.connect()
    con.execute("SELECT setseed(0.17)")
    for b in range(batches):
        path = os.path.join(folder, "batch-%03d.parquet" % b)
        if os.path.exists(path):
            continue
        con.execute(f"""
            COPY (
              SELECT (hash(r, {b}) % {keys})::BIGINT AS id,
                     CASE WHEN {b} > 0 AND r % 20 = 0
                          THEN 2 * (({b} - 1) * {per} + r) + 1
                          ELSE 2 * ({b} * {per} + r) END AS seq,
                     CASE WHEN r % 10 = 3 THEN 'DELETE' ELSE 'UPSERT' END AS op,
                     'n' || (hash(r, {b}, 'n') % 10)::VARCHAR AS name,
                     (hash(r, {b}, 'v') % 1000)::BIGINT AS v
              FROM range({per}) t(r)
            ) TO '{path}' (FORMAT parquet)""")
    return sorted(os.listdir(folder))


class Weir:
    """weir's side: an AUTO CDC project, one `weir run` per batch."""

    def __init__(self, weir, work, data, scd):
        self.weir, self.data, self.scd = weir, data, scd
        self.proj = os.path.join(work, "weir-scd%d" % scd)
        shutil.rmtree(self.proj, ignore_errors=True)
        os.makedirs(os.path.join(self.proj, "transformations"))
        os.makedirs(os.path.join(self.proj, "landing"))
        with open(os.path.join(self.proj, "spark-pipeline.yml"), "w") as f:
            f.write("name: cdc\nstorage: storage\nlibraries:\n  - glob:\n"
                    "      include: transformations/**\n")
        cols = "COLUMNS * EXCEPT (op)" if scd == 1 else \
            "COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2"
        with open(os.path.join(self.proj, "transformations", "cdc.sql"), "w") as f:
            f.write("CREATE STREAMING TABLE target FLOW AUTO CDC FROM STREAM "
                    "read_files('landing', format => 'parquet') KEYS (id) APPLY AS "
                    "DELETE WHEN op = 'DELETE' SEQUENCE BY seq %s;\n" % cols)

    def batch(self, name):
        shutil.copy(os.path.join(self.data, name),
                    os.path.join(self.proj, "landing", name))
        t0 = time.perf_counter()
        subprocess.run([self.weir, "run", "--quiet"], cwd=self.proj, check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0

    def result(self):
        out = subprocess.run([self.weir, "query", "--format", "csv",
                              RESULT[self.scd]], cwd=self.proj, check=True,
                             capture_output=True, text=True).stdout.splitlines()[1:]
        return digest([line.split(",") for line in out])


SCD1_BATCH = """
CREATE TEMP TABLE b AS SELECT * FROM read_parquet('{path}');
CREATE TEMP TABLE a AS
  SELECT b.* FROM b LEFT JOIN state s ON b.id = s.id
  WHERE s.seq IS NULL OR b.seq > s.seq
  QUALIFY row_number() OVER (PARTITION BY b.id ORDER BY b.seq DESC) = 1;
MERGE INTO target t USING a ON t.id = a.id
  WHEN MATCHED AND a.op = 'DELETE' THEN DELETE
  WHEN MATCHED THEN UPDATE SET seq = a.seq, name = a.name, v = a.v
  WHEN NOT MATCHED AND a.op <> 'DELETE' THEN
    INSERT (id, seq, name, v) VALUES (a.id, a.seq, a.name, a.v);
MERGE INTO state s USING a ON s.id = a.id
  WHEN MATCHED THEN UPDATE SET seq = a.seq, del = a.op = 'DELETE'
  WHEN NOT MATCHED THEN INSERT (id, seq, del) VALUES (a.id, a.seq, a.op = 'DELETE');
"""

# SCD 2 by hand, with the result weir gives: every change of a key is
# logged; a key whose new changes are all newer than its last one continues
# its current version (closes it, appends the new versions); another key's
# history is rebuilt whole from the log, so late changes land in their place.
SCD2_BATCH = """
CREATE TEMP TABLE b AS
  SELECT id, name, v, seq, op = 'DELETE' AS del FROM read_parquet('{path}');
CREATE TEMP TABLE n AS
  SELECT b.*, s.seq AS last FROM b LEFT JOIN state s ON b.id = s.id;
DELETE FROM n USING log l WHERE n.seq <= n.last AND l.id = n.id AND l.seq = n.seq;
CREATE TEMP TABLE k AS
  SELECT id, coalesce(min(seq) > any_value(last), true) AS fast FROM n GROUP BY id;
INSERT INTO log SELECT id, name, v, seq, del FROM n;
CREATE TEMP TABLE o AS
  SELECT t.* FROM target t JOIN k ON t.id = k.id WHERE k.fast AND t.__END_AT IS NULL;
DELETE FROM target t USING k WHERE t.id = k.id AND (NOT k.fast OR t.__END_AT IS NULL);
INSERT INTO target
  WITH c AS (
    SELECT l.* FROM log l JOIN k ON l.id = k.id AND NOT k.fast
    UNION ALL SELECT n.id, n.name, n.v, n.seq, n.del FROM n
      SEMI JOIN (SELECT id FROM k WHERE fast) f ON n.id = f.id
    UNION ALL SELECT id, name, v, __START_AT, false FROM o),
  e AS (SELECT *, lag(del) OVER w AS pdel, lag(name) OVER w AS pname,
               lag(v) OVER w AS pv, lead(seq) OVER w AS nxt
        FROM c WINDOW w AS (PARTITION BY id ORDER BY seq)),
  g AS (SELECT *, sum(CASE WHEN NOT del AND (pdel IS NULL OR pdel
                       OR name IS DISTINCT FROM pname OR v IS DISTINCT FROM pv)
                      THEN 1 ELSE 0 END) OVER (PARTITION BY id ORDER BY seq) AS vid
        FROM e)
  SELECT id, arg_max_null(name, seq), arg_max_null(v, seq), min(seq),
         arg_max_null(nxt, seq)
  FROM g WHERE NOT del GROUP BY id, vid;
MERGE INTO state s USING (SELECT id, max(seq) AS seq, arg_max(del, seq) AS del
                          FROM n GROUP BY id) a ON s.id = a.id
  WHEN MATCHED AND a.seq > s.seq THEN UPDATE SET seq = a.seq, del = a.del
  WHEN NOT MATCHED THEN INSERT VALUES (a.id, a.seq, a.del);
"""

# Both results, compared row by row: equal means the floor did the same work.
RESULT = {1: "SELECT id, seq, name, v FROM target ORDER BY id",
          2: "SELECT id, name, v, __START_AT, __END_AT FROM target "
             "ORDER BY id, __START_AT"}


def digest(rows):
    h = hashlib.sha256()
    for r in rows:
        h.update((",".join("" if x is None else str(x) for x in r) + "\n").encode())
    return len(rows), h.hexdigest()


class Floor:
    """The floor's side. With script_runner (the path of
    bench/tools/duckscript), each batch is a process of its own that opens
    the database, runs the batch's script in one transaction and closes
    it, as each `weir run` is; without it, every batch runs in this Python
    process, which pays DuckDB's start-up once."""

    def __init__(self, work, data, scd, script_runner=None):
        self.data, self.scd, self.runner = data, scd, script_runner
        self.db = os.path.join(work, "floor%s-scd%d.duckdb" % (
            "" if script_runner else "-1p", scd))
        self.script = os.path.join(work, "floor-batch.sql")
        for p in (self.db, self.db + ".wal"):
            if os.path.exists(p):
                os.remove(p)
        con = duckdb.connect(self.db)
        if scd == 1:
            con.execute("CREATE TABLE target (id BIGINT, seq BIGINT, name VARCHAR, v BIGINT);"
                        "CREATE TABLE state (id BIGINT, seq BIGINT, del BOOLEAN)")
        else:
            con.execute("CREATE TABLE target (id BIGINT, name VARCHAR, v BIGINT, "
                        "__START_AT BIGINT, __END_AT BIGINT);"
                        "CREATE TABLE log (id BIGINT, name VARCHAR, v BIGINT, "
                        "seq BIGINT, del BOOLEAN);"
                        "CREATE TABLE state (id BIGINT, seq BIGINT, del BOOLEAN)")
        con.close()

    def batch(self, name):
        sql = (SCD1_BATCH if self.scd == 1 else SCD2_BATCH).format(
            path=os.path.join(self.data, name))
        if self.runner:
            with open(self.script, "w") as f:
                f.write(sql)
            t0 = time.perf_counter()
            subprocess.run([self.runner, self.db, self.script], check=True)
        else:
            t0 = time.perf_counter()
            con = duckdb.connect(self.db)
            con.execute("BEGIN")
            con.execute(sql)
            con.execute("COMMIT")
            con.close()
        return time.perf_counter() - t0

    def result(self):
        con = duckdb.connect(self.db)
        n = digest(con.execute(RESULT[self.scd]).fetchall())
        con.close()
        return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--work", default=os.path.join(os.path.dirname(__file__), "work", "cdc"))
    ap.add_argument("--changes", type=int, default=1_000_000)
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--duckscript", required=True,
                    help="bench/tools/duckscript built against weir's libduckdb")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    data = os.path.join(args.work, "data-%d-%d-%d" % (args.changes, args.keys, args.batches))
    files = gen(data, args.changes, args.keys, args.batches)
    results = {}
    print("%-6s %8s %8s %6s %10s %6s %8s %5s" % (
        "scd", "weir s", "floor s", "ratio", "floor-1p s", "ratio", "rows", "same"))
    for scd in (1, 2):
        # The three sides take each batch in turn, so a drift in the
        # machine's speed touches them alike.
        sides = [Weir(args.weir, args.work, data, scd),
                 Floor(args.work, data, scd, args.duckscript),
                 Floor(args.work, data, scd)]
        times = [[], [], []]
        for name in files:
            for side, t in zip(sides, times):
                t.append(side.batch(name))
        wt, ft, f1 = times
        wn, fn, f1n = (side.result() for side in sides)
        same = wn == fn == f1n
        results["scd%d" % scd] = {"weir_s": wt, "floor_s": ft, "floor_1p_s": f1,
                                  "weir_rows": wn[0], "floor_rows": fn[0],
                                  "same": same}
        print("%-6s %8.2f %8.2f %6.2f %10.2f %6.2f %8d %5s" % (
            "SCD %d" % scd, sum(wt), sum(ft), sum(wt) / sum(ft), sum(f1),
            sum(wt) / sum(f1), wn[0], "yes" if same else "NO"))
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
