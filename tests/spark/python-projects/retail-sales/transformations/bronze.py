from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.table(comment="Customers, ingested from CSV files")
def customers():
    return (spark.readStream.format("csv").option("header", "true")
            .schema("customer_id BIGINT, customer_name STRING, state STRING, email STRING")
            .load("data/customers"))


@dp.table(comment="Sales orders with their products, ingested from JSON files")
def sales_orders_raw():
    return (spark.readStream.format("json")
            .schema("order_number BIGINT, customer_id BIGINT, order_datetime STRING, "
                    "ordered_products ARRAY<STRUCT<product: STRING, qty: INT, price: STRING>>")
            .load("data/sales_orders"))
