from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

spark = SparkSession.active()


@dp.materialized_view
def zones():
    return (spark.read.format("csv").option("header", "true")
            .schema("zip INT, borough STRING").load("data/zones.csv"))


@dp.table(comment="Trips as recorded by the meters")
def taxi_raw():
    return (spark.readStream.format("csv").option("header", "true")
            .schema("tpep_pickup_datetime STRING, tpep_dropoff_datetime STRING, "
                    "trip_distance DOUBLE, fare_amount DOUBLE, pickup_zip INT, dropoff_zip INT")
            .load("data/trips"))


@dp.table(comment="Valid trips with their duration")
@dp.expect_or_drop("valid_fare", "fare_amount > 0")
@dp.expect_or_drop("valid_distance", "trip_distance > 0")
@dp.expect("reasonable_duration", "trip_minutes < 180")
def trips():
    pick = F.to_timestamp("tpep_pickup_datetime")
    drop = F.to_timestamp("tpep_dropoff_datetime")
    return (spark.readStream.table("taxi_raw")
            .select(pick.alias("pickup_ts"), drop.alias("dropoff_ts"),
                    "trip_distance", "fare_amount", "pickup_zip", "dropoff_zip")
            .withColumn("trip_minutes",
                        ((F.unix_timestamp("dropoff_ts") - F.unix_timestamp("pickup_ts")) / 60)
                        .cast("int"))
            .withColumn("day", F.to_date("pickup_ts"))
            .withColumn("hour", F.hour("pickup_ts")))


@dp.materialized_view
def daily_stats():
    return (spark.read.table("trips").groupBy("day")
            .agg(F.count("*").alias("trips"),
                 F.round(F.avg("fare_amount"), 2).alias("avg_fare"),
                 F.round(F.sum("trip_distance"), 1).alias("distance"),
                 F.max("trip_minutes").alias("longest")))


@dp.materialized_view(comment="The three highest fares per pickup borough")
def top_fares():
    w = Window.partitionBy("borough").orderBy(F.col("fare_amount").desc())
    return (spark.read.table("trips")
            .join(spark.read.table("zones"), F.col("pickup_zip") == F.col("zip"))
            .withColumn("rank", F.row_number().over(w))
            .where(F.col("rank") <= 3)
            .select("borough", "rank", "fare_amount", "pickup_ts"))
