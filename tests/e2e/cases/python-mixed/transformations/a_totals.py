# Defined first (files are imported in path order), reads a Python table
# defined in a later file and a SQL view.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.materialized_view(comment="Revenue per customer")
def totals():
    return (
        spark.read.table("big_orders")
        .groupBy("customer")
        .agg(F.count("*").alias("orders"), F.sum("amount").alias("revenue"))
    )
