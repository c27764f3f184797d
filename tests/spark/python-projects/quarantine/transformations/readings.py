from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()

RULES = {
    "valid_device": "device IS NOT NULL",
    "valid_temperature": "temperature BETWEEN -40 AND 60",
    "valid_humidity": "humidity BETWEEN 0 AND 100",
}
ALL_RULES = " AND ".join("(%s)" % c for c in RULES.values())


@dp.table
def readings_raw():
    return (spark.readStream.format("json")
            .schema("reading_id BIGINT, device STRING, temperature DOUBLE, humidity INT")
            .load("data/readings"))


@dp.temporary_view
def readings_flagged():
    # a NULL rule result counts as a violation
    return (spark.readStream.table("readings_raw")
            .withColumn("is_quarantined", ~F.coalesce(F.expr(ALL_RULES), F.lit(False))))


@dp.table(comment="Readings that pass every rule")
@dp.expect_all_or_drop(RULES)
def readings_valid():
    return (spark.readStream.table("readings_flagged")
            .where("NOT is_quarantined")
            .select("reading_id", "device", "temperature", "humidity"))


@dp.table(comment="Readings that break a rule, with the rules they break")
def readings_quarantine():
    broken = [F.when(~F.coalesce(F.expr(c), F.lit(False)), F.lit(n)) for n, c in RULES.items()]
    return (spark.readStream.table("readings_flagged")
            .where("is_quarantined")
            .select("reading_id", "device", "temperature", "humidity",
                    F.concat_ws(",", *broken).alias("broken_rules")))


@dp.materialized_view
def device_summary():
    return (spark.read.table("readings_valid").groupBy("device")
            .agg(F.count("*").alias("readings"),
                 F.round(F.avg("temperature"), 2).alias("avg_temperature"),
                 F.min("humidity").alias("min_humidity"),
                 F.max("humidity").alias("max_humidity")))


@dp.materialized_view
def quarantine_reasons():
    return (spark.read.table("readings_quarantine")
            .select(F.explode(F.split("broken_rules", ",")).alias("rule"))
            .groupBy("rule").count())
