# Bronze: raw orders, each landed JSON-lines file read once (Structured
# Streaming file source; the schema is what weir infers from the files).
from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.table(name="orders_bronze")
def orders_bronze() -> DataFrame:
    return (spark.readStream.format("json")
            .schema("order_id BIGINT, customer_id BIGINT, amount DOUBLE, "
                    "order_ts TIMESTAMP, status STRING")
            .load("@ROOT@/data/orders"))
