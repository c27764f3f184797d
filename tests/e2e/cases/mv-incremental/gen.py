# The differential test of incremental materialized-view refresh
# (case.sh): the views, random rows for each round (fixed seed), and the
# query that compares every view with a recomputation of its query.
#
#   gen.py views           transformations SQL of the views
#   gen.py rows ROUND N    an INSERT of N random rows into ext
#   gen.py check           rows (view, diff) for views that differ
#   gen.py expect MODE [view=TECHNIQUE ...]
#                          the techniques of an update as CSV (v,t): MODE
#                          append (the inputs had rows appended), noop
#                          (nothing new) or full, with exceptions
import random
import sys

# name, query, table properties, how appends refresh it: A(PPEND_ONLY),
# G(ROUP_AGGREGATE), C(OMPLETE_RECOMPUTE) always, or R(ecomputed) when an
# input changed (on_agg reads a view merged in place, which its readers see
# as replaced)
VIEWS = [
    ("proj", "SELECT k, v * 2 AS v2, d FROM st WHERE v > 0", None, "A"),
    ("proj_all", "SELECT * FROM st", None, "A"),
    ("agg_k", "SELECT k, count(*) AS n, sum(v) AS sv, sum(d) AS sd, min(v) AS lo, "
              "max(v) AS hi, min(s) AS smin, max(ts) AS tmax, count(v) AS nv "
              "FROM st GROUP BY k", None, "G"),
    ("agg_kg", "SELECT k, g, sum(d) AS sd, count(d) AS nd FROM st GROUP BY k, g", None, "G"),
    ("agg_day", "SELECT to_date(ts) AS day, upper(k) AS uk, count(*) AS n, "
                "sum(d) AS rev FROM st GROUP BY to_date(ts), upper(k)", None, "G"),
    ("glob", "SELECT count(*) AS n, sum(v) AS s, min(d) AS lo, max(d) AS hi FROM st", None, "G"),
    ("glob_rare", "SELECT count(*) AS n, sum(d) AS s FROM st WHERE v > 45", None, "G"),
    ("dist", "SELECT DISTINCT k, g FROM st", None, "G"),
    ("ord_keys", "SELECT sum(v) AS s, g FROM st GROUP BY 2", None, "G"),
    ("uni", "SELECT k, v FROM st WHERE g = 1 UNION ALL SELECT k, v FROM ext", None, "A"),
    ("agg_uni", "SELECT k, sum(v) AS s, count(*) AS n FROM (SELECT k, v FROM st "
                "UNION ALL SELECT k, g AS v FROM ext) GROUP BY k", None, "G"),
    ("filt", "SELECT g, count(*) FILTER (WHERE v > 0) AS pos, max(s) AS smax "
             "FROM st WHERE k IS NOT NULL GROUP BY g", None, "G"),
    ("ext_agg", "SELECT k, count(*) AS n, sum(d) AS sd FROM ext GROUP BY k", None, "G"),
    ("j_inner", "SELECT st.k, st.v, dim.label FROM st JOIN dim ON st.k = dim.k", None, "A"),
    ("j_agg", "SELECT dim.label, count(*) AS n, sum(st.d) AS sd, max(st.v) AS hi "
              "FROM st JOIN dim ON st.k = dim.k GROUP BY dim.label", None, "G"),
    ("j_left", "SELECT st.k, st.g, dim.label FROM st LEFT JOIN dim ON st.k = dim.k "
               "WHERE st.g IS NOT NULL", None, "A"),
    ("on_proj", "SELECT k, v2 + 1 AS v3 FROM proj", None, "A"),
    ("agg_on_proj", "SELECT k, sum(v2) AS s, count(*) AS n FROM proj GROUP BY k", None, "G"),
    ("on_agg", "SELECT k, n FROM agg_k WHERE n > 3", None, "R"),
    ("nondet", "SELECT k, rand() < 2 AS r FROM st", None, "C"),
    ("avg_k", "SELECT k, avg(v) AS a FROM st GROUP BY k", None, "C"),
    ("avg_d", "SELECT k, avg(d) AS ad, count(*) AS n, mean(d) FILTER (WHERE v > 10) AS adf, "
              "max(d) AS hi FROM st GROUP BY k", None, "G"),
    ("avg_glob", "SELECT avg(d) AS ad, sum(d) AS sd FROM st WHERE v > 45", None, "G"),
    ("avg_j", "SELECT dim.label, to_date(st.ts) AS day, avg(st.d) AS ad FROM st JOIN dim "
              "ON st.k = dim.k GROUP BY dim.label, to_date(st.ts)", None, "G"),
    ("cd_k", "SELECT k, count(DISTINCT g) AS dg, count(DISTINCT s) AS ds, count(*) AS n "
             "FROM st GROUP BY k", None, "G"),
    ("cd_glob", "SELECT count(DISTINCT s) FILTER (WHERE v > 10) AS ds, "
                "count(DISTINCT to_date(ts)) AS days FROM st", None, "G"),
    ("cd_j", "SELECT dim.label, count(DISTINCT st.g) AS dg, avg(st.d) AS ad FROM st "
             "JOIN dim ON st.k = dim.k GROUP BY dim.label", None, "G"),
    ("semi", "SELECT k, v, d FROM st LEFT SEMI JOIN dim ON st.k = dim.k", None, "A"),
    ("anti", "SELECT k, g FROM st LEFT ANTI JOIN dim ON st.k = dim.k WHERE g > 1", None, "A"),
    ("semi_agg", "SELECT g, count(*) AS n, avg(d) AS ad FROM st LEFT SEMI JOIN dim "
                 "ON st.k = dim.k GROUP BY g", None, "G"),
    ("self_j", "SELECT a.k, a.v, b.s FROM st a JOIN st b ON a.k = b.k AND a.v = b.v "
               "AND a.g = b.g", None, "C"),
    ("cheap", "SELECT k, count(*) AS n, sum(id) AS s FROM big GROUP BY k", None, "C"),
    ("off", "SELECT k, count(*) AS n FROM st GROUP BY k",
     "'pipelines.incremental' = 'false'", "C"),
]

