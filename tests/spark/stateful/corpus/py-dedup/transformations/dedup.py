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


@dp.table
def first_by_id():
    # each id once, the first copy seen (copies arrive in later updates too)
    return landing("events").dropDuplicates(["id"])


@dp.table
def distinct_rows():
    return landing("events").select("id", "k", "ts").distinct()
