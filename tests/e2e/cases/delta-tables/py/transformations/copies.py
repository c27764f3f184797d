from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.table(format="delta")
def evens():
    return spark.readStream.table("src").where("id % 2 = 0")


dp.create_streaming_table("odds", format="delta")


@dp.append_flow(target="odds")
def odd_rows():
    return spark.readStream.table("src").where("id % 2 = 1")


@dp.materialized_view
def odd_count():
    return spark.read.table("odds").selectExpr("count(*) AS n")


# Streams of Delta tables (Delta too, the configured default): the
# streaming table evens; the table deltalake writes at ext (a path);
# the view odd_count, whose refreshes (overwrites) are skipped.
@dp.table
def even_copy():
    return spark.readStream.table("evens")


@dp.table
def ext_copy():
    return spark.readStream.format("delta").load("ext")


@dp.table(table_properties={"pipelines.skipChangeCommits": "true"})
def count_log():
    return spark.readStream.table("odd_count")
