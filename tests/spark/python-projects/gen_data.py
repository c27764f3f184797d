#!/usr/bin/env python3
"""Writes the small input files of the Python pipeline corpus
(tests/spark/python-projects/*/data/). Deterministic: the same files on
every run, so the committed data and Spark's committed answers
(tests/spark/python-expected/) stay in step. Run it after changing a
generator, then regenerate the answers with
`tests/spark/run.sh --python-only --write-expected`."""
import csv
import datetime as dt
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def put(project, rel, lines):
    path = os.path.join(HERE, project, "data", rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("".join(l + "\n" for l in lines))


def js(rows):
    return [json.dumps(r, separators=(",", ":")) for r in rows]


def csv_lines(header, rows, delim=","):
    import io
    out = io.StringIO()
    w = csv.writer(out, delimiter=delim, lineterminator="\n")
    if header:
        w.writerow(header)
    w.writerows(rows)
    return out.getvalue().splitlines()


def ts(base, minutes):
    return (base + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S")


def guide_flows(r):
    base = dt.datetime(2026, 3, 2, 8, 0)
    for region, n in (("us", 14), ("eu", 11)):
        rows = []
        for i in range(n):
            rows.append({"order_id": (1000 if region == "us" else 2000) + i,
                         "customer": "c%02d" % r.randint(1, 6),
                         "quantity": r.randint(1, 5),
                         "unit_price": round(r.uniform(2, 40), 2),
                         "ordered_at": ts(base, r.randint(0, 3 * 1440))})
        put("guide-flows", "orders/%s/part-0.json" % region, js(rows[:n // 2]))
        put("guide-flows", "orders/%s/part-1.json" % region, js(rows[n // 2:]))
    put("guide-flows", "customers.csv", csv_lines(
        ["customer", "name", "tier"],
        [["c%02d" % i, "Customer %d" % i, ["gold", "silver", "bronze"][i % 3]]
         for i in range(1, 7)]))


def seed_medallion(r):
    base = dt.datetime(2026, 5, 10, 0, 0)
    rows = []
    for i in range(24):
        amt = round(r.uniform(-20, 300), 2) if i % 7 else None
        rows.append({"order_id": i + 1, "customer_id": r.randint(1, 5),
                     "amount": amt, "order_ts": ts(base, r.randint(0, 4 * 1440))})
    put("seed-medallion", "landing/orders/orders-1.json", js(rows[:12]))
    put("seed-medallion", "landing/orders/orders-2.json", js(rows[12:]))
    ev = [{"event_id": i, "kind": r.choice(["click", "view", "buy"]),
           "value": r.choice([None, r.randint(1, 9)]),
           "ts": ts(base, r.randint(0, 3 * 1440))} for i in range(30)]
    put("seed-medallion", "incoming/events.json", js(ev))
    old = [{"event_id": 900 + i, "kind": r.choice(["click", "view"]),
            "value": r.randint(1, 9), "ts": ts(base, -r.randint(1, 2000))}
           for i in range(8)]
    put("seed-medallion", "backfill/events-old.json", js(old))


def retail_sales(r):
    states = ["CA", "NY", "TX", "WA"]
    customers = [[i, "Cust %d" % i, r.choice(states),
                  ("c%d@example.com" % i) if i % 5 else ""] for i in range(1, 11)]
    put("retail-sales", "customers/customers.csv",
        csv_lines(["customer_id", "customer_name", "state", "email"], customers))
    products = ["kettle", "lamp", "mug", "chair", "desk"]
    base = dt.datetime(2026, 2, 1, 9, 0)
    orders = []
    for i in range(40):
        items = [{"product": r.choice(products), "qty": r.randint(1, 4),
                  "price": "%.2f" % r.uniform(3, 90)}
                 for _ in range(r.randint(1, 3))]
        orders.append({"order_number": 5000 + i,
                       "customer_id": r.randint(1, 12) if i % 9 else None,
                       "order_datetime": ts(base, r.randint(0, 10 * 1440)),
                       "ordered_products": items})
    put("retail-sales", "sales_orders/batch-1.json", js(orders[:20]))
    put("retail-sales", "sales_orders/batch-2.json", js(orders[20:]))


def loans(r):
    states = ["IA", "OH", "NE", "KS", "MO"]
    base = dt.date(2026, 1, 1)

    def loan(i):
        funded = r.randint(5, 40) * 500
        paid = round(funded * r.uniform(0, 0.9), 2)
        return [i, r.choice(states), funded, paid,
                r.choice(["Fully Paid", "Current", "Charged Off", "Late"]),
                (base + dt.timedelta(days=r.randint(0, 120))).isoformat(),
                r.choice(["36 months", "60 months"])]
    header = ["loan_id", "addr_state", "funded_amnt", "total_pymnt",
              "loan_status", "issue_d", "term"]
    put("loans", "landing/raw-1.csv", csv_lines(header, [loan(i) for i in range(1, 16)]))
    put("loans", "landing/raw-2.csv", csv_lines(header, [loan(i) for i in range(16, 26)]))
    put("loans", "historical/old.csv", csv_lines(header, [loan(i) for i in range(900, 910)]))


def nyc_taxi(r):
    zones = [(10001, "Manhattan"), (11201, "Brooklyn"), (11101, "Queens"), (10451, "Bronx")]
    put("nyc-taxi", "zones.csv", csv_lines(["zip", "borough"], zones))
    base = dt.datetime(2026, 4, 6, 6, 0)
    rows = []
    for i in range(36):
        start = base + dt.timedelta(minutes=r.randint(0, 2 * 1440))
        mins = r.randint(3, 55)
        fare = round(r.uniform(4, 70), 2) if i % 11 else -2.5
        dist = round(r.uniform(0.3, 18), 1) if i % 13 else 0.0
        rows.append([start.strftime("%Y-%m-%d %H:%M:%S"),
                     (start + dt.timedelta(minutes=mins)).strftime("%Y-%m-%d %H:%M:%S"),
                     dist, fare, r.choice(zones)[0], r.choice(zones)[0]])
    header = ["tpep_pickup_datetime", "tpep_dropoff_datetime", "trip_distance",
              "fare_amount", "pickup_zip", "dropoff_zip"]
    put("nyc-taxi", "trips/trips-a.csv", csv_lines(header, rows[:18]))
    put("nyc-taxi", "trips/trips-b.csv", csv_lines(header, rows[18:]))


def clickstream(r):
    pages = ["Apache_Spark", "DuckDB", "SQL", "Python_(programming_language)",
             "Data_lake", "Parquet"]
    rows = []
    for prev in ["other-search", "other-empty", "other-internal"] + pages:
        for curr in r.sample(pages, 3):
            if prev == curr:
                continue
            kind = "external" if prev.startswith("other") else r.choice(["link", "other"])
            rows.append([prev, curr, kind, r.randint(10, 5000)])
    rows.append(["Parquet", "", "link", 7])  # no current title: dropped
    put("clickstream", "clickstream/clickstream-2026-06.tsv",
        csv_lines(["prev_title", "curr_title", "type", "n"], rows, delim="\t"))


def quarantine(r):
    rows = []
    for i in range(30):
        rows.append({"reading_id": i,
                     "device": r.choice(["d1", "d2", "d3", None]) if i % 4 else "d%d" % (i % 3 + 1),
                     "temperature": r.choice([r.uniform(-5, 40), r.uniform(-5, 40), 250.0, None]),
                     "humidity": r.randint(-10, 110)})
    for row in rows:
        if isinstance(row["temperature"], float):
            row["temperature"] = round(row["temperature"], 1)
    put("quarantine", "readings/readings.json", js(rows))


def dedup(r):
    base = dt.datetime(2026, 7, 1, 12, 0)
    rows = []
    for i in range(20):
        rows.append({"customer_id": r.randint(1, 8), "email": "u%d@example.com" % r.randint(1, 8),
                     "plan": r.choice(["free", "pro", "team"]),
                     "updated_at": ts(base, i * 37), "event_id": "e%03d" % i})
    rows += [dict(rows[3]), dict(rows[7]), dict(rows[7])]  # exact replays
    put("dedup", "changes/part-1.json", js(rows[:12]))
    put("dedup", "changes/part-2.json", js(rows[12:]))


def main():
    for i, gen in enumerate([guide_flows, seed_medallion, retail_sales, loans,
                             nyc_taxi, clickstream, quarantine, dedup]):
        gen(random.Random(1300 + i))


if __name__ == "__main__":
    main()
