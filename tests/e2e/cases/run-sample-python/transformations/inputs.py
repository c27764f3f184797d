from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


# A file read in batch.
@dp.materialized_view
def big_py():
    return spark.read.format("csv").option("header", "true").load("data/big.csv")


# Files as they land.
@dp.table
def stream_py():
    return (spark.readStream.format("csv").option("header", "true")
            .schema("id INT, name STRING").load("landing"))
