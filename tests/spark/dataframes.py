#!/usr/bin/env python3
"""The DataFrame corpus: what notebooks and pipeline files do with the
PySpark client (generated column names, expression strings, joins, local
data, DataFrame operations, actions), run with the pinned pyspark-client
against Apache Spark's Connect server and against `weir serve`, and
compared: column names, types and rows (or the error class).

Modes:
  --run URL --out F     run every case against the server at URL with this
                        interpreter (it must have pyspark-client); JSON to F
  --spark VENV          start Spark's Connect server from VENV (pyspark
                        4.1.4, Java 17), run the cases with --client
  --weir WEIR           start `weir serve` and run the cases with --client
  --write-expected      (with --spark) store Spark's answers in
                        dataframe-expected.json beside this script; with
                        --only, only the matching cases' answers change
  --expected            (with --weir) compare with the stored answers
Without --expected, --spark and --weir together run both and compare.
Options: --only REGEX, --out-dir DIR (results and report.md).

Each case is a function of the session returning a DataFrame (collected:
columns, simple type strings, rows), or another value (a string from
show(), a list of columns, a pandas frame as its records), in the CASES
list below; `ordered` cases compare rows in order, others as multisets.
The last line is `N passed, N failed`.
"""
import argparse
import datetime
import decimal
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
EXPECTED = os.path.join(HERE, "dataframe-expected.json")

CASES = []


def case(name, ordered=False):
    def reg(fn):
        CASES.append((name, fn, ordered))
        return fn
    return reg


# ---------------------------------------------------------------------------
# The cases. Each builds its data inline so both servers see the same.
# ---------------------------------------------------------------------------

def _F():
    from pyspark.sql import functions as F
    return F


def _people(spark):
    return spark.sql("SELECT * FROM VALUES (1, 'ann', 10, 25.5D, DATE'2024-01-05', "
                     "TIMESTAMP'2024-01-05 10:30:00'), (2, 'bob', 20, -7.25D, "
                     "DATE'2024-02-29', TIMESTAMP'2024-02-29 23:59:59'), "
                     "(3, CAST(NULL AS STRING), 10, CAST(NULL AS DOUBLE), NULL, NULL) "
                     "AS t(id, name, dept, amount, d, ts)")


@case("names/aggregate_of_df_column")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.groupBy("dept").agg(F.sum(df.amount), F.max(df["id"]), F.count(df.name))


@case("names/math_upper_case")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.filter("id = 1").select(F.acos(F.lit(1)), F.ceil(df.amount), F.floor("amount"),
                                      F.sqrt(df.id), F.exp(F.lit(0)), F.log(df.id),
                                      F.log(10.0, df.id), F.log10(df.id), F.pow(df.id, 2),
                                      F.e(), F.pi(), F.signum(df.amount))


@case("names/operators_and_nulls")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(df.id + 1, df.amount * 2, -df.id, ~(df.id > 1), df.name.isNotNull(),
                     df.name.isNull(), F.isnotnull(df.name), F.isnull("name"),
                     (df.id == 1) | (df.dept != 10), df.name.like("a%"),
                     df.id.between(1, 2), df.id.isin(1, 3))


@case("names/date_functions")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.date_add(df.d, 1), F.dateadd("d", 2), F.date_sub(df.d, 1),
                     F.datediff(df.d, df.d), F.year(df.d), F.hour(df.ts), F.to_date(df.ts),
                     F.date_format(df.ts, "yyyy-MM"), F.add_months(df.d, 1),
                     F.months_between(df.ts, df.ts), F.date_trunc("month", df.ts))


@case("names/rounding_defaults")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.bround(F.lit(2.5)), F.round(df.amount), F.round(df.amount, 1),
                     F.bround(df.amount, 1))


@case("names/strings")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.upper(df.name), F.length("name"), F.substring(df.name, 1, 2),
                     F.concat_ws("-", df.name, F.lit("x")), F.split(df.name, "n"),
                     F.regexp_replace(df.name, "a", "b"), F.regexp_extract(df.name, "(a)", 1),
                     F.lpad(df.name, 5, "*"), F.trim(df.name), F.locate("n", df.name),
                     F.coalesce(df.name, F.lit("?")), F.concat(df.name, F.lit("!")))


