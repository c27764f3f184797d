# The landing folders (data/<name>/, new JSON files each update) as
# streaming tables, and a deduplication within the watermark read straight
# from the files (Spark 4.1 analyses dropDuplicatesWithinWatermark against
# its catalog when the flow is registered, see README.md). The paths are
# absolute because Spark resolves relative ones against its server's
# working directory.
import os

from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
SCHEMA = "uid BIGINT, ts TIMESTAMP, v BIGINT"


def landing(name):
    return spark.readStream.format("json").schema(SCHEMA).load(os.path.join(DATA, name))


@dp.table
def side_a():
    return landing("side_a")


@dp.table
def side_b():
    return landing("side_b")


@dp.table
def dedup_within():
    # uid N*100+7 first comes 10 minutes before the watermark its update
    # leaves, so it expires exactly at that watermark; its replay in the
    # next update is written again
    return (landing("side_a")
            .withWatermark("ts", "10 minutes")
            .dropDuplicatesWithinWatermark(["uid"]))
