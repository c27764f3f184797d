from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.table(comment="Orders as they land")
def orders_bronze() -> DataFrame:
    return (spark.readStream.format("json")
            .schema("order_id BIGINT, customer_id BIGINT, amount DOUBLE, order_ts STRING")
            .load("data/landing/orders"))


@dp.materialized_view(name="orders_silver", comment="Cleaned orders.")
def silver() -> DataFrame:
    # the dependency on orders_bronze comes from this read
    return spark.read.table("orders_bronze").where("amount > 0")
