"""A client of weir serve for e2e/adv-serve-cancel.

usage: client.py URL MODE SLOW_SQL
MODE doomed: run SLOW_SQL, printing "sending" first; the case kills it.
MODE main: a quick query (it must not wait for the doomed client's);
then SLOW_SQL in a thread, interrupted with interruptAll() (retried until
the server names it); the quick query again; then SLOW_SQL once more,
printing "sending" first, left to the server's shutdown. Each outcome is
a line on stdout.
"""
import sys
import threading
import time

from pyspark.sql import SparkSession

url, mode, slow = sys.argv[1], sys.argv[2], sys.argv[3]
spark = SparkSession.builder.remote(url).getOrCreate()
QUICK = "SELECT count(*) AS n FROM by_customer"


def say(text):
    print(text, flush=True)


def outcome_of(sql):
    try:
        spark.sql(sql).collect()
        return "finished"
    except Exception as e:  # the error the client raised
        text = str(e)
        return "canceled" if "OPERATION_CANCELED" in text else "error: " + \
            text.splitlines()[0][:200] if text else type(e).__name__


if mode == "doomed":
    say("sending")
    spark.sql(slow).collect()
    say("finished")
    sys.exit(0)

say("quick: %d" % spark.sql(QUICK).collect()[0].n)

result = {}
worker = threading.Thread(target=lambda: result.update(r=outcome_of(slow)))
worker.start()
ids = []
for _ in range(600):  # until the server names the running query
    ids = spark.interruptAll()
    if ids or not worker.is_alive():
        break
    time.sleep(0.1)
say("interrupted: %d" % len(ids))
worker.join(120)
say("interrupt outcome: " + ("still running" if worker.is_alive()
                             else result.get("r", "?")))
say("quick: %d" % spark.sql(QUICK).collect()[0].n)

say("sending")
say("shutdown outcome: " + outcome_of(slow))
