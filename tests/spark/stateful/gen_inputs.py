#!/usr/bin/env python3
"""Write the corpus's input files: corpus/<entry>/input/<k>/data/<source>/
u<k>.json, one JSON object a line, for every entry listed in INPUTS below.

The inputs are seeded, so the files are the same on every run; they are
committed with the corpus (run this only to change them, then store
Spark's answers again: stateful.py --write-expected). Event times start at
2024-01-01 10:00:00 and move about STEP minutes an update; each update also
brings rows that are late (their event time well behind the newest one seen
so far: some still inside an open window or the delay, some older than the
watermark), and, for the deduplication entries, copies of rows already
delivered, in the same update or an earlier one.
"""
import datetime as dt
import json
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = dt.datetime(2024, 1, 1, 10, 0, 0)


def ts(minutes):
    return (BASE + dt.timedelta(seconds=round(minutes * 60))).strftime("%Y-%m-%dT%H:%M:%S")


def events(seed, updates, n=10, step=20, late=3, dups=0, replays=0, keys="abcd", delay=10):
    """{k: [rows]}: id, k (a key), ts, v. Per update: n rows in the update's
    stretch of event time (the newest one, in odd updates, exactly on the
    stretch's end: a watermark on a whole minute), `late` rows 5 to 40
    minutes behind the newest time so far, `dups` exact copies of earlier
    rows, `replays` rows with an earlier id and a new time 1 to 30 minutes
    after that id's first time, and, after the first update, four rows
    about the watermark W a delay of DELAY minutes gives after the previous
    update: at W - 5 min, W - 5 min + 1 s, W - 1 s and W (the edges of
    Spark's lateness rules: event time < W; window end <= W; session end,
    time + gap, <= W for a gap of 5 minutes)."""
    rnd = random.Random(seed)
    out, seen, nid, newest = {}, [], 1, 0.0
    for u in range(1, updates + 1):
        rows = []
        wm = newest - delay
        for i in range(n):
            m = (u - 1) * step + rnd.uniform(0, step)
            if i == 0 and u % 2:
                m = u * step
            rows.append({"id": nid, "k": rnd.choice(keys), "ts": m, "v": rnd.randint(1, 100)})
            nid += 1
        if u > 1:
            for m in (wm - 5, wm - 5 + 1 / 60, wm - 1 / 60, wm):
                rows.append({"id": nid, "k": rnd.choice(keys), "ts": m, "v": rnd.randint(1, 100)})
                nid += 1
        newest = max([newest] + [r["ts"] for r in rows])
        for _ in range(late if u > 1 else 0):
            rows.append({"id": nid, "k": rnd.choice(keys), "ts": max(0, newest - rnd.uniform(5, 40)),
                         "v": rnd.randint(1, 100)})
            nid += 1
        pool = seen + rows
        for _ in range(dups):
            rows.append(dict(rnd.choice(pool)))
        for _ in range(replays):
            r = dict(rnd.choice(pool))
            r["ts"] = r["ts"] + rnd.uniform(1, 30)
            r["v"] = rnd.randint(1, 100)
            rows.append(r)
        rnd.shuffle(rows)
        seen += rows
        newest = max(newest, max(r["ts"] for r in rows))  # (replays too)
        out[u] = rows
    return {u: [dict(r, ts=ts(r["ts"])) for r in rows] for u, rows in out.items()}


def ad_events(seed, updates, n=8, step=20, bound=15):
    """Impressions (imp_id, ad, imp_ts) and clicks (click_id, imp_id,
    click_ts): about two thirds of the impressions are clicked 1 to 20
    minutes later (so some after the join's bound of `bound` minutes); a
    click arrives in its impression's update or the next; some clicks name
    no impression; each update brings an impression clicked at its own
    time and one clicked exactly `bound` minutes later, and each update
    after the first three late pairs: one well behind, one at the
    impressions' watermark W (10 minutes) after the previous update, one
    at W - 1 s."""
    rnd = random.Random(seed)
    imps, clicks = {u: [] for u in range(1, updates + 1)}, {u: [] for u in range(1, updates + 1)}
    nimp, nclick, newest = 1, 1, 0.0
    for u in range(1, updates + 1):
        wm = newest - 10
        for _ in range(n):
            m = (u - 1) * step + rnd.uniform(0, step)
            imps[u].append({"imp_id": nimp, "ad": rnd.choice("xyz"), "imp_ts": m})
            if rnd.random() < 0.67:
                later = min(updates, u + (rnd.random() < 0.3))
                clicks[later].append({"click_id": nclick, "imp_id": nimp,
                                      "click_ts": m + rnd.uniform(1, bound + 5)})
                nclick += 1
            nimp += 1
        clicks[u].append({"click_id": nclick, "imp_id": 1000 + nimp,
                          "click_ts": (u - 1) * step + rnd.uniform(0, step)})
        nclick += 1
        if u > 1:
            # late: a pair well behind; a pair at W and one at W - 1 s
            # (W: the previous update's newest impression less 10 minutes)
            for m in (newest - rnd.uniform(20, 45), wm, wm - 1 / 60):
                imps[u].append({"imp_id": nimp, "ad": rnd.choice("xyz"), "imp_ts": m})
                clicks[u].append({"click_id": nclick, "imp_id": nimp,
                                  "click_ts": m + rnd.uniform(1, 10)})
                nimp += 1
                nclick += 1
        # the bounds of the range condition: a click at its impression's
        # time and one exactly `bound` minutes after it
        for d in (0, bound):
            m = (u - 1) * step + rnd.uniform(0, step / 2)
            imps[u].append({"imp_id": nimp, "ad": rnd.choice("xyz"), "imp_ts": m})
            clicks[u].append({"click_id": nclick, "imp_id": nimp, "click_ts": m + d})
            nimp += 1
            nclick += 1
        newest = max(newest, max(r["imp_ts"] for r in imps[u]))
    for u in imps:
        rnd.shuffle(imps[u])
        rnd.shuffle(clicks[u])
    fix = lambda rows, col: [dict(r, **{col: ts(r[col])}) for r in rows]  # noqa: E731
    return ({u: fix(r, "imp_ts") for u, r in imps.items()},
            {u: fix(r, "click_ts") for u, r in clicks.items()})


