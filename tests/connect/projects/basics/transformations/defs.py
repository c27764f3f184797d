# Every kind of Python definition, written with the DataFrame shapes every
# translator handles (spark.sql and table reads), so that registration is
# tested on its own.
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.materialized_view(comment="all orders", table_properties={"quality": "silver"})
def orders_mv():
    return spark.sql("SELECT id, amount FROM raw_orders")


@dp.table(spark_conf={"spark.sql.ansi.enabled": "true"})
def orders_st():
    return spark.readStream.table("raw_orders")


# A flow registered before its target is defined.
@dp.append_flow(target="all_orders", spark_conf={"spark.sql.shuffle.partitions": "1"})
def from_st():
    return spark.readStream.table("orders_st")


dp.create_streaming_table("all_orders", comment="every order, once",
                          schema="id BIGINT, amount DOUBLE, _rescued_data STRING")


@dp.temporary_view
def big_orders():
    return spark.sql("SELECT id, amount FROM orders_mv WHERE amount > 10")


@dp.materialized_view(name="big_count")
def count_big():
    return spark.sql("SELECT count(*) AS n FROM big_orders")


dp.create_sink("orders_out", "json", {"path": "out/orders"})


@dp.append_flow(target="orders_out")
def to_sink():
    return spark.readStream.table("raw_orders")
