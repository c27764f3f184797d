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
IMP = "imp_id BIGINT, ad STRING, imp_ts TIMESTAMP"
CLK = "click_id BIGINT, imp_id BIGINT, click_ts TIMESTAMP"


@dp.table
def impressions_clicks():
    i = landing("impressions", IMP).withWatermark("imp_ts", "10 minutes").alias("i")
    c = landing("clicks", CLK).withWatermark("click_ts", "10 minutes").alias("c")
    cond = F.expr("c.imp_id = i.imp_id AND c.click_ts >= i.imp_ts "
                  "AND c.click_ts <= i.imp_ts + INTERVAL 15 MINUTES")
    return (i.join(c, cond, "left_outer")
            .select("i.imp_id", "i.ad", "i.imp_ts", "c.click_id", "c.click_ts"))
