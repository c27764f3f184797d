# A PySpark session against weir serve: a sorted DataFrame's show(), the
# same plan collected, and spark.sql of a join ON arithmetic.
import sys
from pyspark.sql import SparkSession

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
df = spark.table("joined")
print([tuple(r) for r in df.sort(df.x.asc()).collect()])
df.sort(df.x.asc()).show()
df.sort(df.m.desc()).select((df.m * 3).alias("m3")).show()
print(spark.sql("SELECT count(*) AS n FROM dd JOIN ee ON dd.x + 1 = ee.y").collect()[0].n)
print([tuple(r) for r in spark.sql("SELECT * FROM VALUES (PI() * 2), (PI() * 4) AS t(v)").collect()])
