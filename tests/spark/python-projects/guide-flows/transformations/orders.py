# One streaming table fed by one append flow per region: each flow keeps
# its own checkpoint, so a region can be added without reprocessing others.
from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()

ORDER_SCHEMA = ("order_id BIGINT, customer STRING, quantity INT, "
                "unit_price DOUBLE, ordered_at STRING")

dp.create_streaming_table("orders_all", comment="Orders of every region")


def region_flow(region):
    @dp.append_flow(target="orders_all", name="orders_" + region)
    def flow():
        return (spark.readStream.format("json").schema(ORDER_SCHEMA)
                .load("data/orders/" + region)
                .withColumn("region", F.lit(region)))


for r in ("us", "eu"):
    region_flow(r)


@dp.table(comment="Orders of four or more items",
          table_properties={"quality": "silver"})
def big_orders():
    return (spark.readStream.table("orders_all")
            .where(F.col("quantity") >= 4)
            .select("order_id", "region", "quantity"))