@case("names/casts")
def _(spark):
    df = _people(spark)
    return df.select(df.id.cast("string"), df.amount.cast("int") + 1,
                     (df.id + 1).cast("double"), df.name.astype("string"))


@case("names/windows")
def _(spark):
    F = _F()
    from pyspark.sql import Window
    df = _people(spark)
    w = Window.partitionBy("dept").orderBy("id")
    return df.select("id", F.row_number().over(w), F.rank().over(w), F.lag(df.id).over(w),
                     F.lead("id", 2).over(w), F.sum("amount").over(Window.partitionBy("dept")),
                     F.first("id").over(w))


@case("names/time_windows")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.where(df.ts.isNotNull()).select("id", F.window(df.ts, "10 minutes"))


@case("names/session_windows")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.session_window("ts", "5 minutes"), "name")


@case("names/lambdas_and_collections")
def _(spark):
    F = _F()
    df = spark.sql("SELECT * FROM VALUES (1, array(3, 1, 2)) AS t(id, xs)")
    return df.select(F.transform("xs", lambda x: x + 1), F.filter(df.xs, lambda x: x > 1),
                     F.array_sort("xs"), F.size("xs"), F.array_contains("xs", 1),
                     F.aggregate("xs", F.lit(0), lambda a, x: a + x), F.sort_array("xs"))


@case("names/aggregates")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.agg(F.count("*"), F.count(df.name), F.countDistinct("dept"), F.avg("amount"),
                  F.first("name"), F.sort_array(F.collect_list("dept")), F.min(df.d), F.stddev("amount"),
                  F.approx_count_distinct("dept"), F.sum_distinct(df.dept))


@case("names/grouped_data_shortcuts")
def _(spark):
    df = _people(spark)
    return df.groupBy("dept").count().join(df.groupBy("dept").sum("amount"), "dept") \
        .join(df.groupBy("dept").agg({"id": "max"}), "dept") \
        .join(df.groupBy("dept").avg("id"), "dept")


@case("names/when_and_literals")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.when(df.id > 1, "big").otherwise("small"),
                     F.when(df.dept == 10, 1), F.lit(1), F.lit("x"), F.lit(2.5),
                     F.lit(None).cast("string"), F.lit(True), F.expr("id + 1"), F.expr("upper(name)"))


@case("names/json")
def _(spark):
    F = _F()
    df = spark.sql("""SELECT * FROM VALUES (1, '{"a": 1, "b": "x"}') AS t(id, js)""")
    return df.select(F.from_json("js", "a INT, b STRING"), F.get_json_object("js", "$.a"),
                     F.to_json(F.struct("id")), F.struct(df.id, "js"))


@case("names/nested_fields")
def _(spark):
    F = _F()
    df = spark.sql("SELECT * FROM VALUES (1, named_struct('x', 1, 'y', 'a'), map('k', 2), "
                   "array(5, 6)) AS t(id, s, m, xs)")
    return df.select(df.s.x, df["s"]["y"], F.col("s.x") + 1, df.m["k"], df.xs[0],
                     F.upper(df.s.y), F.element_at("xs", 1))


@case("expr_alias/select_and_select_expr")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.select(F.expr("HOUR(ts) AS hour"), F.expr("id b")).join(
        df.selectExpr("id AS b", "upper(name) AS n", "dept d"), "b")


@case("expr_alias/with_column")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.withColumn("h", F.expr("hour(ts) as h")) \
        .withColumns({"x": F.expr("id * 2 AS y"), "z": F.expr("upper(name) AS w")})


@case("expr_alias/group_and_aggregate")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.groupBy(F.expr("dept AS department")).agg(F.expr("sum(id) AS s"),
                                                        F.expr("count(*) n"))


@case("expr_alias/inside_expressions")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.filter(F.expr("id > 1 AS p")).orderBy(F.expr("id AS z")) \
        .select(F.expr("id + 1 AS b").alias("c"), "id")


