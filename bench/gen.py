#!/usr/bin/env python3
"""Deterministic data generator for weir's benchmarks and stress tests.

  gen.py orders   DIR ROWS [--files N] [--format json|csv] [--start K] [--seed S]
  gen.py customers DIR ROWS [--format json|csv]
  gen.py events   DIR ROWS [--files N]

Writes ROWS rows split over N files named part-<start+i>.<ext>. The same
arguments always produce the same bytes. About 1% of orders are dirty
(negative or missing amount) so expectations have work to do.
"""
import argparse
import json
import os
import random

STATUSES = ["placed", "shipped", "delivered", "returned", "cancelled"]
COUNTRIES = ["NL", "DE", "FR", "US", "GB", "SE", "ES", "IT", "JP", "BR"]


def order(rng, i, customers):
    amount = round(rng.uniform(1, 500), 2)
    r = rng.random()
    if r < 0.005:
        amount = -amount
    elif r < 0.01:
        amount = None
    day = 1 + (i * 7919) % 365
    sec = (i * 104729) % 86400
    ts = "2025-%02d-%02dT%02d:%02d:%02d" % (
        1 + (day - 1) // 31 % 12, 1 + (day - 1) % 28,
        sec // 3600, sec // 60 % 60, sec % 60)
    return {
        "order_id": i,
        "customer_id": 1 + rng.randrange(customers),
        "amount": amount,
        "order_ts": ts,
        "status": STATUSES[rng.randrange(len(STATUSES))],
    }


def write_rows(path, rows, fmt, columns):
    with open(path + ".tmp", "w") as f:
        if fmt == "csv":
            f.write(",".join(columns) + "\n")
            for r in rows:
                f.write(",".join("" if r[c] is None else str(r[c]) for c in columns) + "\n")
        else:
            for r in rows:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["orders", "customers", "events"])
    ap.add_argument("dir")
    ap.add_argument("rows", type=int)
    ap.add_argument("--files", type=int, default=1)
    ap.add_argument("--format", default="json", choices=["json", "csv"])
    ap.add_argument("--start", type=int, default=0, help="first file number")
    ap.add_argument("--first-id", type=int, default=None)
    ap.add_argument("--customers", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    ext = a.format
    per = max(1, a.rows // a.files)
    first = a.first_id if a.first_id is not None else a.start * per + 1
    n = 0
    for k in range(a.files):
        rng = random.Random(a.seed * 1000003 + a.start + k)
        count = per if k < a.files - 1 else a.rows - per * (a.files - 1)
        rows = []
        for _ in range(count):
            i = first + n
            n += 1
            if a.kind == "orders":
                rows.append(order(rng, i, a.customers))
            elif a.kind == "customers":
                rows.append({"customer_id": i, "name": "customer %d" % i,
                             "country": COUNTRIES[rng.randrange(len(COUNTRIES))]})
            else:
                rows.append({"event_id": i, "user_id": rng.randrange(1000),
                             "kind": ["view", "click", "buy"][rng.randrange(3)],
                             "ts": "2025-01-01T00:00:%02d" % (i % 60)})
        cols = list(rows[0].keys()) if rows else []
        write_rows(os.path.join(a.dir, "part-%05d.%s" % (a.start + k, ext)), rows,
                   a.format, cols)


if __name__ == "__main__":
    main()
