"""Regenerate the Spark Connect plan fixtures of this case with the real,
pinned client (no server needed: plans are built locally):

    TZ=UTC "$(scripts/pyclient.sh)" tests/e2e/cases/connect-plans/gen_plans.py

Each entry of CASES is a DataFrame built with pyspark-client and the rows
Spark gives for it over the tables of case.sh (CSV: a header line, then the
rows in any order; NULL is an empty field), "ERROR <class>" when weir
must refuse the plan, "SQL <text>" for the exact translation (plans that
need a Kafka broker to run), or "PIPELINE" for the streaming plans case.sh
runs as a pipeline. Writes plans/<name>.bin (a serialized
spark.connect.Relation) and plans/<name>.expected.
"""
import datetime
import decimal
import os
import signal
import sys

import pyspark.errors.utils as eu

eu._enable_debugging_cache = True  # record Python origins, as the CLI does
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.connect.conf import RuntimeConf  # noqa: E402
from pyspark.sql.connect.session import SparkSession  # noqa: E402
from pyspark.sql.types import (  # noqa: E402
    ArrayType, DoubleType, LongType, StringType, StructField, StructType)
from pyspark.sql.window import Window  # noqa: E402

spark = SparkSession.builder.remote("sc://localhost:1").create()

# The few settings plan building reads (no server to ask here).
_CONF = {"spark.sql.session.timeZone": "UTC", "spark.sql.timestampType": "TIMESTAMP_LTZ",
         "spark.sql.execution.pythonUDF.arrow.enabled": "false"}


def _conf_get(self, key, default=None):
    return _CONF.get(key, "false" if default is None else default)


RuntimeConf.get = _conf_get


def sql(query, args=None):
    """spark.sql() as the client sends it inside a query function when the
    server gives no sql_command_result (spark.sql itself would call the
    server here)."""
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.plan import SQL
    named = {k: F.lit(v) for k, v in args.items()} if args else None
    return DataFrame(SQL(query, None, named), spark)


orders = spark.read.table("orders")
customers = spark.read.table("customers")
o = orders.alias("o")
c = customers.alias("c")
W = Window.partitionBy("customer_id").orderBy(F.desc("amount"))