# withColumn(s) of an existing column and withColumnRenamed keep its
# position; a new column is appended; renaming a missing column is a no-op.
@case("positions/with_column_existing_and_new")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.withColumn("name", F.upper("name")).withColumn("x", df.id * 10) \
        .withColumns({"dept": F.col("dept") + 1, "y": F.lit(1), "id": F.col("id") * 2})


@case("positions/with_column_reads_old_values")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.withColumns({"id": F.col("id") + 100, "z": F.col("id")}).filter("id > 101") \
        .withColumn("Dept", F.col("dept") * 2).select("*")


@case("positions/with_column_window_and_stream_of_steps")
def _(spark):
    F = _F()
    from pyspark.sql import Window
    df = _people(spark)
    return df.withColumn("dept", F.row_number().over(Window.orderBy("id"))) \
        .filter(F.col("dept") > 1).withColumn("amount", F.coalesce("amount", F.lit(0.0)))


@case("positions/renamed")
def _(spark):
    df = _people(spark)
    return df.withColumnRenamed("name", "who").withColumnRenamed("no_such", "x") \
        .withColumnsRenamed({"dept": "department", "ID": "key"})


@case("positions/renamed_then_with_column")
def _(spark):
    F = _F()
    df = _people(spark)
    return df.withColumnRenamed("amount", "amt").withColumn("amt", F.col("amt") * 2) \
        .groupBy("dept").agg(F.sum("amt").alias("s"))


# Joins of DataFrames sharing column names: references carry their
# DataFrame's plan id and resolve to that side; a bare name both sides have
# is AMBIGUOUS_REFERENCE.
def _emp_dept(spark):
    p = spark.sql("SELECT * FROM VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', 30) "
                  "AS t(id, name, dept)")
    d = spark.sql("SELECT * FROM VALUES (10, 'eng'), (20, 'ops'), (40, 'hr') AS t(id, name)")
    return p, d, p.join(d, p.dept == d.id)


