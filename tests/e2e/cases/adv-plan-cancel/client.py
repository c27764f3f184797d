# A client of weir serve for e2e/adv-plan-cancel: a query slow to plan
# (slow.sql). spark.sql() only hands the text back (nothing is planned);
# "sending" is printed before collect(), which the server plans, then the
# error that ended it.
import os
import sys
from pyspark.sql import SparkSession

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
df = spark.sql(open(sys.argv[2]).read())
print("sending", flush=True)
try:
    df.collect()
    print("finished", flush=True)
except Exception as e:
    text = str(e)
    print("error:", text.splitlines()[0][:300] if text else type(e).__name__,
          flush=True)
# The server is gone by now: the client's gRPC threads would retry
# releasing the session against it for minutes. End here.
os._exit(0)
