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
    return (landing("events")
            .withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "10 minutes"), "k")
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"),
                 F.avg("v").alias("mean"), F.max("ts").alias("last_ts")))


@dp.materialized_view
def per_key():
    return (spark.read.table("per_window").groupBy("k")
            .agg(F.count("*").alias("windows"), F.sum("n").alias("n")))