KEYS = ["a", "b", "c", "d", None]


def rows(round_, n):
    rnd = random.Random(1000 + round_)
    out = []
    for _ in range(n):
        k = rnd.choice(KEYS)
        g = rnd.choice([1, 2, 3, None])
        v = None if rnd.random() < 0.15 else rnd.randint(-5, 50)
        d = None if rnd.random() < 0.15 else "%d.%02d" % (rnd.randint(-50, 500), rnd.randint(0, 99))
        s = None if rnd.random() < 0.1 else "".join(rnd.choice("xyz") for _ in range(3))
        ts = None if rnd.random() < 0.1 else "TIMESTAMP '2026-01-%02d %02d:00:00'" % (
            rnd.randint(1, 4), rnd.randint(0, 23))

        def q(x):
            return "NULL" if x is None else "'%s'" % x
        out.append("(%s, %s, %s, %s, %s, %s)" % (
            q(k), "NULL" if g is None else g, "NULL" if v is None else v,
            "NULL" if d is None else d, q(s), "NULL" if ts is None else ts))
    return "INSERT INTO ext VALUES " + ", ".join(out)


def main():
    what = sys.argv[1]
    if what == "views":
        for name, q, props, _ in VIEWS:
            tail = " TBLPROPERTIES (%s)" % props if props else ""
            print("CREATE MATERIALIZED VIEW %s%s AS %s;" % (name, tail, q))
    elif what == "rows":
        print(rows(int(sys.argv[2]), int(sys.argv[3])))
    elif what == "check":
        parts = []
        for name, q, _, _ in VIEWS:
            if "rand()" in q:
                continue
            parts.append(
                "SELECT '%s' AS view, count(*) AS diff FROM ((SELECT * FROM %s "
                "EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL SELECT * FROM %s))"
                % (name, name, q, q, name))
        print("SELECT * FROM (%s) WHERE diff > 0" % " UNION ALL ".join(parts))
    elif what == "expect":
        mode = sys.argv[2]
        names = {"A": "APPEND_ONLY", "G": "GROUP_AGGREGATE",
                 "C": "COMPLETE_RECOMPUTE", "R": "COMPLETE_RECOMPUTE"}
        over = dict(a.split("=") for a in sys.argv[3:])
        print("v,t")
        for name, _, _, cls in sorted(VIEWS):
            t = names[cls]
            if mode == "noop" and cls != "C":
                t = "NO_OP"
            elif mode == "full":
                t = "COMPLETE_RECOMPUTE"
            print("%s,%s" % (name, over.get(name, t)))


main()
