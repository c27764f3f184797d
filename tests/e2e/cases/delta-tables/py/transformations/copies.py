from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.table(format="delta")
def evens():
    return spark.readStream.table("src").where("id % 2 = 0")


dp.create_streaming_table("odds", format="delta")


@dp.append_flow(target="odds")
def odd_rows():
    return spark.readStream.table("src").where("id % 2 = 1")


@dp.materialized_view
def odd_count():
    return spark.read.table("odds").selectExpr("count(*) AS n")
