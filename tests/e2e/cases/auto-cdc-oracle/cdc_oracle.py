"""Randomised change streams for AUTO CDC and the tables they must give.

  cdc_oracle.py gen STATE DIR BATCH N   append batch BATCH (N changes) as
                                        DIR/batch-BATCH.json; STATE keeps
                                        the full change log (JSON lines)
  cdc_oracle.py scd1 STATE              expected SCD 1 table, CSV
  cdc_oracle.py scd1-inu STATE          expected SCD 1 table with IGNORE
                                        NULL UPDATES and truncates, CSV
  cdc_oracle.py scd2 STATE [TRACKED] [inu]
                                        expected SCD 2 table, CSV; TRACKED
                                        is a comma list (default: name,v);
                                        inu: IGNORE NULL UPDATES
  cdc_oracle.py all STATE               the six tables of the case's
                                        pipeline in one CSV, each row led by
                                        its table (columns tbl, id, seq,
                                        name, v, start_at, end_at)
  cdc_oracle.py query                   the SQL that reads those six tables
                                        from weir in the same shape

Changes have columns id, seq, op ('UPSERT' / 'DELETE' / 'TRUNCATE'), name,
v. The stream is out of order (sequence values jitter around a rising base,
so late changes cross batches) for keys 13 to 25, in order for keys 1 to 12
(their changes in a batch are newer than all before), so one batch mixes
both; it repeats earlier changes exactly (a redelivery: same key and
sequence), deletes keys before their inserts arrive, reuses sequence values
across keys, has NULL names and values, and now and then a truncate. A key
never gets two different changes with one sequence value: with those, the
winner is arbitrary.

Every oracle is computed from the whole change log, in no particular
arrival order: per key, the changes sorted by sequence and applied one by
one, as if they had arrived in order. So the tables must not depend on
how the feed was split into batches or updates (scd1 and scd2 skip
truncates; scd1-inu applies them). They are independent of weir.
"""
import contextlib
import io
import json
import os
import random
import sys

NAMES = ["ada", "bob", "cy", "dee"]
KEYS = 25


def load(state):
    if not os.path.exists(state):
        return []
    with open(state) as f:
        return [json.loads(line) for line in f if line.strip()]


def gen(state, folder, batch, n):
    log = load(state)
    rng = random.Random(1000 + batch)
    used = {(e["id"], e["seq"]) for e in log}
    base = 100 * batch
    out = []
    for _ in range(n):
        if log and rng.random() < 0.07:
            out.append(dict(rng.choice(log)))  # redelivered as it was
            continue
        key = rng.randint(1, KEYS)
        in_order = key <= KEYS // 2
        while True:
            seq = base + (rng.randint(0, 99) if in_order else rng.randint(-250, 120))
            if (key, seq) not in used:
                break
        used.add((key, seq))
        x = rng.random()
        op = "TRUNCATE" if x < 0.015 else "DELETE" if x < 0.22 else "UPSERT"
        e = {"id": key, "seq": seq, "op": op,
             "name": None if rng.random() < 0.2 else rng.choice(NAMES),
             "v": None if rng.random() < 0.15 else rng.randint(0, 3)}
        out.append(e)
        log.append(e)
    rng.shuffle(out)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "batch-%04d.json" % batch)
    with open(path + ".tmp", "w") as f:
        for e in out:
            f.write(json.dumps(e) + "\n")
    os.rename(path + ".tmp", path)
    with open(state, "a") as f:
        for e in out:
            f.write(json.dumps(e) + "\n")


def by_key(log):
    keys = {}
    for e in log:
        if e["op"] != "TRUNCATE":
            keys.setdefault(e["id"], {})[e["seq"]] = e  # repeats are equal
    return {k: [v[s] for s in sorted(v)] for k, v in keys.items()}


def csv(x):
    return "" if x is None else str(x)


def scd1(log):
    print("id,seq,name,v")
    for k, evs in sorted(by_key(log).items()):
        last = evs[-1]
        if last["op"] == "UPSERT":
            print("%d,%d,%s,%s" % (k, last["seq"], csv(last["name"]),
                                   csv(last["v"])))


