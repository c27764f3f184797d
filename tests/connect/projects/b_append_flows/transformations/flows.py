from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql import SparkSession

spark = SparkSession.active()  # pyspark-client 4.1 does not inject it

dp.create_streaming_table(
    "all_events",
    comment="Union of all event sources",
    table_properties={"pipelines.reset.allowed": "false"},
    schema="id BIGINT, src STRING, ts TIMESTAMP",
)


@dp.append_flow(target="all_events", spark_conf={"spark.sql.ansi.enabled": "true"})
def from_region_a():
    return (
        spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")
        .load("data/events/a")
        .select(F.col("id").cast("bigint"), F.lit("a").alias("src"), F.col("ts").cast("timestamp"))
    )


@dp.append_flow(target="all_events", name="region_b_flow")
def from_region_b():
    return spark.readStream.table("raw_b").select("id", F.lit("b").alias("src"), "ts")


@dp.table(table_properties={"pipelines.reset.allowed": "false"})  # all_events' upstream too
def raw_b():
    return spark.readStream.format("parquet").schema("id BIGINT, ts TIMESTAMP").load("data/events/b")
