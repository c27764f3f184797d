from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()
# The pipeline configuration after the environment and --conf.
GREETING = spark.conf.get("greeting")


@dp.materialized_view
def greet_py():
    return spark.sql(f"SELECT '{GREETING}' AS greeting")
