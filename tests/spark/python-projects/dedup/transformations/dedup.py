from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

spark = SparkSession.active()
CHANGE_SCHEMA = "customer_id BIGINT, email STRING, plan STRING, updated_at TIMESTAMP, event_id STRING"


@dp.table(comment="Every change as delivered, replays included")
def changes_raw():
    return spark.readStream.format("json").schema(CHANGE_SCHEMA).load("data/changes")


@dp.table(comment="Each change once (streaming deduplication on the event id)")
def changes_unique():
    # Deduplicates the file source, not changes_raw: Spark resolves the
    # key columns of dropDuplicates when the flow is registered, before
    # any pipeline dataset exists (TABLE_OR_VIEW_NOT_FOUND there).
    return (spark.readStream.format("json").schema(CHANGE_SCHEMA).load("data/changes")
            .dropDuplicates(["event_id"]))


@dp.materialized_view(comment="The latest state of each customer")
def customers_latest():
    w = Window.partitionBy("customer_id").orderBy(F.col("updated_at").desc(), F.col("event_id").desc())
    # select, not .drop("rn"): Spark resolves drop()'s columns when the
    # flow is registered (TABLE_OR_VIEW_NOT_FOUND), weir accepts either
    return (spark.read.table("changes_unique")
            .withColumn("rn", F.row_number().over(w))
            .where("rn = 1")
            .select("customer_id", "email", "plan", "updated_at", "event_id"))


@dp.materialized_view
def customer_plans():
    # groupBy, not .distinct(): Spark resolves distinct()'s columns when the
    # flow is registered, before changes_raw exists
    return (spark.read.table("changes_raw").groupBy("customer_id", "plan")
            .agg(F.count("*").alias("changes")))


@dp.materialized_view
def replayed_events():
    return (spark.read.table("changes_raw").groupBy("event_id")
            .agg(F.count("*").alias("copies"))
            .where(F.col("copies") > 1))
