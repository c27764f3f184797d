# Seed 000's syntax listing, filled in: one streaming table written by two
# append flows, one per region's landing folder, with the optional name,
# once, spark_conf and comment parameters.
from pyspark import pipelines as dp

dp.create_streaming_table("all_orders")  # Required only if the target table doesn't exist.


@dp.append_flow(
    target="all_orders",
    name="orders_eu_flow",  # optional, defaults to function name
    once=False,  # optional
    spark_conf={"spark.sql.session.timeZone": "UTC"},  # optional
    comment="European orders")  # optional
def orders_eu():
    return (spark.readStream.format("json")
            .schema("order_id BIGINT, amount DOUBLE")
            .load("data/orders_eu")
            .selectExpr("order_id", "amount", "'eu' AS region"))


@dp.append_flow(target="all_orders")  # the flow is named after the function
def orders_us():
    return (spark.readStream.format("json")
            .schema("order_id BIGINT, amount DOUBLE")
            .load("data/orders_us")
            .selectExpr("order_id", "amount", "'us' AS region"))
