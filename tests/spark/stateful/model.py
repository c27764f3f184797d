#!/usr/bin/env python3
"""The rules of README.md, "What Spark does", as a small model that
replays a corpus entry's input update by update and computes its stateful
table; `model.py` checks the model against Spark's stored answers
(expected/) for every modelled entry, so the rules written down are the
ones Spark follows, edge rows included (gen_inputs.py puts rows exactly at
and one second before each watermark).

One update of a streaming flow (a `spark-pipelines run`, AvailableNow) is a
data batch and then a batch without data:
  1. the data batch judges the update's rows against the watermark W of the
     previous update (no row is late in the first update) and adds the
     rest to the operator's state; a deduplication or an inner join writes
     its new rows now;
  2. the watermark moves to max(W, newest event time of the update's rows,
     late ones included, less the delay) (several inputs: the min, or with
     multipleWatermarkPolicy=max the max, of each input's own value);
  3. the batch without data writes what the new watermark closes (windows,
     sessions, event-time groups; the outer join's unmatched rows) and
     evicts state.
Stdlib only. Exit status 1 when the model and a stored answer differ.
"""
import datetime as dt
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MIN = dt.timedelta(minutes=1)
EPOCH = dt.datetime(2024, 1, 1)


def rows_of(entry, source, k):
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "corpus", entry, "input", str(k),
                                              "data", source, "*.json"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                for c in ("ts", "imp_ts", "click_ts"):
                    if c in r:
                        r[c] = dt.datetime.fromisoformat(r[c])
                out.append(r)
    return out


def text(t):
    return t.strftime("%Y-%m-%d %H:%M:%S")


class Watermark:
    """One input's watermark: max event time seen less the delay."""

    def __init__(self, delay_min):
        self.delay = dt.timedelta(minutes=delay_min)
        self.value = None

    def advance(self, times):
        if times:
            w = max(times) - self.delay
            self.value = w if self.value is None else max(self.value, w)


def combined(marks, policy="min"):
    seen = [m.value for m in marks if m.value is not None]
    if not seen:
        return None
    return min(seen) if policy == "min" else max(seen)


def before(t, w):
    """t <= w, with no watermark yet (the first update): never."""
    return w is not None and t <= w


# --- aggregations -------------------------------------------------------------

