from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()


@dp.table(comment="One row per ordered product, with the customer's state")
@dp.expect_or_drop("valid_order_number", "order_number IS NOT NULL")
@dp.expect_or_drop("known_customer", "customer_id IS NOT NULL")
def sales_orders_cleaned():
    orders = spark.readStream.table("sales_orders_raw")
    customers = spark.read.table("customers").select("customer_id", "customer_name", "state")
    return (orders.join(customers, "customer_id")
            .select("order_number", "customer_id", "customer_name", "state",
                    F.col("order_datetime").cast("timestamp").alias("order_ts"),
                    F.explode("ordered_products").alias("item"))
            .select("order_number", "customer_id", "customer_name", "state", "order_ts",
                    F.col("item.product").alias("product"),
                    F.col("item.qty").alias("qty"),
                    F.col("item.price").cast("decimal(10,2)").alias("price")))
