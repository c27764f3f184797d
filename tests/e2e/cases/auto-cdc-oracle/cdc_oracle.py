"""Randomised change streams for AUTO CDC and the tables they must give.

  cdc_oracle.py gen STATE DIR BATCH N   append batch BATCH (N changes) as
                                        DIR/batch-BATCH.json; STATE keeps
                                        the full change log (JSON lines)
  cdc_oracle.py scd1 STATE              expected SCD 1 table, CSV
  cdc_oracle.py scd2 STATE [TRACKED]    expected SCD 2 table, CSV; TRACKED
                                        is a comma list (default: name,v)

Changes have columns id, seq, op ('UPSERT' / 'DELETE'), name, v. The
stream is out of order (sequence values jitter around a rising base, so
late changes cross batches), repeats earlier changes exactly (a redelivery:
same key and sequence), deletes keys before their inserts arrive, and
reuses sequence values across keys. A key never gets two different
changes with one sequence value: with those, the winner is arbitrary.

The oracle is computed from the whole change log, in no particular arrival
order: per key, the changes sorted by sequence. It is independent of weir.
"""
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
    base = 10 * batch
    out = []
    for _ in range(n):
        if log and rng.random() < 0.07:
            out.append(dict(rng.choice(log)))  # redelivered as it was
            continue
        key = rng.randint(1, KEYS)
        while True:
            seq = base + rng.randint(-25, 12)
            if (key, seq) not in used:
                break
        used.add((key, seq))
        op = "DELETE" if rng.random() < 0.22 else "UPSERT"
        e = {"id": key, "seq": seq, "op": op, "name": rng.choice(NAMES),
             "v": rng.randint(0, 3)}
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
        keys.setdefault(e["id"], {})[e["seq"]] = e  # repeats are equal
    return {k: [v[s] for s in sorted(v)] for k, v in keys.items()}


def scd1(log):
    print("id,seq,name,v")
    for k, evs in sorted(by_key(log).items()):
        last = evs[-1]
        if last["op"] == "UPSERT":
            print("%d,%d,%s,%d" % (k, last["seq"], last["name"], last["v"]))


def scd2(log, tracked):
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
            if cur and all(cur[1][c] == vals[c] for c in tracked):
                cur[1] = vals  # untracked columns change in place
                continue
            if cur:
                rows.append((k, cur[1], cur[0], e["seq"]))
            cur = [e["seq"], vals]
        if cur:
            rows.append((k, cur[1], cur[0], None))
    for k, vals, start, end in sorted(rows, key=lambda r: (r[0], r[2])):
        print("%d,%s,%d,%d,%s" % (k, vals["name"], vals["v"], start,
                                  "" if end is None else end))


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "scd1":
        scd1(load(sys.argv[2]))
    elif cmd == "scd2":
        tracked = sys.argv[3].split(",") if len(sys.argv) > 3 else ["name", "v"]
        scd2(load(sys.argv[2]), tracked)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
