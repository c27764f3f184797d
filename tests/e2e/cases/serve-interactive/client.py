# An interactive PySpark session against `weir serve --spec`: queries of
# the served project's tables, Arrow results, schemas, show(), SQL
# statements run eagerly, errors with Spark's classes.
import os
import sys
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()

print("sql:", spark.sql("SELECT 1 AS x, 'a' AS s, NULL AS n").collect())
orders = spark.read.table("orders")
print("columns:", orders.columns)
print("schema:", orders.schema.simpleString())
print("count:", orders.count())
print("filter:", orders.filter(F.col("paid")).select("id", "customer").orderBy("id").collect())
pdf = spark.table("by_customer").orderBy("customer").toPandas()
print("pandas:", pdf.to_dict("records"))
print("dtypes:", [str(t) for t in pdf.dtypes])
row = orders.orderBy("id").first()
print("first:", row.id, row.day, row.placed_at, row.tag, row.amount)
orders.select("id", "customer", "amount").orderBy("id").show(3)
orders.select("customer").orderBy("id").show(2, vertical=True)
spark.sql("SELECT 'abcdefghijklmnopqrstuvwxyz' AS long, CAST(NULL AS STRING) AS n, X'0102FF' AS b").show()
spark.sql("SELECT 1 AS x WHERE false").show()
print("empty:", spark.sql("SELECT id FROM orders WHERE id < 0").collect())
big = spark.range(0, 200000).selectExpr("id", "id * 2 AS twice")
print("big:", big.count(), sum(r.twice for r in big.collect()))
import datetime, decimal
local = spark.createDataFrame(
    [(1, "a", 2.5, True, datetime.date(2024, 1, 2),
      datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), decimal.Decimal("12.340"),
      b"\x01\xff", None),
     (2, "it's", float("nan"), False, None, None, None, None, "x")],
    "id long, s string, d double, b boolean, dt date, ts timestamp, "
    "dec decimal(10,3), bin binary, n string")
print("local:", local.orderBy("id").collect())
print("local schema:", local.schema.simpleString())
print("local join:", local.join(orders, "id").select("id", "customer").orderBy("id").collect())
print("local empty:", spark.createDataFrame([], "a int, b string").schema.simpleString())
spark.sql("CREATE TABLE notes (id BIGINT, note STRING)")
spark.sql("INSERT INTO notes VALUES (1, 'first'), (2, NULL)")
print("notes:", spark.table("notes").orderBy("id").collect())
print("events:", spark.sql("SELECT count(*) AS n FROM event_log() WHERE event_type = 'flow_progress' AND message LIKE '%orders has COMPLETED.'").collect())
for q in ["SELECT * FROM missing_table", "SELECT 1 +", "SELECT nope FROM orders"]:
    try:
        spark.sql(q).collect()
    except Exception as e:
        print("error:", type(e).__name__, getattr(e, "getErrorClass", lambda: None)())
spark.conf.set("weir.test.key", "one")
other = SparkSession.builder.remote(sys.argv[1]).create()
print("confs:", spark.conf.get("weir.test.key"), other.conf.get("weir.test.key", "unset"))
other.conf.set("weir.test.key", "two")
print("confs:", spark.conf.get("weir.test.key"), other.conf.get("weir.test.key"))
print("other:", other.sql("SELECT count(*) AS n FROM orders").collect())
# a session's time zone is its own
other.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
print("zones:", other.sql("SELECT current_timezone() AS z").collect(),
      spark.sql("SELECT current_timezone() AS z").collect(),
      other.sql("SELECT CAST(TIMESTAMP'2024-01-01 00:00:00Z' AS STRING) AS s").collect())
try:
    spark.table("orders").createOrReplaceTempView("v")
except Exception as e:
    print("error:", type(e).__name__, str(e).splitlines()[0][:160])
other.stop()
spark.stop()
# The client's gRPC threads can keep the interpreter from exiting after
# both sessions stopped (seen under load): end here, output flushed.
sys.stdout.flush()
os._exit(0)
