# Extra DataFrame shapes commonly found in pipeline files (to widen plan coverage).
from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, LongType, StringType
from pyspark.sql import SparkSession

spark = SparkSession.active()  # pyspark-client 4.1 does not inject it


@dp.materialized_view(name="customer_orders", partition_cols=["country"], format="parquet",
                      schema="customer_id BIGINT, country STRING, orders BIGINT, tier STRING")
def customer_orders():
    o = spark.read.table("silver_orders").alias("o")
    c = spark.read.table("customers").alias("c")
    return (
        o.join(c, F.col("o.customer_id") == F.col("c.id"), "left")
        .groupBy("o.customer_id", "c.country")
        .agg(F.countDistinct("o.order_id").alias("orders"))
        .withColumn("tier", F.when(F.col("orders") > 10, "gold").otherwise(F.lit("std")))
        .filter("country IS NOT NULL")
        .orderBy(F.desc("orders"))
    )


@dp.materialized_view
def customers():
    schema = StructType([StructField("id", LongType()), StructField("country", StringType())])
    return (
        spark.read.format("csv").schema(schema).option("header", "true").load("data/customers.csv")
        .dropDuplicates(["id"])
        .selectExpr("id", "upper(country) AS country")
    )


@dp.materialized_view  # weir: a streaming window aggregation needs its watermark kept
def events_windowed():
    return (
        spark.read.format("json").schema("id BIGINT, ts TIMESTAMP, v DOUBLE").load("data/ev")
        .withWatermark("ts", "10 minutes")
        .groupBy(F.window("ts", "5 minutes"), "id")
        .agg(F.avg("v").alias("avg_v"))
    )


@dp.materialized_view
def via_sql():
    return spark.sql("SELECT order_date, revenue FROM gold_daily_revenue WHERE revenue > 100")


@dp.materialized_view
def unioned():
    a = spark.read.table("silver_orders").select("order_id", "amount")
    b = spark.read.parquet("data/archive/orders").select("order_id", "amount")
    return a.unionByName(b).distinct().limit(1000).withColumnRenamed("amount", "amt").drop("amt")
