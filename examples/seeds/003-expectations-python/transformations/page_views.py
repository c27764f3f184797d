# Seed 003's hands-on lab in Python: bronze over the landing folder, silver
# with the lesson's three decorators (one warn, one drop, one fail), gold.
# A second silver table groups the same rules with expect_all,
# expect_all_or_drop and expect_all_or_fail (Python only, as the lesson says).
# The expect* decorators are Databricks spellings; weir's shim provides them.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.table
def page_views_bronze():
    return (
        spark.readStream.format("cloudFiles")
        .option("cloudFiles.format", "json")
        .load("data/landing/page_views/")
    )


@dp.table
@dp.expect("valid_customer_age", "age BETWEEN 0 AND 120")
@dp.expect_or_drop("valid_current_page", "current_page_id IS NOT NULL AND current_page_title IS NOT NULL")
@dp.expect_or_fail("valid_count", "count > 0")
def page_views_silver():
    return spark.readStream.table("page_views_bronze").select(
        "user_id", "age", "current_page_id", "current_page_title", "count")


@dp.table
@dp.expect_all({"valid_customer_age": "age BETWEEN 0 AND 120"})
@dp.expect_all_or_drop({
    "valid_current_page_id": "current_page_id IS NOT NULL",
    "valid_current_page_title": "current_page_title IS NOT NULL",
})
@dp.expect_all_or_fail({"valid_count": "count > 0"})
def page_views_silver_grouped():
    return spark.readStream.table("page_views_bronze")


@dp.materialized_view
def page_views_gold():
    return (
        spark.read.table("page_views_silver")
        .groupBy("current_page_title")
        .agg(F.count("*").alias("visits"), F.sum("count").alias("views"))
    )
