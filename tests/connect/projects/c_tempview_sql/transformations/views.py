from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql import SparkSession

spark = SparkSession.active()  # pyspark-client 4.1 does not inject it


@dp.temporary_view(comment="active, de-duplicated customers")
def customers_clean():
    return (
        spark.read.table("raw_customers")
        .filter(F.col("active") == F.lit(True))
        .dropDuplicates(["id"])
        .withColumns({"country": F.upper("country"), "signup_day": F.to_date("signup_ts")})
    )