def two_paces(seed, updates, lag=30):
    """Two sources of events, `fast` and `slow`; slow's event times lag
    fast's by about LAG minutes (so their watermarks differ)."""
    fast = events(seed, updates, n=8, late=2, delay=5)
    slow = events(seed + 1, updates, n=8, late=1, delay=15)
    for rows in slow.values():
        for r in rows:
            t = dt.datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S") - dt.timedelta(minutes=lag)
            r["ts"] = max(t, BASE).strftime("%Y-%m-%dT%H:%M:%S")
            r["id"] += 1000
    return fast, slow


def session_edges(seed, updates):
    """events() with the edges of session merging: per update a pair of
    rows of key c exactly 5 minutes (its gap) apart, a pair of key a
    exactly 2 minutes apart, and a row of key d 4 minutes after the last
    update's newest one of d (a session bridged across updates)."""
    out = events(seed, updates, n=10, step=30)
    rnd = random.Random(seed + 100)
    nid, last_d = 500, None
    for u in range(1, updates + 1):
        rows = out[u]
        base = (u - 1) * 30 + rnd.uniform(0, 20)
        for k, gap in (("c", 5), ("a", 2)):
            for m in (base, base + gap):
                rows.append({"id": nid, "k": k, "ts": ts(m), "v": rnd.randint(1, 100)})
                nid += 1
        if last_d is not None:
            rows.append({"id": nid, "k": "d", "ts": ts(last_d + 4), "v": rnd.randint(1, 100)})
            nid += 1
        newest_d = [dt.datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S") for r in rows if r["k"] == "d"]
        if newest_d:
            last_d = (max(newest_d) - BASE).total_seconds() / 60
    return out


def paired_readings(seed, updates, n=6, step=20):
    """Two sources of readings (uid, ts, a) and (uid, ts, b) that match on
    both uid and ts: about half of a's rows have a twin in b, in the same
    update or the next; each side also has rows without a twin; after the
    first update, twins at the watermark W (10 minutes) the previous update
    left, at W + 1 s and well behind it."""
    rnd = random.Random(seed)
    a = {u: [] for u in range(1, updates + 1)}
    b = {u: [] for u in range(1, updates + 1)}
    uid, newest = 1, 0.0
    for u in range(1, updates + 1):
        wm = newest - 10
        times = [(u - 1) * step + rnd.uniform(0, step) for _ in range(n)]
        if u > 1:
            times += [wm, wm + 1 / 60, newest - rnd.uniform(20, 40)]
        for m in times:
            a[u].append({"uid": uid, "ts": m, "a": rnd.randint(1, 100)})
            if rnd.random() < 0.5:
                later = min(updates, u + (rnd.random() < 0.3))
                b[later].append({"uid": uid, "ts": m, "b": rnd.randint(1, 100)})
            uid += 1
        for _ in range(2):
            b[u].append({"uid": 500 + uid, "ts": (u - 1) * step + rnd.uniform(0, step),
                         "b": rnd.randint(1, 100)})
            uid += 1
        newest = max([newest] + [r["ts"] for r in a[u]] + [r["ts"] for r in b[u]])
    for side in (a, b):
        for u in side:
            rnd.shuffle(side[u])
            side[u] = [dict(r, ts=ts(r["ts"])) for r in side[u]]
    return a, b


def watermark_edges(updates, step=20, delay=10, bound=15):
    """Two sides (uid, ts, v) whose rows sit on the rules' edges. Update u
    brings its newest rows at N = u*STEP minutes on both sides, so it
    leaves the watermark W = N - DELAY; uids are u*100 + i:
      1  twins at N (move both watermarks);
      2  a only, at W: unmatched, leaves a join keyed by ts in this update;
      3  b only, at W: the same on the right side;
      4  a only, at W - BOUND: leaves a join whose bound is strict
         (b.ts < a.ts + BOUND) in this update;
      5  twins at W: matched at once;
      6  a at N - 5, its twin in the next update (and a b row 3 minutes
         later there, a range match);
      7  a at N - 2*DELAY: a deduplication within the watermark expires it
         exactly at W; its replay in the next update is written again;
      8  (after the first update) a at the previous watermark: late;
      9  (after the first update) a one second after it: not late;
      10 a at N - 16 and b exactly BOUND later: no match for a strict
         bound; and b's late twin of the previous update's uid 2."""
    a = {u: [] for u in range(1, updates + 1)}
    b = {u: [] for u in range(1, updates + 1)}
    for u in range(1, updates + 1):
        n, w, base = u * step, u * step - delay, u * 100
        prev = n - step - delay
        row = lambda i, m: {"uid": base + i, "ts": m, "v": base + i + int(m) % 7}  # noqa: E731
        a[u] += [row(1, n), row(2, w), row(4, w - bound), row(5, w), row(6, n - 5),
                 row(7, n - 2 * delay), row(10, n - 16)]
        b[u] += [row(1, n), row(3, w), row(5, w), row(10, n - 16 + bound)]
        if u > 1:
            a[u] += [row(8, prev), row(9, prev + 1 / 60),
                     {"uid": base - 100 + 7, "ts": n - 3, "v": 1}]
            b[u] += [{"uid": base - 100 + 2, "ts": prev, "v": 2}]
        if u < updates:
            b[u + 1] += [{"uid": base + 6, "ts": n - 5, "v": 3},
                         {"uid": base + 6, "ts": n - 2, "v": 4}]
    fix = lambda rows: [dict(r, ts=ts(r["ts"])) for r in rows]  # noqa: E731
    return ({u: fix(r) for u, r in a.items()}, {u: fix(r) for u, r in b.items()})


# entry -> {source folder: {update: rows}}
def inputs():
    adimp, adclick = ad_events(41, 5)
    fast, slow = two_paces(43, 5)
    read_a, read_b = paired_readings(47, 5)
    edge_a, edge_b = watermark_edges(5)
    ev = events(7, 5)
    ev6 = events(11, 6)
    dup = events(13, 5, dups=3, replays=2)
    users_a = {u: [{"uid": u * 10 + i, "name": "a%d" % (u * 10 + i)} for i in range(3)]
               for u in range(1, 6)}
    users_b = {u: [{"uid": (u - 1) * 10 + i, "score": u * 100 + i} for i in (1, 2, 5)]
               for u in range(1, 6)}
    return {
        "sql-tumbling": {"events": ev},
        "sql-limit": {"events": ev},
        "sql-sliding": {"events": events(23, 5, delay=5)},
        "sql-session": {"events": events(17, 5, n=10, step=30)},
        "sql-session-dynamic": {"events": session_edges(29, 5)},
        "sql-group-eventtime": {"events": ev},
        "sql-distinct": {"events": dup},
        "sql-dedup-watermark": {"events": dup},
        "sql-join-inner": {"impressions": adimp, "clicks": adclick},
        "sql-join-unbounded": {"users_a": users_a, "users_b": users_b},
        "sql-join-natural": {"users_a": users_a, "users_b": users_b},
        "sql-join-natural-outer": {"readings_a": read_a, "readings_b": read_b},
        "sql-watermark-edges": {"side_a": edge_a, "side_b": edge_b},
        "sql-join-left": {"impressions": adimp, "clicks": adclick},
        "sql-join-window": {"impressions": adimp, "clicks": adclick},
        "sql-window-window": {"events": ev},
        "sql-join-right": {"impressions": adimp, "clicks": adclick},
        "sql-join-full": {"impressions": adimp, "clicks": adclick},
        "sql-join-semi": {"impressions": adimp, "clicks": adclick},
        "sql-watermark-min": {"fast": fast, "slow": slow},
        "sql-chain": {"events": dup},
        "sql-no-watermark": {"events": ev},
        "sql-full-refresh": {"events": ev6},
        "py-tumbling": {"events": ev},
        "py-session": {"events": events(19, 5, n=10, step=30)},
        "py-dedup": {"events": dup},
        "py-dedup-watermark": {"events": dup},
        "py-dedup-within": {"events": dup},
        "py-dedup-window": {"events": dup},
        "py-join-left": {"impressions": adimp, "clicks": adclick},
        "py-watermark-max": {"fast": fast, "slow": slow},
        "py-readstream-table": {"events": ev},
    }


def main():
    for entry, sources in inputs().items():
        folder = os.path.join(HERE, "corpus", entry)
        if not os.path.isdir(folder):
            continue
        shutil.rmtree(os.path.join(folder, "input"), ignore_errors=True)
        for src, per_update in sources.items():
            for u, rows in per_update.items():
                d = os.path.join(folder, "input", str(u), "data", src)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "u%d.json" % u), "w", encoding="utf-8") as f:
                    for r in rows:
                        f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
