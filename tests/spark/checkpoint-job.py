#!/usr/bin/env python3
"""A Structured Streaming job whose checkpoint weir imports
(import_checkpoint, docs/import-checkpoint.md).

  checkpoint-job.py --input DIR --output DIR --checkpoint DIR
                    [--max-files N] [--stateful]

Reads the JSON files of --input (schema id BIGINT, name STRING) with
Spark's file source, writes them as JSON files to --output with
trigger(availableNow=True) and --checkpoint as checkpointLocation, and
stops when the files there have been processed. --max-files sets
maxFilesPerTrigger (one batch per N files: 12 files with N=1 make 12
batches, so the source log gets its first .compact file at batch 9).
--stateful counts rows per name instead (a query with operator state, for
the import's refusal of state). Needs pyspark and Java 17 (tests/spark/
run.sh sets TZ=UTC and SPARK_LOCAL_IP=127.0.0.1).
"""
import argparse

from pyspark.sql import SparkSession


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--max-files", type=int, default=0)
    ap.add_argument("--stateful", action="store_true")
    a = ap.parse_args()
    spark = (SparkSession.builder.master("local[1]")
             .appName("weir-checkpoint-job")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
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
