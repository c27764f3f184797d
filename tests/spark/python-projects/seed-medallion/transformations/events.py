# An events table filled by a live flow and a one-time backfill of old
# files, a daily count over it and a temporary view of the valued events.
from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()
EVENT_SCHEMA = "event_id BIGINT, kind STRING, value INT, ts TIMESTAMP"

dp.create_streaming_table("events", comment="Raw event records")


@dp.append_flow(target="events", name="events_incoming")
def incoming():
    return spark.readStream.format("json").schema(EVENT_SCHEMA).load("data/incoming")


@dp.append_flow(target="events", name="events_backfill", once=True)
def backfill():
    return spark.read.format("json").schema(EVENT_SCHEMA).load("data/backfill")


@dp.materialized_view(comment="Event counts per day")
def daily_counts():
    return (spark.read.table("events")
            .groupBy(F.to_date(F.col("ts")).alias("day"))
            .agg(F.count("*").alias("n")))


@dp.temporary_view
def clean_events():
    return spark.read.table("events").where(F.col("value").isNotNull())


@dp.materialized_view
def value_by_kind():
    return (spark.read.table("clean_events").groupBy("kind")
            .agg(F.sum("value").alias("total"), F.avg("value").alias("mean"),
                 F.min("ts").alias("first_ts")))
