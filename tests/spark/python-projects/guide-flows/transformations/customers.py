from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()


@dp.materialized_view(comment="Customer reference data")
def customers():
    return (spark.read.format("csv").option("header", "true")
            .schema("customer STRING, name STRING, tier STRING")
            .load("data/customers.csv"))


@dp.temporary_view
def order_lines():
    # Not persisted: an intermediate step the two views below share.
    orders = spark.read.table("orders_all")
    return (orders.join(spark.read.table("customers"), "customer", "left")
            .withColumn("amount", F.round(F.col("quantity") * F.col("unit_price"), 2)))


@dp.materialized_view
def revenue_by_tier():
    return (spark.read.table("order_lines")
            .groupBy("tier")
            .agg(F.count("*").alias("orders"),
                 F.countDistinct("customer").alias("customers"),
                 F.round(F.sum("amount"), 2).alias("revenue"),
                 F.max("quantity").alias("max_quantity")))


@dp.materialized_view(schema="customer STRING, name STRING, orders BIGINT, items BIGINT")
def customer_totals():
    return (spark.read.table("order_lines")
            .groupBy("customer", "name")
            .agg(F.count("order_id").alias("orders"),
                 F.sum("quantity").cast("bigint").alias("items")))


@dp.materialized_view
def daily_region():
    return spark.sql("""
        SELECT region, to_date(ordered_at) AS order_day,
               count(*) AS orders, sum(quantity) AS items
        FROM orders_all
        GROUP BY region, to_date(ordered_at)
    """)