CASES = [
    ("read_table", lambda: orders.select("order_id"), "order_id\n1\n2\n3\n4\n5"),
    ("filter_col", lambda: orders.filter(F.col("amount") > 50).select("order_id"),
     "order_id\n2\n5"),
    ("filter_string", lambda: orders.filter("status = 'open' AND amount IS NOT NULL")
     .select("order_id"), "order_id\n1\n3"),
    ("with_column_new", lambda: orders.withColumn("twice", F.col("amount") * 2)
     .filter("order_id < 3").select("order_id", "twice"), "order_id,twice\n1,51.0\n2,200.0"),
    ("with_column_replace", lambda: orders.withColumn("status", F.upper("status"))
     .filter("order_id = 1"), "order_id,customer_id,amount,status\n1,10,25.5,OPEN"),
    ("with_columns_many", lambda: orders.withColumns({"one": F.lit(1), "amount": F.lit(0.5)})
     .filter(F.col("order_id") == 2).select("order_id", "one", "amount"),
     "order_id,one,amount\n2,1,0.5"),
    ("renamed", lambda: orders.withColumnRenamed("amount", "amt").filter("order_id = 3")
     .select("order_id", "amt"), "order_id,amt\n3,7.25"),
    ("renamed_many", lambda: customers.withColumnsRenamed({"id": "cid", "name": "who"})
     .filter("cid = 10").select("cid", "who"), "cid,who\n10,ann"),
    ("drop_names", lambda: orders.drop("status", "no_such_column").filter("order_id = 1"),
     "order_id,customer_id,amount\n1,10,25.5"),
    ("drop_column", lambda: customers.drop(F.col("country")).filter("id = 20"),
     "id,name\n20,bob"),
    ("group_by", lambda: orders.groupBy("customer_id")
     .agg(F.sum("amount").alias("total"), F.count("*").alias("n")),
     "customer_id,total,n\n10,125.5,2\n20,67.25,2\n30,,1"),
    ("count_distinct", lambda: orders.agg(F.countDistinct("customer_id").alias("c")),
     "c\n3"),
    ("rollup", lambda: orders.rollup("status").agg(F.count("*").alias("n")),
     "status,n\nclosed,2\nopen,3\n,5"),
    ("cube", lambda: orders.cube("status").agg(F.count("*").alias("n")),
     "status,n\nclosed,2\nopen,3\n,5"),
    ("join_alias", lambda: o.join(c, F.col("o.customer_id") == F.col("c.id"))
     .select("o.order_id", "c.name"),
     "order_id,name\n1,ann\n2,ann\n3,bob\n5,bob"),
    ("join_plan_ids", lambda: orders.join(customers, orders.customer_id == customers.id, "left")
     .select(orders.order_id, customers.name),
     "order_id,name\n1,ann\n2,ann\n3,bob\n4,\n5,bob"),
    ("join_using", lambda: orders.join(customers.withColumnRenamed("id", "customer_id"),
                                       "customer_id").select("order_id", "name"),
     "order_id,name\n1,ann\n2,ann\n3,bob\n5,bob"),
    ("join_anti", lambda: customers.join(orders, customers.id == orders.customer_id,
                                         "left_anti").select("name"), "name\ncy"),
    ("join_semi", lambda: customers.join(orders, customers.id == orders.customer_id,
                                         "left_semi").select("name"), "name\nann\nbob"),
    ("join_full", lambda: orders.join(customers, orders.customer_id == customers.id, "full")
     .agg(F.count("*").alias("n")), "n\n6"),
    ("join_cross", lambda: orders.crossJoin(customers).agg(F.count("*").alias("n")), "n\n15"),
    ("join_then_filter_group", lambda: o.join(c, F.col("o.customer_id") == F.col("c.id"), "left")
     .groupBy("o.customer_id", "c.country")
     .agg(F.countDistinct("o.order_id").alias("orders"))
     .withColumn("tier", F.when(F.col("orders") > 1, "gold").otherwise(F.lit("std")))
     .filter("country IS NOT NULL").orderBy(F.desc("orders")),
     "customer_id,country,orders,tier\n10,US,2,gold\n20,DE,2,gold"),
    ("union", lambda: orders.select("order_id").union(orders.select("order_id"))
     .agg(F.count("*").alias("n")), "n\n10"),
    ("union_by_name", lambda: orders.select("order_id", "status")
     .unionByName(orders.select("status", "order_id")).filter("order_id = 1"),
     "order_id,status\n1,open\n1,open"),
    ("intersect", lambda: orders.select("customer_id").intersect(customers.select("id")),
     "customer_id\n10\n20"),
    ("subtract", lambda: customers.select("id").subtract(orders.select("customer_id")),
     "id\n40"),
    ("except_all", lambda: orders.select("customer_id")
     .exceptAll(customers.select("id")), "customer_id\n10\n20\n30"),
    ("distinct", lambda: orders.select("status").distinct(), "status\nclosed\nopen"),
    ("drop_duplicates", lambda: orders.dropDuplicates(["customer_id"]).select("customer_id"),
     "customer_id\n10\n20\n30"),
    ("sort_limit", lambda: orders.orderBy(F.desc("amount")).limit(2).select("order_id"),
     "order_id\n2\n5"),
    ("offset", lambda: orders.orderBy("order_id").offset(3).select("order_id"),
     "order_id\n4\n5"),
    ("sort_nulls_first", lambda: orders.orderBy(F.col("amount").asc_nulls_first()).limit(1)
     .select("order_id"), "order_id\n4"),
    ("sql", lambda: sql("SELECT order_id FROM orders WHERE amount > 50"),
     "order_id\n2\n5"),
    ("sql_args", lambda: sql("SELECT order_id FROM orders WHERE amount > :m "
                                   "AND status = :s", args={"m": 50, "s": "closed"}),
     "order_id\n2\n5"),
    ("range", lambda: spark.range(1, 10, 3), "id\n1\n4\n7"),
    ("to_df", lambda: spark.range(2).toDF("n"), "n\n0\n1"),
    ("literals", lambda: spark.range(1).select(
        F.lit(None).cast("int").alias("n"), F.lit(True).alias("b"), F.lit(5).alias("i"),
        F.lit(2 ** 40).alias("l"), F.lit(1.5).alias("d"), F.lit("it's \\ \"q\"").alias("s"),
        F.lit(datetime.date(2024, 1, 2)).alias("dt"),
        F.lit(datetime.datetime(2024, 1, 2, 3, 4, 5, 6)).alias("ts"),
        F.lit(decimal.Decimal("1.50")).alias("dec"),
        F.lit(float("nan")).cast("string").alias("nan"), F.lit(-2.5e-7).cast("string").alias("small")),
     "n,b,i,l,d,s,dt,ts,dec,nan,small\n,true,5,1099511627776,1.5,\"it's \\ \"\"q\"\"\","
     "2024-01-02,2024-01-02 03:04:05.000006,1.50,NaN,-2.5E-7"),
    ("when_otherwise", lambda: orders.select(
        "order_id", F.when(F.col("amount") > 50, "big").when(F.col("amount").isNull(), "none")
        .otherwise("small").alias("size")),
     "order_id,size\n1,small\n2,big\n3,small\n4,none\n5,big"),
    ("predicates", lambda: orders.filter(
        (F.col("status").isin("open") & ~F.col("order_id").between(2, 3))
        | F.col("status").like("clo%")).select("order_id"), "order_id\n1\n2\n4\n5"),
    ("predicates_more", lambda: orders.filter(
        F.col("amount").isNotNull() & F.col("status").rlike("^o") & (F.col("order_id") != 3)
        & (F.col("order_id") % 2 == 1)).select("order_id"), "order_id\n1"),
    ("casts", lambda: orders.filter("order_id = 1").select(
        F.col("amount").cast("int").alias("a"), F.col("order_id").cast(StringType()).alias("s"),
        F.col("status").try_cast("int").alias("t")), "a,s,t\n25,1,"),
    ("window_rank", lambda: orders.select(
        "order_id", F.row_number().over(W).alias("rn")).filter("rn = 1"),
     "order_id,rn\n2,1\n4,1\n5,1"),
    ("window_frame", lambda: orders.select(
        "order_id", F.sum("order_id").over(
            Window.orderBy("order_id").rowsBetween(-1, Window.currentRow)).alias("s")),
     "order_id,s\n1,1\n2,3\n3,5\n4,7\n5,9"),
    ("extract_value", lambda: sql(
        "SELECT map('k', 1) AS m, array(10, 20) AS a, named_struct('x', 5) AS s").select(
        F.col("m")["k"].alias("mk"), F.col("a")[1].alias("a1"),
        F.col("s").getField("x").alias("sx"), F.col("s.x").alias("sx2")),
     "mk,a1,sx,sx2\n1,20,5,5"),
    ("lambdas", lambda: spark.range(1).select(
        F.transform(F.array(F.lit(1), F.lit(2)), lambda x: x + 1).alias("t"),
        F.filter(F.array(F.lit(1), F.lit(2), F.lit(3)), lambda x: x > 1).alias("f"),
        F.aggregate(F.array(F.lit(1), F.lit(2)), F.lit(0), lambda acc, x: acc + x).alias("a")),
     "t,f,a\n\"[2, 3]\",\"[2, 3]\",3"),
    ("select_expr", lambda: orders.selectExpr("order_id", "upper(status) AS st")
     .filter("order_id = 1"), "order_id,st\n1,OPEN"),
    ("f_expr", lambda: orders.select(F.expr("amount * 2").alias("twice"))
     .filter("twice > 150"), "twice\n200.0"),
    ("star_target", lambda: c.select("c.*").filter("id = 40"), "id,name,country\n40,cy,"),
    ("functions", lambda: customers.filter("id = 10").select(
        F.concat_ws("-", "name", "country").alias("nc"), F.length("name").alias("len"),
        F.coalesce(F.col("country"), F.lit("?")).alias("co"),
        F.substring("name", 1, 2).alias("sub")), "nc,len,co,sub\nann-US,3,US,an"),
    ("hint", lambda: orders.hint("broadcast").filter("order_id = 5").select("order_id"),
     "order_id\n5"),
    ("csv_schema_struct", lambda: spark.read.format("csv").schema(StructType(
        [StructField("id", LongType()), StructField("country", StringType())]))
     .option("header", "true").load("data/customers.csv").dropDuplicates(["id"])
     .selectExpr("id", "upper(country) AS country"), "id,country\n1,US\n2,DE"),
    ("json_schema_ddl", lambda: spark.read.format("json").schema("id BIGINT, name STRING")
     .load("data/people.json").select("name"), "name\nann\nbob"),
    ("udf", lambda: orders.select(F.udf(lambda x: x, LongType(), useArrow=False)("order_id")),
     "ERROR UNSUPPORTED_FEATURE.PYTHON_UDF"),
    ("sample", lambda: orders.sample(0.5), "ERROR UNSUPPORTED_FEATURE.CONNECT_PLAN"),
    # Kafka reads become read_kafka(...) with Spark's option names ("SQL
    # <text>": the exact translation, checked by unit/test_connect_plan).
    ("kafka_stream", lambda: spark.readStream.format("kafka")
     .option("kafka.bootstrap.servers", "127.0.0.1:9092").option("subscribe", "orders")
     .option("startingOffsets", "earliest").load(),
     "SQL SELECT * FROM STREAM read_kafka(bootstrapServers => '127.0.0.1:9092', "
     "subscribe => 'orders', startingOffsets => 'earliest') AS _p1"),
    ("kafka_options", lambda: spark.readStream.format("kafka").options(**{
        "subscribePattern": "orders-.*", "kafka.bootstrap.servers": "h1:9092,h2:9092",
        "maxoffsetspertrigger": 1000, "failOnDataLoss": False, "includeHeaders": True,
        "kafka.security.protocol": "SSL", "kafka.ssl.ca.location": "/etc/it's.pem",
        "startingOffsets": '{"orders-1":{"0":23,"1":-2}}'}).load(),
     "SQL SELECT * FROM STREAM read_kafka(bootstrapServers => 'h1:9092,h2:9092', "
     "subscribePattern => 'orders-.*', startingOffsets => '{\"orders-1\":{\"0\":23,\"1\":-2}}', "
     "failOnDataLoss => 'false', maxOffsetsPerTrigger => '1000', includeHeaders => 'true', "
     "`kafka.security.protocol` => 'SSL', `kafka.ssl.ca.location` => '/etc/it\\'s.pem') "
     "AS _p1"),
    ("kafka_batch_assign", lambda: spark.read.format("kafka")
     .option("kafka.bootstrap.servers", "b:1").option("assign", '{"t":[0,1]}')
     .option("startingoffsets", "earliest").option("endingOffsets", "latest").load()
     .selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value"),
     "SQL SELECT CAST(key AS STRING) AS key, CAST(value AS STRING) AS value FROM "
     "read_kafka(bootstrapServers => 'b:1', assign => '{\"t\":[0,1]}', "
     "startingOffsets => 'earliest', endingOffsets => 'latest') AS _p1"),
    ("kafka_parse", lambda: spark.readStream.format("kafka")
     .option("kafka.bootstrap.servers", "b:1").option("subscribe", "t").load()
     .select(F.col("key").cast("string").alias("key"),
             F.from_json(F.col("value").cast("string"), StructType(
                 [StructField("id", LongType()), StructField("name", StringType())]))
             .alias("data"), "timestamp")
     .select("key", "data.*", "timestamp").filter(F.col("id") > 0),
     "SQL SELECT * FROM (SELECT key, data.*, `timestamp` FROM (SELECT CAST(key AS string) "
     "AS key, from_json(CAST(value AS string), 'id BIGINT, name STRING') AS data, "
     "`timestamp` FROM STREAM read_kafka(bootstrapServers => 'b:1', subscribe => 't') AS _p1) "
     "AS _p2) AS _p3 WHERE (id > 0)"),
    ("kafka_schema", lambda: spark.readStream.format("kafka").schema("a INT")
     .option("subscribe", "t").load(), "ERROR INVALID_PLAN"),
    # The Kafka payload patterns over rows (value and key are BINARY).
    ("kafka_value_parse", lambda: sql(
        "SELECT CAST('k1' AS BINARY) AS key, CAST('{\"id\": 1, \"name\": \"ann\", "
        "\"amount\": 2.5}' AS BINARY) AS value UNION ALL SELECT CAST(NULL AS BINARY), "
        "CAST('not json' AS BINARY)")
     .select(F.col("key").cast("string").alias("key"),
             F.from_json(F.col("value").cast("string"), StructType(
                 [StructField("id", LongType()), StructField("name", StringType()),
                  StructField("amount", DoubleType())])).alias("data"))
     .select("key", "data.*"), "key,id,name,amount\nk1,1,ann,2.5\n,,,"),
    ("kafka_value_ddl", lambda: sql(
        "SELECT CAST('{\"id\": 7, \"tags\": [\"a\", \"b\"]}' AS BINARY) AS value")
     .select(F.from_json(F.col("value").cast("string"), "id BIGINT, tags ARRAY<STRING>")
             .alias("data")).select("data.id", F.col("data.tags")[1].alias("t1")),
     "id,t1\n7,b"),
    ("kafka_value_array", lambda: sql("SELECT CAST('[1, 2]' AS BINARY) AS value")
     .select(F.from_json(F.col("value").cast("string"), ArrayType(LongType()))
             .alias("a")).select(F.size("a").alias("n")), "n\n2"),
    ("kafka_to_json", lambda: orders.filter("order_id IN (1, 4)")
     .select(F.to_json(F.struct("*")).alias("value")),
     'value\n"{""order_id"":1,""customer_id"":10,""amount"":25.5,""status"":""open""}"\n'
     '"{""order_id"":4,""customer_id"":30,""status"":""open""}"'),
    ("kafka_to_json_expr", lambda: customers.filter("id = 10").selectExpr(
        "CAST(id AS STRING) AS key", "to_json(struct(*)) AS value"),
     'key,value\n10,"{""id"":10,""name"":""ann"",""country"":""US""}"'),
    # Streaming plans, run in the pipeline of case.sh (stream_*.sql there).
    ("stream_bronze", lambda: spark.readStream.format("cloudFiles")
     .option("cloudFiles.format", "json").option("cloudFiles.schemaHints", "amount DOUBLE")
     .load("landing").withColumn("ingested", F.lit(True)), "PIPELINE"),
    ("stream_silver", lambda: spark.readStream.table("bronze")
     .withWatermark("ts", "10 minutes").filter(F.col("amount") > 1)
     .select("id", (F.col("amount") * 10).alias("amount10")), "PIPELINE"),
    ("stream_gold", lambda: spark.read.table("silver").groupBy()
     .agg(F.sum("amount10").alias("total")), "PIPELINE"),
]

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plans")
os.makedirs(out, exist_ok=True)
only = set(sys.argv[1:])


def timeout(*_):
    raise TimeoutError("the builder called the server")


signal.signal(signal.SIGALRM, timeout)
for name, build, expected in CASES:
    if only and name not in only:
        continue
    signal.alarm(20)  # a builder that calls the server would hang
    try:
        rel = build()._plan.plan(spark._client)
    except BaseException as e:  # noqa: B036
        print(name, "FAILED:", type(e).__name__, str(e)[:200], file=sys.stderr)
        continue
    finally:
        signal.alarm(0)
    with open(os.path.join(out, name + ".bin"), "wb") as f:
        f.write(rel.SerializeToString())
    with open(os.path.join(out, name + ".expected"), "w") as f:
        f.write(expected + "\n")
print(len(CASES), "plans written to", out)