@case("joins/select_each_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.select(p.id, d.name, d.id, p.name)


@case("joins/bare_name_ambiguous")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.select("name")


@case("joins/drop_right_column")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop(d.name)


@case("joins/drop_left_column")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop(p.name, "dept")


@case("joins/drop_name_drops_both")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop("name", "no_such_column")


@case("joins/drop_then_select")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop(p.id).select(d.id, p.name)


@case("joins/drop_then_filter_and_group")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.drop(p.name).filter(d.id > 5).groupBy(d.name).agg(F.count(p.id).alias("n"))


@case("joins/with_column_of_right_side")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.withColumn("x", F.upper(d.name)).withColumn("y", F.concat(p.name, F.col("x")))


@case("joins/with_column_then_select")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.withColumn("z", F.lit(1)).withColumn("dept", F.col("dept") * 2) \
        .select(d.name, "z", F.col("dept") + F.col("z"), p.name)


@case("joins/distinct_keeps_names")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.distinct()


@case("joins/distinct_then_each_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.distinct().select(d.name, p.name, (p.id + d.id).alias("s"))


@case("joins/drop_duplicates_then_group_by_side")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.dropDuplicates().groupBy(d.name).agg(F.count(p.id).alias("n"))


@case("joins/left_join_sides")
def _(spark):
    p, d, _j = _emp_dept(spark)
    return p.join(d, p.dept == d.id, "left").select(p.name, d.name)


# Forms that rebuild a join's select list: each keeps Spark's names (both
# sides' same-named columns) and a side's reference keeps naming that side.
@case("joins/rename_then_select_sides")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.withColumnRenamed("dept", "dd").select(d.name, p.name, "dd", d.id)


@case("joins/rename_keeps_names")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.withColumnRenamed("dept", "dd")


@case("joins/rename_shared_name")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.withColumnRenamed("name", "nm")


@case("joins/rename_then_bare_shared_name")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.withColumnRenamed("dept", "dd").select("name")


@case("joins/union_keeps_names")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.union(j)


@case("joins/union_then_select_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.union(j).select(d.name)


@case("joins/drop_duplicates_cols_keeps_names")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.dropDuplicates(["dept"])


@case("joins/drop_duplicates_cols_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.dropDuplicates(["dept"]).select(d.name, p.name)


@case("joins/drop_then_distinct")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop("dept").distinct()


@case("joins/drop_then_distinct_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.drop("dept").distinct().select(d.name, p.id)


@case("joins/select_star")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.select("*")


@case("joins/select_star_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.select("*").select(d.name, p.name)


@case("joins/with_column_shared_name")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.withColumn("name", F.lit("x"))


@case("joins/with_column_shared_name_then_side")
def _(spark):
    F = _F()
    p, d, j = _emp_dept(spark)
    return j.withColumn("name", F.upper(d.name)).select(d.id, p.id, "dept")


@case("joins/distinct_then_bare_shared_name")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.distinct().select("name")


@case("joins/limit_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.limit(10).select(d.name, p.name)


@case("joins/alias_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.alias("jj").select(d.name, p.name)


@case("joins/sort_then_side")
def _(spark):
    p, d, j = _emp_dept(spark)
    return j.select("*").orderBy(p.id).select(d.name)


@case("joins/local_frames")
def _(spark):
    a = spark.createDataFrame([(1, "x"), (2, "y"), (3, None)], "id INT, value STRING")
    b = spark.createDataFrame([(10, "x"), (20, "y"), (30, "z")], "id INT, value STRING")
    j = a.join(b, a["value"] == b["value"])
    return [j.count(), sorted(j.select(a.id, b.id, b.value).collect())]


@case("joins/self_join_ambiguous")
def _(spark):
    F = _F()
    p, _d, _j = _emp_dept(spark)
    return p.join(p.alias("q"), p.dept == F.col("q.dept")).select(p.id)


# createDataFrame of nested local data: types as Spark infers them, or as a
# DDL string or StructType gives them.
@case("local/nested_inferred")
def _(spark):
    from pyspark.sql import Row
    return spark.createDataFrame([
        (1, [1, 2], {"a": 1}, Row(x=1, y="p"), [Row(k="u", v=1.5)]),
        (2, [], {}, Row(x=None, y=None), []),
        (3, None, None, None, None)], ["id", "xs", "m", "s", "rs"])


@case("local/nested_rows")
def _(spark):
    from pyspark.sql import Row
    return spark.createDataFrame([Row(id=1, tags=["a", "b"], addr=Row(city="x", zip=1)),
                                  Row(id=2, tags=["c"], addr=Row(city="y", zip=2))])


@case("local/nested_ddl_schema")
def _(spark):
    return spark.createDataFrame(
        [(1, ["a", None], {"k": [1, 2]}, (2.5, ("in", 3)))],
        "id INT, tags ARRAY<STRING>, m MAP<STRING, ARRAY<BIGINT>>, "
        "s STRUCT<d: DOUBLE, t: STRUCT<name: STRING, n: INT>>")


@case("local/nested_struct_type")
def _(spark):
    import decimal
    from pyspark.sql.types import (ArrayType, DecimalType, IntegerType, MapType, StringType,
                                   StructField, StructType)
    schema = StructType([
        StructField("id", IntegerType()),
        StructField("amounts", ArrayType(DecimalType(10, 2))),
        StructField("attrs", MapType(StringType(), StringType())),
        StructField("who", StructType([StructField("first", StringType()),
                                       StructField("ids", ArrayType(IntegerType()))]))])
    return spark.createDataFrame(
        [(1, [decimal.Decimal("1.25"), None], {"a": "b", "c": None}, ("ann", [1, 2])),
         (2, None, {}, None)], schema)


@case("local/nested_then_functions")
def _(spark):
    F = _F()
    df = spark.createDataFrame([(1, [3, 1, 2], {"a": 1, "b": 2}, ("z", 9))],
                               "id INT, xs ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<n: STRING, v: INT>")
    return df.select(F.size("xs").alias("n"), F.array_sort("xs").alias("sorted"),
                     F.map_keys("m").alias("keys"), df.s.n, F.col("s.v") + 1,
                     F.explode("xs").alias("x"))


# show(): values are cut at 20 characters, headers never.
@case("show/long_headers")
def _(spark):
    F = _F()
    df = spark.sql("SELECT * FROM VALUES (1, 'a rather long string value here') AS t(age, s)")
    return show(df.select(F.when(df.age > 3, 1).otherwise(0), df.s,
                          (df.age + 1).alias("a_very_long_column_name_indeed")))


# spark.sql.session.timeZone set on the session (spark.conf.set, or SQL's
# SET TIME ZONE) applies to the session's later queries. Collected inside
# the case, which puts the session's zone back.
@case("session/time_zone_conf")
def _(spark):
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df = spark.sql("SELECT current_timezone() AS z, "
                       "CAST(TIMESTAMP'2024-01-15 10:00:00' AS STRING) AS s, "
                       "hour(TIMESTAMP'2024-01-15 10:00:00') AS h, "
                       "unix_timestamp('2024-01-15 10:00:00') AS u, "
                       "from_unixtime(0) AS f")
        first = [list(r) for r in df.collect()]
        spark.sql("SET TIME ZONE 'Asia/Kolkata'")
        conf = spark.conf.get("spark.sql.session.timeZone")
        second = [list(r) for r in spark.sql("SELECT current_timezone() AS z, "
                                             "from_unixtime(0) AS f").collect()]
    finally:
        spark.conf.unset("spark.sql.session.timeZone")
    after = [list(r) for r in spark.sql("SELECT current_timezone() AS z").collect()]
    return [first, conf, second, after]


def run_cases(url, out, only):
    import warnings
    warnings.simplefilter("ignore")
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.remote(url).getOrCreate()
    pat = re.compile(only) if only else None
    results = {}
    for name, fn, ordered in CASES:
        if pat and not pat.search(name):
            continue
        try:
            results[name] = capture(fn(spark))
        except Exception as e:  # noqa: BLE001
            results[name] = {"error": error_class(e)}
        results[name]["ordered"] = ordered
        print("%-6s %s" % ("error" if "error" in results[name] else "ok", name), flush=True)
    with open(out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


def error_class(e):
    for get in ("getCondition", "getErrorClass"):
        try:
            c = getattr(e, get)()
            if c:
                return c
        except Exception:  # noqa: BLE001
            pass
    m = re.search(r"\[([A-Z][A-Z0-9_.]+)\]", str(e))
    return m.group(1) if m else type(e).__name__


def jsonable(v):
    from pyspark.sql import Row
    if isinstance(v, Row):
        return {k: jsonable(x) for k, x in v.asDict().items()}
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return round(v, 9)
    if isinstance(v, decimal.Decimal):
        return "D" + str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return "P%ss" % v.total_seconds()
    if isinstance(v, (bytes, bytearray)):
        return "X" + bytes(v).hex()
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return repr(v)


def capture(v):
    from pyspark.sql.dataframe import DataFrame
    if isinstance(v, DataFrame):
        rows = v.collect()
        return {"cols": v.columns,
                "types": [f.dataType.simpleString() for f in v.schema.fields],
                "rows": [jsonable(list(r)) for r in rows]}
    return {"value": jsonable(v)}


def show(df, *args, **kw):
    """What df.show(...) prints."""
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    try:
        df.show(*args, **kw)
    finally:
        sys.stdout = old
    return buf.getvalue()


# ---------------------------------------------------------------------------

# Cases Spark answers and weir refuses, with the class weir must give (and
# docs/python.md lists): never a different answer.
REFUSED = {
    # a side's column after a step that wraps the join as a derived table
    "joins/alias_then_side": "UNSUPPORTED_FEATURE.CONNECT_PLAN",
    "joins/drop_then_distinct_then_side": "UNSUPPORTED_FEATURE.CONNECT_PLAN",
}


def compare(spark, weir, report):
    passed, failed = [], []
    lines = ["# DataFrame corpus: weir against Spark", ""]
    for name in sorted(spark):
        s, w = spark[name], weir.get(name, {"error": "not run"})
        why = differ(s, w)
        if why and "error" not in s and w.get("error") == REFUSED.get(name):
            why = None  # refused as documented
        (failed if why else passed).append(name)
        if why:
            lines.append("- `%s`: %s" % (name, why))
    lines.insert(2, "%d of %d cases match Spark." % (len(passed), len(spark)))
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    for name in failed:
        print("FAIL %s: %s" % (name, differ(spark[name], weir.get(name, {"error": "not run"}))))
    refused = [n for n in passed if n in REFUSED and "error" in weir.get(n, {})]
    if refused:
        print("refused as documented: %s" % ", ".join(refused))
    print("%d passed, %d failed" % (len(passed), len(failed)))
    return not failed


def differ(s, w):
    if "error" in s or "error" in w:
        if s.get("error") != w.get("error"):
            return "Spark: %s; weir: %s" % (s.get("error", "ok"), w.get("error", "ok"))
        return None
    if "value" in s:
        return None if s["value"] == w.get("value") else \
            "value: Spark %r; weir %r" % (s["value"], w.get("value"))
    if s["cols"] != w.get("cols"):
        return "columns: Spark %s; weir %s" % (s["cols"], w.get("cols"))
    if s["types"] != w.get("types"):
        return "types: Spark %s; weir %s" % (s["types"], w.get("types"))
    sr, wr = s["rows"], w.get("rows")
    if not s.get("ordered"):
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        sr, wr = sorted(sr, key=key), sorted(wr or [], key=key)
    if sr != wr:
        return "rows: Spark %s; weir %s" % (json.dumps(sr)[:400], json.dumps(wr)[:400])
    return None


def write_expected(spark, only):
    """Store Spark's answers. With --only, the cases run replace theirs and
    every other stored case stays (a case of the pattern that no longer
    exists is dropped)."""
    stored = {}
    if only and os.path.exists(EXPECTED):
        pat = re.compile(only)
        stored = {k: v for k, v in json.load(open(EXPECTED)).items() if not pat.search(k)}
    stored.update(spark)
    with open(EXPECTED, "w") as f:
        json.dump(stored, f, indent=1, sort_keys=True)
        f.write("\n")


def client_run(client, url, out, only):
    cmd = [client, os.path.abspath(__file__), "--run", url, "--out", out]
    if only:
        cmd += ["--only", only]
    env = dict(os.environ, TZ="UTC", PYTHONWARNINGS="ignore")
    subprocess.run(cmd, env=env, check=True, timeout=1800)
    return json.load(open(out))


def on_server(start, client, out, only):
    work = tempfile.mkdtemp(prefix="weir-dataframes-")
    try:
        url, stop = start(work)
        try:
            return client_run(client, url, out, only)
        finally:
            stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", metavar="URL")
    ap.add_argument("--out")
    ap.add_argument("--spark", metavar="VENV")
    ap.add_argument("--weir", metavar="WEIR")
    ap.add_argument("--client", default=sys.executable)
    ap.add_argument("--only")
    ap.add_argument("--out-dir", default="build-spark-out/dataframes")
    ap.add_argument("--write-expected", action="store_true")
    ap.add_argument("--expected", action="store_true")
    args = ap.parse_args()
    if args.run:
        run_cases(args.run, args.out, args.only)
        return 0
    import connect_servers
    os.makedirs(args.out_dir, exist_ok=True)
    spark = None
    if args.spark:
        spark = on_server(lambda w: connect_servers.start_spark(args.spark, w), args.client,
                          os.path.join(args.out_dir, "spark.json"), args.only)
        if args.write_expected:
            write_expected(spark, args.only)
    if args.expected:
        spark = json.load(open(EXPECTED))
        if args.only:
            spark = {k: v for k, v in spark.items() if re.search(args.only, k)}
    if not args.weir:
        return 0
    weir = on_server(lambda w: connect_servers.start_weir(args.weir, w), args.client,
                     os.path.join(args.out_dir, "weir.json"), args.only)
    if spark is None:
        return 0
    ok = compare(spark, weir, os.path.join(args.out_dir, "report.md"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
