# One streaming table per region, each fed by an append flow.
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()

SCHEMA = ("order_id BIGINT, customer STRING, quantity INT, "
          "unit_price DOUBLE, ordered_at STRING")

for region in ("us", "eu"):
    dp.create_streaming_table(f"fv_orders_{region}")

    def flow(region=region):
        return (spark.readStream.format("json").schema(SCHEMA)
                .load(f"@DATA@/orders/{region}"))

    dp.append_flow(target=f"fv_orders_{region}",
                   name=f"fv_ingest_{region}")(flow)
