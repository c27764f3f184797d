# The Structured Streaming query of ../spark-4.1 as an append flow that
# imports its checkpoint (Databricks' spelling, through weir's shim).
from pyspark import pipelines as dp

dp.create_table("events")


@dp.append_flow(target="events", import_checkpoint="../cp/files")
def migrate():
    return (spark.readStream.format("json").schema("id BIGINT, name STRING")
            .load("../input"))
