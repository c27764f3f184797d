"""Randomised change streams for AUTO CDC and the tables they must give.

  cdc_oracle.py gen STATE DIR BATCH N   append batch BATCH (N changes) as
                                        DIR/batch-BATCH.json; STATE keeps
                                        the full change log (JSON lines)
  cdc_oracle.py mark STATE              an update applied what came so far
  cdc_oracle.py scd1 STATE              expected SCD 1 table, CSV
  cdc_oracle.py scd1-inu STATE [once]   expected SCD 1 table with IGNORE
                                        NULL UPDATES and truncates, CSV
                                        (once: the whole log in one update)
  cdc_oracle.py scd2 STATE [TRACKED] [inu]
                                        expected SCD 2 table, CSV; TRACKED
                                        is a comma list (default: name,v);
                                        inu: IGNORE NULL UPDATES
  cdc_oracle.py all STATE [once]        the six tables of the case's
                                        pipeline in one CSV, each row led by
                                        its table (columns tbl, id, seq,
                                        name, v, start_at, end_at)

Changes have columns id, seq, op ('UPSERT' / 'DELETE' / 'TRUNCATE'), name,
v. The stream is out of order (sequence values jitter around a rising base,
so late changes cross batches) for keys 13 to 25, in order for keys 1 to 12
(their changes in a batch are newer than all before), so one batch mixes
both; it repeats earlier changes exactly (a redelivery: same key and
sequence), deletes keys before their inserts arrive, reuses sequence values
across keys, has NULL names and values, and now and then a truncate. A key
never gets two different changes with one sequence value: with those, the
winner is arbitrary.

The oracles scd1 and scd2 (which skip truncates) are computed from the
whole change log, in no particular arrival order: per key, the changes
sorted by sequence. SCD 1 with IGNORE NULL UPDATES depends on arrival (a
late change is ignored, even where it has a value the newer one lacks), so
scd1-inu replays the updates as marked. Both are independent of weir.
"""
import contextlib
import io
import json
import os
import random
import sys

NAMES = ["ada", "bob", "cy", "dee"]
KEYS = 25


def load_all(state):
    if not os.path.exists(state):
        return []
    with open(state) as f:
        return [json.loads(line) for line in f if line.strip()]


def load(state):
    return [e for e in load_all(state) if "mark" not in e]


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


def scd1_inu(entries):
    """Replays the updates: a change not newer than its key's last applied
    change or than the last truncate is ignored; a truncate removes the
    rows whose last change is not newer; an update with NULLs keeps the
    row's values; a delete clears them."""
    updates, cur = [], []
    for e in entries:
        if "mark" in e:
            updates.append(cur)
            cur = []
        else:
            cur.append(e)
    last, rows, trunc = {}, {}, None  # key -> seq; key -> [seq, name, v]
    for batch in updates:
        truncs = [e["seq"] for e in batch if e["op"] == "TRUNCATE"]
        if truncs:
            trunc = max(truncs + ([trunc] if trunc is not None else []))
            for k in [k for k, s in last.items() if s <= trunc]:
                del last[k]
                rows.pop(k, None)
        seen = {}
        for e in batch:
            if e["op"] != "TRUNCATE":
                seen[(e["id"], e["seq"])] = e
        for (k, s), e in sorted(seen.items()):
            if (k in last and s <= last[k]) or (trunc is not None and s <= trunc):
                continue
            last[k] = s
            if e["op"] == "DELETE":
                rows.pop(k, None)
            elif k not in rows:
                rows[k] = [s, e["name"], e["v"]]
            else:
                row = rows[k]
                row[0] = s
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


def all_tables(state, once):
    log, entries = load(state), load_all(state)
    if once:
        entries = log + [{"mark": True}]
    tables = {
        "latest": rows_of(scd1, log),
        "latest_inu": rows_of(scd1_inu, entries),
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


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "mark":
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"mark": True}) + "\n")
    elif cmd == "scd1":
        scd1(load(sys.argv[2]))
    elif cmd == "scd1-inu":
        entries = load_all(sys.argv[2])
        if sys.argv[3:] == ["once"]:
            entries = [e for e in entries if "mark" not in e] + [{"mark": True}]
        scd1_inu(entries)
    elif cmd == "all":
        all_tables(sys.argv[2], sys.argv[3:] == ["once"])
    elif cmd == "scd2":
        tracked = sys.argv[3].split(",") if len(sys.argv) > 3 else ["name", "v"]
        scd2(load(sys.argv[2]), tracked, sys.argv[4:] == ["inu"])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
