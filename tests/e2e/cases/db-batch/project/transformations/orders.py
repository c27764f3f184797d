# The same reads as written for Spark: format("jdbc") with options, and
# spark.read.jdbc(url, table, properties=...).
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()
URL = spark.conf.get("pg.url")
PASSWORD = spark.conf.get("pg.password")


@dp.materialized_view
def orders():
    return (spark.read.format("jdbc")
            .option("url", URL)
            .option("dbtable", "sales.orders")
            .option("user", "weir")
            .option("password", PASSWORD)
            .option("numPartitions", "4").option("partitionColumn", "id")
            .option("lowerBound", "1").option("upperBound", "10")
            .load())


@dp.materialized_view
def order_totals():
    props = {"user": "weir", "password": PASSWORD, "driver": "org.postgresql.Driver"}
    return (spark.read.jdbc(URL, "(SELECT customer, sum(qty) AS qty FROM sales.orders "
                                 "GROUP BY customer) AS t", properties=props))
