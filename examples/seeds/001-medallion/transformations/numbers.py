# Critical rule 4 of the page: build DataFrames lazily, e.g.
# spark.range(n).selectExpr(...), instead of spark.createDataFrame([...]).
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.materialized_view
def numbers():
    return spark.range(5).selectExpr("id", "id * id AS square")