def windows_of(t, size, slide):
    """The [start, end) windows of size SIZE every SLIDE holding t."""
    start = EPOCH + ((t - EPOCH) // slide) * slide
    out = []
    while start + size > t:
        out.append((start, start + size))
        start -= slide
    return sorted(out)


def window_agg(updates, size, slide, delay, key, aggs, full_refresh=()):
    """Time-window aggregation: a row counts in its windows whose end is
    after the previous watermark; a window is written when its end <= the
    new watermark."""
    out, state, wm = [], {}, Watermark(delay)
    for k, rows in enumerate(updates, 1):
        if k in full_refresh:
            out, state, wm = [], {}, Watermark(delay)
            rows = [r for u in updates[:k] for r in u]
        w_prev = wm.value
        for r in rows:
            for win in windows_of(r["ts"], size, slide):
                if not before(win[1], w_prev):
                    state.setdefault((win, key(r)), []).append(r)
        wm.advance([r["ts"] for r in rows])
        for g in sorted(g for g in state if before(g[0][1], wm.value)):
            out.append((g[0], g[1], aggs(state.pop(g))))
        yield k, list(out)


def sessions_agg(updates, gap, delay, aggs):
    """Session windows per key: late when time + gap <= the previous
    watermark; a session [first, last + gap) is written when its end <= the
    new watermark; rows less than GAP apart (with the state's sessions too)
    merge."""
    out, state, wm = [], {}, Watermark(delay)
    gap = dt.timedelta(minutes=gap)
    for k, rows in enumerate(updates, 1):
        w_prev = wm.value
        for r in rows:
            if not before(r["ts"] + gap, w_prev):
                state.setdefault(r["k"], []).append(r)
        wm.advance([r["ts"] for r in rows])
        for key in sorted(state):
            rs = sorted(state[key], key=lambda r: r["ts"])
            sessions, cur = [], [rs[0]]
            for r in rs[1:]:
                if r["ts"] <= cur[-1]["ts"] + gap:
                    cur.append(r)
                else:
                    sessions.append(cur)
                    cur = [r]
            sessions.append(cur)
            keep = []
            for s in sessions:
                end = s[-1]["ts"] + gap
                if before(end, wm.value):
                    out.append(((s[0]["ts"], end), key, aggs(s)))
                else:
                    keep += s
            state[key] = keep
        yield k, list(out)


# --- deduplication ------------------------------------------------------------

def dedup(updates, key, delay=None, within=False):
    """First copy of each key (DataFrame dropDuplicates/distinct). With a
    watermark, rows at or before the previous watermark are dropped;
    dropDuplicatesWithinWatermark (within) forgets a key once the watermark
    passes its first time plus the delay."""
    out, seen, wm = [], {}, Watermark(delay or 0)
    for k, rows in enumerate(updates, 1):
        w_prev = wm.value
        for r in rows:
            if delay is not None and before(r["ts"], w_prev):
                continue
            kk = key(r)
            if kk not in seen:
                seen[kk] = r["ts"]
                out.append(r)
        if delay is not None:
            wm.advance([r["ts"] for r in rows])
            if within:
                seen = {kk: t for kk, t in seen.items() if not t + wm.delay <= wm.value}
        yield k, list(out)


# --- joins --------------------------------------------------------------------

def join(imps, clicks, how, bound=15, delay=10):
    """impressions i and clicks c, c.imp_id = i.imp_id and i.imp_ts <=
    c.click_ts <= i.imp_ts + BOUND minutes, watermarks DELAY on both sides
    (the join's watermark W: the min of the two). A row is late when its own
    side's event time <= the previous W; a side's buffer is evicted by the
    time below which no row of the other side can still match: impressions
    older than W - BOUND, clicks older than W. An outer join writes an
    unmatched row with NULLs when it is evicted; a semi join a left row at
    its first match."""
    bound = dt.timedelta(minutes=bound)
    out, li, lc = [], [], []
    mi, mc = Watermark(delay), Watermark(delay)
    matched_i, matched_c = set(), set()

    def match(i, c):
        return c["imp_id"] == i["imp_id"] and i["imp_ts"] <= c["click_ts"] <= i["imp_ts"] + bound

    for k in range(1, len(imps) + 1):
        w_prev = combined([mi, mc])
        new_i = [i for i in imps[k - 1] if not before(i["imp_ts"], w_prev)]
        new_c = [c for c in clicks[k - 1] if not before(c["click_ts"], w_prev)]
        pairs = [(i, c) for i in new_i for c in lc + new_c if match(i, c)] + \
                [(i, c) for i in li for c in new_c if match(i, c)]
        li += new_i
        lc += new_c
        for i, c in pairs:
            matched_i.add(i["imp_id"])
            matched_c.add(c["click_id"])
            if how == "semi":
                continue
            out.append(("pair", i, c))
        mi.advance([i["imp_ts"] for i in imps[k - 1]])
        mc.advance([c["click_ts"] for c in clicks[k - 1]])
        w = combined([mi, mc])
        gone_i = [i for i in li if w is not None and i["imp_ts"] < w - bound]
        gone_c = [c for c in lc if w is not None and c["click_ts"] < w]
        li = [i for i in li if i not in gone_i]
        lc = [c for c in lc if c not in gone_c]
        if how in ("left", "full"):
            out += [("left", i, None) for i in gone_i if i["imp_id"] not in matched_i]
        if how in ("right", "full"):
            out += [("right", None, c) for c in gone_c if c["click_id"] not in matched_c]
        yield k, list(out), matched_i


# --- the entries -----------------------------------------------------------------

def updates_of(entry, source, n):
    return [rows_of(entry, source, k) for k in range(1, n + 1)]


def stats(rs):
    vs = [r["v"] for r in rs]
    return {"n": len(rs), "total": sum(vs), "lo": min(vs), "hi": max(vs),
            "mean": sum(vs) / len(vs), "first_id": min(r["id"] for r in rs),
            "last_ts": text(max(r["ts"] for r in rs))}


def win(w):
    return {"start": text(w[0]), "end": text(w[1])}


def tumbling(entry, cols, n=5, full_refresh=()):
    ups = updates_of(entry, "events", n)
    for k, out in window_agg(ups, 10 * MIN, 10 * MIN, 10, lambda r: r["k"], stats, full_refresh):
        yield k, [[win(w), key] + [a[c] for c in cols] for w, key, a in out]


def group_by_time(ups, delay):
    out, state, wm = [], {}, Watermark(delay)
    for k, rows in enumerate(ups, 1):
        w_prev = wm.value
        for r in rows:
            if not before(r["ts"], w_prev):
                state.setdefault((r["ts"], r["k"]), []).append(r)
        wm.advance([r["ts"] for r in rows])
        for g in sorted(g for g in state if before(g[0], wm.value)):
            rs = state.pop(g)
            out.append([text(g[0]), g[1], len(rs), sum(r["v"] for r in rs)])
        yield k, list(out)


def two_inputs(entry, policy, delays=(5, 15)):
    fast, slow = updates_of(entry, "fast", 5), updates_of(entry, "slow", 5)
    marks = [Watermark(delays[0]), Watermark(delays[1])]
    out, state, w = [], {}, None
    size = 10 * MIN
    for k in range(5):
        for src, rows in (("fast", fast[k]), ("slow", slow[k])):
            for r in rows:
                win_ = windows_of(r["ts"], size, size)[0]
                if not before(win_[1], w):
                    state.setdefault((win_, src), []).append(r)
        marks[0].advance([r["ts"] for r in fast[k]])
        marks[1].advance([r["ts"] for r in slow[k]])
        w = combined(marks, policy)
        for g in sorted(g for g in state if before(g[0][1], w)):
            rs = state.pop(g)
            out.append([win(g[0]), g[1], len(rs), sum(r["v"] for r in rs)])
        yield k + 1, list(out)


def distinct_agg(ups, key, delay=10):
    """SQL SELECT DISTINCT over a watermarked stream: an aggregation grouped
    by the columns (the event time among them): a row is late when its time
    <= the previous watermark, a group is written once, when the new
    watermark reaches its time."""
    out, state, wm = [], {}, Watermark(delay)
    for k, rows in enumerate(ups, 1):
        w_prev = wm.value
        for r in rows:
            if not before(r["ts"], w_prev):
                state.setdefault(key(r), r)
        wm.advance([r["ts"] for r in rows])
        for g in sorted(g for g in state if before(state[g]["ts"], wm.value)):
            out.append(state.pop(g))
        yield k, list(out)


def dedup_rows(entry, key, cols, **kw):
    for k, out in dedup(updates_of(entry, "events", 5), key, **kw):
        yield k, [[text(r[c]) if c == "ts" else r[c] for c in cols] for r in out]


def joined(entry, how, cols):
    imps, clicks = updates_of(entry, "impressions", 5), updates_of(entry, "clicks", 5)
    for k, out, matched in join(imps, clicks, how):
        if how == "semi":
            rows = [i for u in imps for i in u if i["imp_id"] in matched]
            yield k, [[i["imp_id"], i["ad"], text(i["imp_ts"])] for i in _uniq(rows)]
            continue
        res = []
        for _, i, c in out:
            v = {"imp_id": i and i["imp_id"], "ad": i and i["ad"],
                 "imp_ts": i and text(i["imp_ts"]), "click_id": c and c["click_id"],
                 "clicked_imp": c and c["imp_id"], "click_ts": c and text(c["click_ts"])}
            res.append([v[c_] for c_ in cols])
        yield k, res


def _uniq(rows):
    seen, out = set(), []
    for r in rows:
        if r["imp_id"] not in seen:
            seen.add(r["imp_id"])
            out.append(r)
    return out


def unbounded(entry):
    a, b = updates_of(entry, "users_a", 5), updates_of(entry, "users_b", 5)
    la, lb, out = [], [], []
    for k in range(5):
        out += [[x["uid"], x["name"], y["score"]] for x in a[k] for y in lb + b[k] if x["uid"] == y["uid"]]
        out += [[x["uid"], x["name"], y["score"]] for x in la for y in b[k] if x["uid"] == y["uid"]]
        la += a[k]
        lb += b[k]
        yield k + 1, list(out)


def chain(entry):
    ups = updates_of(entry, "events", 5)
    silver = [[] for _ in ups]
    for k, out in distinct_agg(ups, lambda r: (r["id"], r["k"], r["ts"], r["v"])):
        silver[k - 1] = out[sum(len(s) for s in silver[:k - 1]):]
    gold = window_agg(silver, 10 * MIN, 10 * MIN, 10, lambda r: r["k"], stats)
    for k, out in gold:
        yield k, {"silver": [[r["id"], r["k"], text(r["ts"]), r["v"]]
                             for s in silver[:k] for r in s],
                  "gold": [[win(w), key, a["n"], a["total"]] for w, key, a in out]}


def two_sided(left, right, match, how, lbound, rbound, delay=10):
    """A stream-stream join of rows with a ts, both sides watermarked DELAY
    (the join's watermark W: the min of the two): a row is late when its
    ts <= the previous W; pairs are written at once; a side's rows leave
    the state once their ts <= its state watermark, LBOUND(W) or
    RBOUND(W), an outer side's unmatched ones written with NULLs."""
    out, kept = [], ([], [])
    marks = (Watermark(delay), Watermark(delay))
    matched = (set(), set())
    for k in range(1, len(left) + 1):
        w_prev = combined(marks)
        new = [[r for r in side[k - 1] if not before(r["ts"], w_prev)] for side in (left, right)]
        pairs = [(x, y) for x in new[0] for y in kept[1] + new[1] if match(x, y)] + \
                [(x, y) for x in kept[0] for y in new[1] if match(x, y)]
        for x, y in pairs:
            matched[0].add(id(x))
            matched[1].add(id(y))
            out.append((x, y))
        for i in (0, 1):
            kept[i].extend(new[i])
            marks[i].advance([r["ts"] for r in (left, right)[i][k - 1]])
        w = combined(marks)
        for i, bound in ((0, lbound), (1, rbound)):
            gone = [r for r in kept[i] if before(r["ts"], bound(w) if w else None)]
            kept[i][:] = [r for r in kept[i] if r not in gone]
            if how in ("full", ("left", "right")[i]):
                out += [(r, None) if i == 0 else (None, r)
                        for r in gone if id(r) not in matched[i]]
        yield k, list(out)


def by_key(entry, sources, how, cols):
    """A join USING (uid, ts) (or NATURAL on them): the watermark in the
    join keys, so both sides' rows leave once their ts <= W."""
    left, right = updates_of(entry, sources[0], 5), updates_of(entry, sources[1], 5)
    same = lambda x, y: x["uid"] == y["uid"] and x["ts"] == y["ts"]  # noqa: E731
    for k, out in two_sided(left, right, same, how, lambda w: w, lambda w: w):
        rows = []
        for x, y in out:
            z = x or y
            v = {"uid": z["uid"], "ts": text(z["ts"])}
            for c, r in zip(cols[2:], (x, y)):
                v[c] = r and r[sources[2][c]]
            rows.append([v[c] for c in cols])
        yield k, rows


def strict_range(entry):
    """sql-watermark-edges range_full: b.ts > a.ts AND b.ts < a.ts + 15 min:
    a's state watermark W - 15 min, b's W (strict: the bounds themselves)."""
    left, right = updates_of(entry, "side_a", 5), updates_of(entry, "side_b", 5)
    match = lambda x, y: x["uid"] == y["uid"] and x["ts"] < y["ts"] < x["ts"] + 15 * MIN  # noqa: E731
    for k, out in two_sided(left, right, match, "full", lambda w: w - 15 * MIN, lambda w: w):
        yield k, [[x and x["uid"], x and text(x["ts"]), y and y["uid"], y and text(y["ts"])]
                  for x, y in out]


def edge_rows(entry, table):
    ups = updates_of(entry, "side_a", 5)
    if table == "windows_a":
        ev = [[dict(r, id=r["uid"], k="") for r in u] for u in ups]
        for k, out in window_agg(ev, 10 * MIN, 10 * MIN, 10, lambda r: r["k"], stats):
            yield k, [[win(w), a["n"], a["total"]] for w, _, a in out]
    elif table == "distinct_a":
        for k, out in distinct_agg(ups, lambda r: (r["uid"], r["ts"])):
            yield k, [[r["uid"], text(r["ts"])] for r in out]
    else:
        for k, out in dedup(ups, lambda r: r["uid"], delay=10, within=True):
            yield k, [[r["uid"], text(r["ts"]), r["v"]] for r in out]


W6 = ["n", "total", "lo", "hi", "mean", "first_id"]
JC = ["imp_id", "ad", "imp_ts", "click_id", "click_ts"]
JC2 = ["imp_id", "ad", "imp_ts", "click_id", "clicked_imp", "click_ts"]
MODELS = {
    ("sql-tumbling", "per_window"): lambda: tumbling("sql-tumbling", W6, 6),
    ("sql-full-refresh", "per_window"): lambda: tumbling("sql-full-refresh", W6, 6, (4,)),
    ("py-tumbling", "per_window"): lambda: tumbling("py-tumbling", ["n", "total", "mean", "last_ts"]),
    ("sql-sliding", "per_slide"): lambda: (
        (k, [[text(w[0]), text(w[1]), key, a["n"], a["total"]] for w, key, a in out])
        for k, out in window_agg(updates_of("sql-sliding", "events", 5), 10 * MIN, 5 * MIN, 5,
                                 lambda r: r["k"], stats)),
    ("sql-session", "sessions"): lambda: (
        (k, [[win(w), key, a["n"], a["total"], a["first_id"]] for w, key, a in out])
        for k, out in sessions_agg(updates_of("sql-session", "events", 5), 5, 10, stats)),
    ("py-session", "sessions"): lambda: (
        (k, [[win(w), key, a["n"], a["total"], a["first_id"]] for w, key, a in out])
        for k, out in sessions_agg(updates_of("py-session", "events", 5), 5, 10, stats)),
    ("sql-group-eventtime", "per_instant"): lambda: group_by_time(
        updates_of("sql-group-eventtime", "events", 5), 10),
    ("sql-watermark-min", "per_window"): lambda: two_inputs("sql-watermark-min", "min"),
    ("py-watermark-max", "per_window"): lambda: two_inputs("py-watermark-max", "max"),
    ("py-dedup", "first_by_id"): lambda: dedup_rows("py-dedup", lambda r: r["id"],
                                                    ["id", "k", "ts", "v"]),
    ("py-dedup", "distinct_rows"): lambda: dedup_rows(
        "py-dedup", lambda r: (r["id"], r["k"], r["ts"]), ["id", "k", "ts"]),
    ("sql-distinct", "distinct_ids"): lambda: dedup_rows(
        "sql-distinct", lambda r: (r["id"], r["k"]), ["id", "k"]),
    ("sql-dedup-watermark", "distinct_events"): lambda: (
        (k, [[r["id"], r["k"], text(r["ts"])] for r in out]) for k, out in distinct_agg(
            updates_of("sql-dedup-watermark", "events", 5), lambda r: (r["id"], r["k"], r["ts"]))),
    ("py-dedup-watermark", "unique_events"): lambda: dedup_rows(
        "py-dedup-watermark", lambda r: (r["id"], r["ts"]), ["id", "k", "ts", "v"], delay=10),
    ("py-dedup-within", "unique_ids"): lambda: dedup_rows(
        "py-dedup-within", lambda r: r["id"], ["id", "k", "ts", "v"], delay=10, within=True),
    ("sql-join-inner", "joined"): lambda: joined("sql-join-inner", "inner", JC),
    ("sql-join-left", "joined"): lambda: joined("sql-join-left", "left", JC),
    ("py-join-left", "impressions_clicks"): lambda: joined("py-join-left", "left", JC),
    ("sql-join-right", "joined"): lambda: joined("sql-join-right", "right", JC2),
    ("sql-join-full", "joined"): lambda: joined("sql-join-full", "full", JC2),
    ("sql-join-semi", "joined"): lambda: joined("sql-join-semi", "semi", None),
    ("sql-join-unbounded", "matched"): lambda: unbounded("sql-join-unbounded"),
    ("sql-chain", "silver"): lambda: ((k, d["silver"]) for k, d in chain("sql-chain")),
    ("sql-chain", "gold"): lambda: ((k, d["gold"]) for k, d in chain("sql-chain")),
    ("sql-join-natural-outer", "natural_left"): lambda: by_key(
        "sql-join-natural-outer", ("readings_a", "readings_b", {"a": "a", "b": "b"}), "left",
        ["uid", "ts", "a", "b"]),
    ("sql-join-natural-outer", "using_full"): lambda: by_key(
        "sql-join-natural-outer", ("readings_a", "readings_b", {"a": "a", "b": "b"}), "full",
        ["uid", "ts", "a", "b"]),
    ("sql-watermark-edges", "key_full"): lambda: by_key(
        "sql-watermark-edges", ("side_a", "side_b", {"va": "v", "vb": "v"}), "full",
        ["uid", "ts", "va", "vb"]),
    ("sql-watermark-edges", "key_inner"): lambda: by_key(
        "sql-watermark-edges", ("side_a", "side_b", {"va": "v", "vb": "v"}), "inner",
        ["uid", "ts", "va", "vb"]),
    ("sql-watermark-edges", "range_full"): lambda: strict_range("sql-watermark-edges"),
    ("sql-watermark-edges", "windows_a"): lambda: edge_rows("sql-watermark-edges", "windows_a"),
    ("sql-watermark-edges", "distinct_a"): lambda: edge_rows("sql-watermark-edges", "distinct_a"),
    ("sql-watermark-edges", "dedup_within"): lambda: edge_rows("sql-watermark-edges",
                                                               "dedup_within"),
}


def key_of(row):
    sys.path.insert(0, os.path.dirname(HERE))
    import difftest
    return [difftest.sort_key(v) for v in row]


def main():
    only = sys.argv[1:]
    bad = checked = 0
    for (entry, table), model in sorted(MODELS.items()):
        if only and entry not in only:
            continue
        for k, rows in model():
            path = os.path.join(HERE, "expected", entry, str(k), table + ".json")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                stored = json.load(f)["rows"]
            checked += 1
            a = sorted(key_of(r) for r in rows)
            b = sorted(key_of(r) for r in stored)
            if a != b:
                bad += 1
                extra = [r for r in a if r not in b]
                missing = [r for r in b if r not in a]
                print("%s.%s update %d: the model differs from Spark: model only %s; Spark only %s"
                      % (entry, table, k, extra[:4], missing[:4]))
    print("model: %d tables checked, %d differ" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
