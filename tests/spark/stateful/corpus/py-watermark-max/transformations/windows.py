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
def per_window():
    # fast trails its newest event by 5 minutes, slow by 15, and slow's
    # events are about 30 minutes behind fast's: under the max policy the
    # aggregation follows fast, and most of slow's rows are late
    fast = landing("fast").withWatermark("ts", "5 minutes").select(F.lit("fast").alias("src"), "ts", "v")
    slow = landing("slow").withWatermark("ts", "15 minutes").select(F.lit("slow").alias("src"), "ts", "v")
    return (fast.unionByName(slow)
            .groupBy(F.window("ts", "10 minutes"), "src")
            .agg(F.count("*").alias("n"), F.sum("v").alias("total")))
