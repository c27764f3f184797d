#!/usr/bin/env python3
"""A Structured Streaming job whose checkpoint weir imports
(import_checkpoint, docs/import-checkpoint.md).

  checkpoint-job.py --input DIR --output DIR --checkpoint DIR
                    [--max-files N] [--stateful]
  checkpoint-job.py --kafka BOOTSTRAP --topic TOPIC --jars DIR
                    --output DIR --checkpoint DIR [--max-offsets N]

Reads the JSON files of --input (schema id BIGINT, name STRING) with
Spark's file source, writes them as JSON files to --output with
trigger(availableNow=True) and --checkpoint as checkpointLocation, and
stops when the files there have been processed. --max-files sets
maxFilesPerTrigger (one batch per N files: 12 files with N=1 make 12
batches, so the source log gets its first .compact file at batch 9).
--stateful counts rows per name instead (a query with operator state, for
the import's refusal of state).

With --kafka it reads TOPIC of that broker instead (Spark's Kafka source,
startingOffsets earliest; the connector's jars are those of DIR, see
tests/spark/kafka-jars.sh) and writes each record's value as a string, its
partition and offset ({"v", "p", "o"}), up to the offsets the topic had
when the query started; --max-offsets sets maxOffsetsPerTrigger (several
batches).

Needs pyspark and Java 17 (tests/spark/run.sh sets TZ=UTC and
SPARK_LOCAL_IP=127.0.0.1).
"""
import argparse
import glob
import os

from pyspark.sql import SparkSession


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input")
    ap.add_argument("--output", required=True)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--max-files", type=int, default=0)
    ap.add_argument("--stateful", action="store_true")
    ap.add_argument("--kafka")
    ap.add_argument("--topic")
    ap.add_argument("--jars")
    ap.add_argument("--max-offsets", type=int, default=0)
    a = ap.parse_args()
    if a.kafka and not (a.topic and a.jars):
        ap.error("--kafka needs --topic and --jars")
    if not a.kafka and not a.input:
        ap.error("--input or --kafka is required")
    builder = (SparkSession.builder.master("local[1]")
               .appName("weir-checkpoint-job")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2"))
    if a.kafka:
        jars = sorted(glob.glob(os.path.join(a.jars, "*.jar")))
        if not jars:
            ap.error("no jars in " + a.jars)
        builder = builder.config("spark.jars", ",".join(jars))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if a.kafka:
        reader = (spark.readStream.format("kafka")
                  .option("kafka.bootstrap.servers", a.kafka)
                  .option("subscribe", a.topic)
                  .option("startingOffsets", "earliest"))
        if a.max_offsets:
            reader = reader.option("maxOffsetsPerTrigger", str(a.max_offsets))
        df = reader.load().selectExpr("CAST(value AS STRING) AS v",
                                      "`partition` AS p", "`offset` AS o")
        q = (df.writeStream.format("json")
             .option("checkpointLocation", a.checkpoint)
             .trigger(availableNow=True).start(a.output))
        q.awaitTermination()
        spark.stop()
        return
    reader = spark.readStream.format("json").schema("id BIGINT, name STRING")
    if a.max_files:
        reader = reader.option("maxFilesPerTrigger", str(a.max_files))
    df = reader.load(a.input)
    if a.stateful:
        q = (df.groupBy("name").count().writeStream.format("memory")
             .queryName("counts").outputMode("complete")
             .option("checkpointLocation", a.checkpoint)
             .trigger(availableNow=True).start())
    else:
        q = (df.writeStream.format("json")
             .option("checkpointLocation", a.checkpoint)
             .trigger(availableNow=True).start(a.output))
    q.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main()
