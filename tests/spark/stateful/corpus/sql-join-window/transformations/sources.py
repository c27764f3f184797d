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
def impressions():
    return spark.readStream.format("json").schema("imp_id BIGINT, ad STRING, imp_ts TIMESTAMP").load(os.path.join(DATA, "impressions"))


@dp.table
def clicks():
    return spark.readStream.format("json").schema("click_id BIGINT, imp_id BIGINT, click_ts TIMESTAMP").load(os.path.join(DATA, "clicks"))
