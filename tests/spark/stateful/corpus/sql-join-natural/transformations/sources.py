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
def users_a():
    return spark.readStream.format("json").schema("uid BIGINT, name STRING").load(os.path.join(DATA, "users_a"))


@dp.table
def users_b():
    return spark.readStream.format("json").schema("uid BIGINT, score BIGINT").load(os.path.join(DATA, "users_b"))
