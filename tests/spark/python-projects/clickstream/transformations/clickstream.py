from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()


@dp.table(comment="The raw clickstream dump, tab separated")
def clickstream_raw():
    return (spark.readStream.format("csv").option("header", "true").option("sep", "\t")
            .schema("prev_title STRING, curr_title STRING, type STRING, n STRING")
            .load("data/clickstream"))


@dp.table(comment="Typed, renamed clickstream rows")
@dp.expect_or_drop("valid_current_page", "current_page_title IS NOT NULL")
@dp.expect("valid_count", "click_count > 0")
def clickstream_prepared():
    return (spark.readStream.table("clickstream_raw")
            .withColumn("click_count", F.expr("CAST(n AS INT)"))
            .withColumnRenamed("curr_title", "current_page_title")
            .withColumnRenamed("prev_title", "previous_page_title")
            .select("current_page_title", "click_count", "previous_page_title", "type"))


@dp.materialized_view
def top_spark_referers():
    return (spark.read.table("clickstream_prepared")
            .filter(F.expr("current_page_title == 'Apache_Spark'"))
            .withColumnRenamed("previous_page_title", "referrer")
            .sort(F.desc("click_count"))
            .select("referrer", "click_count")
            .limit(3))


@dp.materialized_view
def page_totals():
    return (spark.read.table("clickstream_prepared")
            .groupBy("current_page_title")
            .agg(F.sum("click_count").alias("clicks"),
                 F.sum(F.when(F.col("type") == "external", F.col("click_count"))
                       .otherwise(0)).alias("external_clicks"),
                 F.count("*").alias("referrers")))