def scd1_inu(log):
    """In sequence order: a change at or before the last truncate is
    gone; a delete removes the row; an upsert inserts one, or updates the
    row with its values but the NULL ones."""
    truncs = [e["seq"] for e in log if e["op"] == "TRUNCATE"]
    trunc = max(truncs) if truncs else None
    rows = {}  # key -> [seq, name, v]
    for k, evs in by_key(log).items():
        for e in evs:
            if trunc is not None and e["seq"] <= trunc:
                continue
            if e["op"] == "DELETE":
                rows.pop(k, None)
            elif k not in rows:
                rows[k] = [e["seq"], e["name"], e["v"]]
            else:
                row = rows[k]
                row[0] = e["seq"]
                row[1] = e["name"] if e["name"] is not None else row[1]
                row[2] = e["v"] if e["v"] is not None else row[2]
    print("id,seq,name,v")
    for k, (s, name, v) in sorted(rows.items()):
        print("%d,%d,%s,%s" % (k, s, csv(name), csv(v)))


def scd2(log, tracked, inu=False):
    print("id,name,v,__START_AT,__END_AT")
    rows = []
    for k, evs in sorted(by_key(log).items()):
        cur = None  # [start, values]
        for e in evs:
            if e["op"] == "DELETE":
                if cur:
                    rows.append((k, cur[1], cur[0], e["seq"]))
                cur = None
                continue
            vals = {"name": e["name"], "v": e["v"]}
            if inu and cur:  # NULL: the value so far
                vals = {c: cur[1][c] if vals[c] is None else vals[c]
                        for c in vals}
            if cur and all(cur[1][c] == vals[c] for c in tracked):
                cur[1] = vals  # untracked columns change in place
                continue
            if cur:
                rows.append((k, cur[1], cur[0], e["seq"]))
            cur = [e["seq"], vals]
        if cur:
            rows.append((k, cur[1], cur[0], None))
    for k, vals, start, end in sorted(rows, key=lambda r: (r[0], r[2])):
        print("%d,%s,%s,%d,%s" % (k, csv(vals["name"]), csv(vals["v"]), start,
                                  csv(end)))


def rows_of(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue().splitlines()[1:]


def all_tables(state):
    log = load(state)
    tables = {
        "latest": rows_of(scd1, log),
        "latest_inu": rows_of(scd1_inu, log),
        "history": rows_of(scd2, log, ["name", "v"]),
        "names": rows_of(scd2, log, ["name"]),
        "history_inu": rows_of(scd2, log, ["name", "v"], True),
        "names_inu": rows_of(scd2, log, ["name"], True),
    }
    print("tbl,id,seq,name,v,start_at,end_at")
    for t in sorted(tables):
        for line in tables[t]:
            c = line.split(",")
            if t.startswith("latest"):  # id,seq,name,v
                print(",".join([t] + c + ["", ""]))
            else:  # id,name,v,start,end
                print(",".join([t, c[0], ""] + c[1:]))


def query():
    scd1 = ("SELECT '%s' AS tbl, id, seq, name, v, NULL::BIGINT AS start_at, "
            "NULL::BIGINT AS end_at FROM %s")
    scd2 = "SELECT '%s', id, NULL, name, v, __START_AT, __END_AT FROM %s"
    parts = [scd1 % (t, t) for t in ("latest", "latest_inu")]
    parts += [scd2 % (t, t) for t in ("history", "names", "history_inu",
                                       "names_inu")]
    print(" UNION ALL ".join(parts) + " ORDER BY tbl, id, start_at")


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "scd1":
        scd1(load(sys.argv[2]))
    elif cmd == "scd1-inu":
        scd1_inu(load(sys.argv[2]))
    elif cmd == "all":
        all_tables(sys.argv[2])
    elif cmd == "query":
        query()
    elif cmd == "scd2":
        tracked = sys.argv[3].split(",") if len(sys.argv) > 3 else ["name", "v"]
        scd2(load(sys.argv[2]), tracked, sys.argv[4:] == ["inu"])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
