from pyspark import pipelines as dp
from pyspark.sql import functions as F

BROKER = "127.0.0.1:9"  # a closed port: weir test never tries it


@dp.table
def orders_bronze():
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", BROKER)
            .option("subscribe", "orders")
            .option("startingOffsets", "earliest")
            .load())


@dp.table
def orders_silver():
    schema = "order_id BIGINT, amount DOUBLE"
    return (spark.readStream.table("orders_bronze")
            .select(F.col("key").cast("string").alias("customer"),
                    F.from_json(F.col("value").cast("string"), schema).alias("o"))
            .select("customer", "o.*"))


dp.create_sink("clean_out", "kafka",
               {"kafka.bootstrap.servers": BROKER, "topic": "orders_clean"})


@dp.append_flow(target="clean_out")
def publish():
    return (spark.readStream.table("orders_silver")
            .select(F.col("customer").alias("key"),
                    F.to_json(F.struct("order_id", "amount")).alias("value")))
