# Databricks spellings, through weir's shim: expectation decorators above
# and below the dataset decorator, and a once-flow.
from pyspark import pipelines as dp


@dp.materialized_view
@dp.expect("has_tag", "tag IS NOT NULL")
@dp.expect_or_drop("positive", "amount > 0")
def checked():
    return spark.read.table("src")


@dp.expect_all({"small": "amount < 1000", "known_id": "id < 100"})
@dp.expect_or_quarantine("has_amount", "amount IS NOT NULL")
@dp.materialized_view
def kept():
    return spark.read.table("src")


dp.create_streaming_table("history")


@dp.append_flow(target="history", once=True)
def backfill():
    return spark.read.table("src").select("id")


@dp.append_flow(target="history", name="live")
def live():
    return spark.readStream.table("feed").select("id")


@dp.table
def feed():
    return spark.readStream.table("src_stream")


@dp.table
def src_stream():
    return spark.readStream.format("json").schema("id INT").load("landing")
