from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()
# The spec's configuration, read at import time as in Spark.
MIN_AMOUNT = float(spark.conf.get("mixed.min_amount"))


@dp.table
def big_orders():
    return spark.readStream.table("orders").where(F.col("amount") >= MIN_AMOUNT)
