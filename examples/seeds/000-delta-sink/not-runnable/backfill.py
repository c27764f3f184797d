# Seed 000's backfill into the sink: a once flow whose target is a sink.
# Databricks accepts it; Apache Spark and weir do not (a sink takes
# streaming flows only), so weir stops with INVALID_ONCE_FLOW_TARGET at the
# decorator's line. Copy this file into transformations/ to see it.
from pyspark import pipelines as dp


# Add a backfill
@dp.append_flow(name="backfill", target="my_sink", once=True)
def backfillFlowFunc():
    return (
        spark.read
        .format("json")
        .schema("event_id BIGINT, kind STRING")
        .load("data/backfill/")
    )
