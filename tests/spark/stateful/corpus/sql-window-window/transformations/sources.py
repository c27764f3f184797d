# The landing folders (data/<name>/, new JSON files each update) as
# streaming tables. Open-source Spark SQL cannot read files as a stream, so
# this file defines them for both engines; the paths are absolute because
# Spark resolves relative ones against its server's working directory.
import os

from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


@dp.table
def events():
    return spark.readStream.format("json").schema("id BIGINT, k STRING, ts TIMESTAMP, v BIGINT").load(os.path.join(DATA, "events"))
