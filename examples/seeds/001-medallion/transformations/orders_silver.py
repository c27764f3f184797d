from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.materialized_view(name="orders_silver", comment="Cleaned orders.")
def orders_silver() -> DataFrame:
    # Dependency on orders_bronze inferred from this read.
    return spark.read.table("orders_bronze").where("amount > 0")
