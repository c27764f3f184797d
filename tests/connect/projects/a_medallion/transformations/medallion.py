# Medallion example in the style of the Databricks Lakeflow docs, ported to OSS `dp`.
from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql import SparkSession

spark = SparkSession.active()  # pyspark-client 4.1 does not inject it


@dp.table(comment="Raw orders ingested from JSON files with Auto Loader")
def bronze_orders():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .option("cloudFiles.inferColumnTypes", "true")
        .load("data/landing/orders")
    )


@dp.table(comment="Cleaned orders", table_properties={"quality": "silver"})
def silver_orders():
    return (
        spark.readStream.table("bronze_orders")
        .select(
            F.col("order_id").cast("bigint").alias("order_id"),
            F.col("customer_id"),
            F.col("amount").cast("decimal(10,2)").alias("amount"),
            F.to_timestamp("ts").alias("ts"),
        )
        .where(F.col("amount") > 0)
        .withColumn("ingested_at", F.current_timestamp())
    )


@dp.materialized_view(comment="Daily revenue")
def gold_daily_revenue():
    return (
        spark.read.table("silver_orders")
        .groupBy(F.to_date("ts").alias("order_date"))
        .agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders"))
    )
