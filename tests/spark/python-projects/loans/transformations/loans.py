from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()
LOAN_SCHEMA = ("loan_id BIGINT, addr_state STRING, funded_amnt INT, total_pymnt DOUBLE, "
               "loan_status STRING, issue_d DATE, term STRING")


def loans_from(folder):
    return (spark.readStream.format("csv").option("header", "true")
            .schema(LOAN_SCHEMA).load(folder))


@dp.table(comment="New and historical loans")
def raw_txs():
    # one flow over both folders: Spark 4.1 keeps only one flow's rows when
    # two append flows write one file table (docs/python.md)
    return (loans_from("data/landing").withColumn("source", F.lit("new"))
            .unionByName(loans_from("data/historical").withColumn("source", F.lit("historical"))))


@dp.table(comment="Loans with a bad-loan flag")
@dp.expect_all_or_drop({"payments_should_be_positive": "total_pymnt >= 0",
                        "known_state": "addr_state IS NOT NULL"})
def cleaned_new_txs():
    bad = F.col("loan_status").isin("Charged Off", "Late")
    return (spark.readStream.table("raw_txs")
            .withColumn("bad_loan", F.when(bad, "yes").otherwise("no"))
            .withColumn("issue_month", F.date_format("issue_d", "yyyy-MM"))
            .withColumn("term_months", F.regexp_extract("term", r"(\d+)", 1).cast("int")))


@dp.materialized_view(comment="Outstanding balance per state")
def total_loan_balances():
    return (spark.read.table("cleaned_new_txs")
            .groupBy("addr_state")
            .agg(F.round(F.sum(F.col("funded_amnt") - F.col("total_pymnt")), 2).alias("bal"),
                 F.count("*").alias("loans"),
                 F.sum(F.when(F.col("bad_loan") == "yes", 1).otherwise(0)).alias("bad_loans")))


@dp.materialized_view
def gl_transfer():
    return (spark.read.table("cleaned_new_txs")
            .groupBy("issue_month", "term_months")
            .agg(F.sum("funded_amnt").alias("funded"),
                 F.expr("round(avg(total_pymnt / funded_amnt), 4)").alias("repaid_ratio")))
