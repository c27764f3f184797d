# pipeline.createMaterializedView("daily_counts", ...) and
# pipeline.createTemporaryView("clean_events", ...) of seed 002.
from pyspark import pipelines as dp
from pyspark.sql import functions as F


@dp.materialized_view(comment="Event counts per day")
def daily_counts():
    return (
        spark.read.table("events")
        .groupBy(F.to_date(F.col("ts")).alias("day"))
        .agg(F.count("*").alias("n"))
    )


@dp.temporary_view
def clean_events():
    return spark.read.table("events").where(F.col("value").isNotNull())
