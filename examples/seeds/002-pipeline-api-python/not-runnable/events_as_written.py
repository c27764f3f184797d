# Seed 002's events and events_backfill exactly as the page writes them:
# both read their folders with spark.read, a batch read. weir, like Apache
# Spark, refuses a batch flow into a streaming table:
# INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE. Copy this file
# over transformations/events.py to see it.
from pyspark import pipelines as dp

EVENT_SCHEMA = "ts TIMESTAMP, value STRING"


@dp.table(comment="Raw event records")
def events():
    return spark.read.format("json").schema(EVENT_SCHEMA).load("data/incoming")


@dp.append_flow(target="events", name="events_backfill")
def backfill():
    return spark.read.format("json").schema(EVENT_SCHEMA).load("data/backfill")
