import os

from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
EV = "id BIGINT, k STRING, ts TIMESTAMP, v BIGINT"


def landing(name, schema=EV):
    """The JSON files of data/<name>/ as a stream (absolute path: Spark
    resolves relative ones against its server's working directory)."""
    return spark.readStream.format("json").schema(schema).load(os.path.join(DATA, name))


# Spark's copy (tests/spark/stateful/corpus/py-readstream-table/spark/):
# Spark 4.1 resolves withWatermark's and dropDuplicates' input when the
# flow is registered, before the pipeline's `events` exists
# (TABLE_OR_VIEW_NOT_FOUND), so the same queries are written in ways it
# accepts: the watermark in SQL, the deduplication over the files that
# feed `events`.
@dp.table
def events():
    return landing("events")


@dp.table
def per_window():
    return spark.sql("""
        SELECT window(e.ts, '10 minutes') AS window, e.k, count(*) AS n, sum(e.v) AS total
        FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
        GROUP BY window(e.ts, '10 minutes'), e.k""")


@dp.table
def first_by_id():
    return landing("events").dropDuplicates(["id"])
