# The left column of seed 001's "OSS vs Databricks DLT" table: DLT code that
# must be translated (import dlt -> from pyspark import pipelines as dp,
# @dlt.table -> @dp.table / @dp.materialized_view, dlt.read("x") ->
# spark.read.table("x")).
import dlt


@dlt.table
def orders_silver():
    return dlt.read("orders_bronze").where("amount > 0")
