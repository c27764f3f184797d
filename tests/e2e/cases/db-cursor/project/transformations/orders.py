# The Python spelling: spark.readStream.format("jdbc") with a cursorColumn.
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.table
def orders_raw():
    return (spark.readStream.format("jdbc")
            .option("url", spark.conf.get("pg.url"))
            .option("query", "SELECT id, qty, seq FROM orders WHERE qty > 0")
            .option("user", "weir")
            .option("password", spark.conf.get("pg.password"))
            .option("cursorColumn", "seq")
            .load())
