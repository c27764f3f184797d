#!/usr/bin/env python3
"""The doctest sweep: Spark's own documented examples (the docstrings of
the pinned pyspark-client's `functions`, `DataFrame`, `Column`,
`GroupedData` and `Window`) run against `weir serve` and against a local
Spark Connect server, one docstring at a time.

Modes (pick one):
  --run URL          run every docstring against the Spark Connect server
                     at URL with this interpreter (which must have the
                     pinned pyspark-client); write --out JSON
  --spark VENV       start a Spark Connect server from VENV (pyspark 4.1.4 +
                     Java 17), run the sweep against it with --client
                     (a pyspark-client python), write --out JSON
  --weir WEIR        start `weir serve --spec` on a scratch project, run the
                     sweep against it with --client, write --out JSON
  --compare A B      A: Spark's results, B: weir's; print the pass rate
                     of weir over Spark's passes, write --report (markdown)
Options: --only REGEX (docstring names), --timeout S (per docstring).

A docstring passes when every example in it gives the documented output
(doctest's ELLIPSIS, NORMALIZE_WHITESPACE and IGNORE_EXCEPTION_DETAIL, as
pyspark's own doctest runs use). Each result records the first example
that failed and what it printed, so the report says what to fix next.
`doctest-spark.txt` beside this script lists the docstrings that pass on
Spark (written with --write-expected); the weir-only run (no Java) is
compared with it.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import connect_servers  # noqa: E402
from connect_servers import stop  # noqa: E402

EXPECTED = os.path.join(HERE, "doctest-spark.txt")

# (group, module whose docstrings are run, the module whose namespace
# the examples see): as each pyspark.sql.connect module's _test() does.
SUITES = [
    ("functions", "pyspark.sql.connect.functions.builtin",
     "pyspark.sql.connect.functions.builtin"),
    ("DataFrame", "pyspark.sql.dataframe", "pyspark.sql.dataframe"),
    ("Column", "pyspark.sql.column", "pyspark.sql.column"),
    ("GroupedData", "pyspark.sql.connect.group", "pyspark.sql.connect.group"),
    ("Window", "pyspark.sql.window", "pyspark.sql.window"),
]


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def run_sweep(url, out, only, timeout, skip):
    """Run the docstrings in this process, appending one JSON line per
    docstring to out (a "start" line before it, so that a supervisor that
    kills a hung run knows which one hung). Docstrings named in skip (a
    file, one name a line) are not run."""
    import doctest
    import importlib
    import io
    import warnings
    warnings.simplefilter("ignore")
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.remote(url).getOrCreate()
    flags = (doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE |
             doctest.IGNORE_EXCEPTION_DETAIL)
    done = set()
    if skip and os.path.exists(skip):
        done = set(l.strip() for l in open(skip) if l.strip())
    signal.signal(signal.SIGALRM, _alarm)
    pat = re.compile(only) if only else None
    work = tempfile.mkdtemp(prefix="weir-doctest-")
    os.chdir(work)
    log = open(out, "a")
    for group, modname, globname in SUITES:
        mod = importlib.import_module(modname)
        base = importlib.import_module(globname).__dict__.copy()
        base["spark"] = spark
        tests = doctest.DocTestFinder().find(mod, globs=base)
        for t in sorted(tests, key=lambda t: t.name):
            if not t.examples:
                continue
            name = group + ":" + t.name.split(".", len(modname.split(".")))[-1]
            if (pat and not pat.search(name)) or name in done:
                continue
            log.write(json.dumps({"start": name}) + "\n")
            log.flush()
            buf = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=flags)
            first = {}

            def report_failure(o, test, example, got, first=first):
                if not first:
                    first.update(source=example.source.strip(),
                                 want=example.want.strip()[:2000],
                                 got=got.strip()[:2000])

            def report_exception(o, test, example, exc_info, first=first):
                if not first:
                    import traceback
                    text = "".join(traceback.format_exception_only(*exc_info[:2]))
                    first.update(source=example.source.strip(),
                                 want=example.want.strip()[:2000],
                                 got=text.strip()[:2000])

            runner.report_failure = report_failure
            runner.report_unexpected_exception = report_exception
            t0 = time.time()
            signal.alarm(timeout)
            try:
                r = runner.run(t, out=buf.write, clear_globs=True)
                failed, attempted = r.failed, r.attempted
            except Timeout:
                failed, attempted = 1, len(t.examples)
                first.setdefault("got", "timed out after %d s" % timeout)
            except BaseException as e:  # noqa: BLE001 (a test may kill the session)
                failed, attempted = 1, len(t.examples)
                first.setdefault("got", "%s: %s" % (type(e).__name__, e))
            finally:
                signal.alarm(0)
            res = dict(name=name, ok=failed == 0, examples=attempted,
                       seconds=round(time.time() - t0, 2), **first)
            log.write(json.dumps(res) + "\n")
            log.flush()
            print("%-4s %s" % ("ok" if failed == 0 else "FAIL", name), flush=True)
    shutil.rmtree(work, ignore_errors=True)


def read_log(path):
    """The results of a JSON-lines log, and the docstring that was started
    last without a result (None when every start has its result)."""
    results, started = {}, None
    if os.path.exists(path):
        for line in open(path):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "start" in r:
                started = r["start"]
            else:
                results[r["name"]] = r
                if started == r["name"]:
                    started = None
    return results, started


def supervise(start_server, args):
    """Run the sweep with --client against servers from start_server()
    (returns (url, stop)). A docstring that makes no progress for
    --timeout + 60 s (a call the client cannot interrupt) is recorded as
    timed out, and the client and the server start again after it."""
    log = args.out + ".jsonl"
    if os.path.exists(log):
        os.unlink(log)
    skip = args.out + ".skip"
    env = dict(os.environ, TZ="UTC", PYTHONWARNINGS="ignore")
    for _ in range(200):
        results, _started = read_log(log)
        with open(skip, "w") as f:
            f.write("".join(n + "\n" for n in results))
        url, stop_server = start_server()
        cmd = [args.client, os.path.abspath(__file__), "--run", url, "--out", log,
               "--skip", skip, "--timeout", str(args.timeout)]
        if args.only:
            cmd += ["--only", args.only]
        proc = subprocess.Popen(cmd, env=env, start_new_session=True)
        hung = False
        try:
            last = time.time()
            size = os.path.getsize(log) if os.path.exists(log) else 0
            while proc.poll() is None:
                time.sleep(1)
                now = os.path.getsize(log) if os.path.exists(log) else 0
                if now != size:
                    size, last = now, time.time()
                elif time.time() - last > args.timeout + 60:
                    hung = True
                    stop(proc)
                    break
        finally:
            if proc.poll() is None:
                stop(proc)
            stop_server()
        results, started = read_log(log)
        if started is None:
            break
        with open(log, "a") as f:
            f.write(json.dumps(dict(name=started, ok=False, examples=0, seconds=0,
                                    got="hung: no answer within %d s" % (args.timeout + 60)
                                    if hung else "the client died (exit %s)" % proc.returncode))
                    + "\n")
    results, _ = read_log(log)
    with open(args.out, "w") as f:
        json.dump(sorted(results.values(), key=lambda r: r["name"]), f, indent=1)
    os.unlink(skip)
    n = sum(r["ok"] for r in results.values())
    print("%d passed, %d failed" % (n, len(results) - n))
    return 0


def spark_sweep(venv, args):
    work = tempfile.mkdtemp(prefix="weir-doctest-spark-")
    try:
        return supervise(lambda: connect_servers.start_spark(venv, work), args)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def weir_sweep(weir, args):
    work = tempfile.mkdtemp(prefix="weir-doctest-weir-")
    try:
        return supervise(lambda: connect_servers.start_weir(weir, work), args)
    finally:
        if args.keep:
            print("weir serve's folder:", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def compare(spark_json, weir_json, report, write_expected):
    if spark_json == "-":
        spark_ok = set(l.strip() for l in open(EXPECTED) if l.strip())
        spark_n = None
    else:
        spark = json.load(open(spark_json))
        spark_ok = set(r["name"] for r in spark if r["ok"])
        spark_n = len(spark)
        if write_expected:
            with open(EXPECTED, "w") as f:
                f.write("".join(n + "\n" for n in sorted(spark_ok)))
    weir = {r["name"]: r for r in json.load(open(weir_json))}
    passed = sorted(n for n in spark_ok if weir.get(n, {}).get("ok"))
    failed = sorted(n for n in spark_ok if n not in passed)
    rate = 100.0 * len(passed) / max(1, len(spark_ok))
    groups = {}
    for n in spark_ok:
        g = n.split(":")[0]
        p, t = groups.get(g, (0, 0))
        groups[g] = (p + (n in passed), t + 1)
    lines = ["# Doctest sweep", "",
             "weir passes %d of the %d docstrings that pass on Spark (%.1f%%)%s." %
             (len(passed), len(spark_ok), rate,
              "" if spark_n is None else "; Spark passes %d of %d" % (len(spark_ok), spark_n)),
             "", "| group | weir | Spark |", "|---|---|---|"]
    for g in sorted(groups):
        lines.append("| %s | %d | %d |" % (g, groups[g][0], groups[g][1]))
    lines += ["", "## Failing on weir (first failing example)", ""]
    for n in failed:
        r = weir.get(n, {})
        src = (r.get("source") or "").replace("\n", " ")[:200]
        got = (r.get("got") or "not run").strip().splitlines()
        got = got[-1] if got else ""
        lines.append("- `%s`: `%s` -> %s" % (n, src, got[:300]))
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d passed, %d failed" % (len(passed), len(failed)))
    print("weir passes %d of Spark's %d docstrings (%.1f%%)" % (len(passed), len(spark_ok), rate))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--run", metavar="URL")
    mode.add_argument("--spark", metavar="VENV")
    mode.add_argument("--weir", metavar="WEIR")
    mode.add_argument("--compare", nargs=2, metavar=("SPARK_JSON", "WEIR_JSON"))
    ap.add_argument("--client", default=sys.executable)
    ap.add_argument("--out", default="doctests.json")
    ap.add_argument("--report", default="doctests.md")
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--skip", help=argparse.SUPPRESS)
    ap.add_argument("--write-expected", action="store_true")
    args = ap.parse_args()
    if args.run:
        run_sweep(args.run, args.out, args.only, args.timeout, args.skip)
        return 0
    if args.spark:
        return spark_sweep(args.spark, args)
    if args.weir:
        return weir_sweep(args.weir, args)
    compare(args.compare[0], args.compare[1], args.report, args.write_expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
