from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()


def state_view(state):
    @dp.materialized_view(name="sales_order_in_" + state.lower(),
                          comment="Sales per product in " + state)
    def view():
        return (spark.read.table("sales_orders_cleaned")
                .where(F.col("state") == state)
                .groupBy("product")
                .agg(F.sum(F.col("qty") * F.col("price")).alias("sales"),
                     F.countDistinct("order_number").alias("orders"),
                     # a set's order is unspecified: sort it
                     F.array_sort(F.collect_set("customer_name")).alias("customers")))


for s in ("CA", "NY", "TX", "WA"):
    state_view(s)


@dp.materialized_view
def customers_without_email():
    return (spark.read.table("customers")
            .where(F.col("email").isNull() | (F.trim(F.col("email")) == ""))
            .select("customer_id", F.upper("customer_name").alias("name")))
