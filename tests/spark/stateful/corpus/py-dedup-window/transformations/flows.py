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
    """Copies dropped (keys with the event time, evicted by the
    watermark), then 10-minute windows per key."""
    return (landing("events")
            .withWatermark("ts", "10 minutes")
            .dropDuplicates(["id", "ts"])
            .groupBy(F.window("ts", "10 minutes"), "k")
            .agg(F.count("*").alias("n"), F.sum("v").alias("total")))


@dp.table
def per_window_within():
    """dropDuplicatesWithinWatermark, then 10-minute windows."""
    return (landing("events")
            .withWatermark("ts", "10 minutes")
            .dropDuplicatesWithinWatermark(["id"])
            .groupBy(F.window("ts", "10 minutes"))
            .agg(F.count("*").alias("n"), F.max("id").alias("top")))


@dp.table
def per_window_ids():
    """Every id kept for ever (no event time among the keys), then
    10-minute windows."""
    return (landing("events")
            .withWatermark("ts", "10 minutes")
            .dropDuplicates(["id"])
            .groupBy(F.window("ts", "10 minutes"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total")))
