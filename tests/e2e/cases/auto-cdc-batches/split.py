"""A change feed, and ways to split it into batches.

  split.py gen FEED N        write N random changes to FEED (JSON lines,
                             the columns of auto-cdc-oracle's feeds)
  split.py FEED SEED DIR     write DIR/batch-0001.json, ... (JSON lines)

The feed: 30 keys, sequences unique per key (shared across keys),
upserts with NULL names or values a third of the time, deletes, one
truncate early on (a later one would leave little to compare), and a
tenth of the changes delivered twice.

Seed 0: the whole feed in one batch. Seed 1: five batches, newest
sequences first (every key's changes arrive late). Other seeds: the feed
shuffled and cut at random into 2 to 8 batches.
"""
import json
import os
import random
import sys

NAMES = ["ada", "bob", "cy", "dee"]

def gen(feed, n):
    rng = random.Random(7)
    used, out = set(), []
    for i in range(n):
        key = rng.randint(1, 30)
        while True:
            seq = rng.randint(1, 10 * n)
            if (key, seq) not in used:
                break
        used.add((key, seq))
        op = "DELETE" if rng.random() < 0.15 else "UPSERT"
        out.append({"id": key, "seq": seq, "op": op,
                    "name": None if rng.random() < 0.35 else rng.choice(NAMES),
                    "v": None if rng.random() < 0.35 else rng.randint(0, 9)})
    out.append({"id": 0, "seq": 2 * n, "op": "TRUNCATE", "name": None,
                "v": None})
    out += [dict(rng.choice(out)) for _ in range(n // 10)]
    with open(feed, "w") as f:
        for e in out:
            f.write(json.dumps(e) + "\n")


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]))
        return
    feed, seed, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(feed) as f:
        changes = [json.loads(line) for line in f if line.strip()]
    if seed == 0:
        parts = [changes]
    elif seed == 1:
        changes = sorted(changes, key=lambda e: -e["seq"])
        n = (len(changes) + 4) // 5
        parts = [changes[i:i + n] for i in range(0, len(changes), n)]
    else:
        rng = random.Random(seed)
        changes = list(changes)
        rng.shuffle(changes)
        k = rng.randint(2, 8)
        cuts = sorted(rng.sample(range(1, len(changes)), k - 1))
        parts = [changes[a:b] for a, b in zip([0] + cuts, cuts + [len(changes)])]
    os.makedirs(folder, exist_ok=True)
    for i, part in enumerate(parts):
        with open(os.path.join(folder, "batch-%04d.json" % (i + 1)), "w") as f:
            for e in part:
                f.write(json.dumps(e) + "\n")


if __name__ == "__main__":
    main()
