# Python definitions tested by weir test: a streaming table over a folder
# of JSON files with an expectation, a view joining an external table, and
# a configuration value read at import.
from pyspark import pipelines as dp
from pyspark.sql import functions as F

min_amount = float(spark.conf.get("min_amount"))


@dp.table
@dp.expect_or_drop("big_enough", f"amount >= {min_amount}")
def events():
    return (spark.readStream.format("json")
            .schema("id BIGINT, customer BIGINT, amount DOUBLE")
            .load("landing/events"))


@dp.materialized_view
def per_customer():
    c = spark.read.table("customers")
    e = spark.read.table("events")
    return (e.join(c, e.customer == c.id)
            .groupBy("name")
            .agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
