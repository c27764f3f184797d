# pipeline.createTable("events", ...) and pipeline.defineFlow(
# "events_backfill", ..., target = Some("events")) of seed 002.
#
# The page reads both with spark.read (batch). A table filled by a batch
# query is a materialized view in SDP, and a second flow into it is
# refused, so here events reads its folder as a stream and the backfill is
# a once flow, as the rest of the page implies (the page's own version is
# not-runnable/events_as_written.py; see ../README.md).
from pyspark import pipelines as dp

EVENT_SCHEMA = "ts TIMESTAMP, value STRING"


@dp.table(comment="Raw event records")
def events():
    return spark.readStream.format("json").schema(EVENT_SCHEMA).load("data/incoming")


@dp.append_flow(target="events", name="events_backfill", once=True)
def backfill():
    return spark.read.format("json").schema(EVENT_SCHEMA).load("data/backfill")
