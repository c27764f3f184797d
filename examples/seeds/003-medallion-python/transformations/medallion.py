# Seed 003's Python medallion listing, as printed there except for the
# landing path (a Unity Catalog volume there, a folder of this project
# here). `spark` is not defined in the file: Databricks and Spark 4.2 inject
# it, and so does weir with either client version.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.table  # streaming table: reads new files incrementally
def orders_bronze():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .load("data/landing/orders/")
    )


@dp.table  # streaming table: silver built from bronze, not from the source
def orders_silver():
    return (
        spark.readStream.table("orders_bronze")
        .select(F.col("order_id").cast("bigint"),
                F.col("amount").cast("decimal(12,2)"),
                F.col("order_ts").cast("timestamp"))
    )


@dp.materialized_view  # materialised view: aggregate for one business question
def orders_daily_gold():
    return (
        spark.read.table("orders_silver")
        .groupBy(F.to_date("order_ts").alias("order_date"))
        .agg(F.sum("amount").alias("revenue"))
    )
