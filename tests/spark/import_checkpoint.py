#!/usr/bin/env python3
"""The Spark tier's live import_checkpoint test (docs/import-checkpoint.md).

  import_checkpoint.py --weir WEIR [--out DIR] [--ktool KTOOL]
                       [--kafka-jars DIR] [--no-kafka]

Files: a Structured Streaming job (checkpoint-job.py, this Python's
pyspark and Java 17) reads 5 JSON files, one batch each, into a JSON sink
with a checkpointLocation and stops; 3 more files arrive; a weir pipeline
whose flow imports that checkpoint runs. Spark's output and weir's table
must hold every input row exactly once, and the checkpoint folder must be
unchanged (checksum of every file). A second weir run with one more file
must read only that file.

Kafka: the same with a topic of the test broker (scripts/kafka.sh, records
produced with ktool, default: next to WEIR) and Spark's Kafka source (the
connector's jars: --kafka-jars, default tests/spark/kafka-jars.sh's
folder, fetched when missing): Spark reads 8 records of 2 partitions in
several batches (maxOffsetsPerTrigger) and stops, 5 more arrive, weir's
read_kafka flow imports the checkpoint. --no-kafka skips it.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write_input(d, first, last):
    os.makedirs(d, exist_ok=True)
    for i in range(first, last + 1):
        with open(os.path.join(d, "f%02d.json" % i), "w") as f:
            for k in range(3):
                f.write(json.dumps({"id": i * 10 + k, "name": "n%d" % i}) + "\n")


def tree_sum(d):
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(d)):
        for name in sorted(files):
            p = os.path.join(root, name)
            h.update(p.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def weir(args, cwd, binary):
    r = subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def weir_ids(cwd, binary):
    rc, out = weir(["query", "--format", "csv", "SELECT id FROM events"], cwd, binary)
    if rc:
        raise SystemExit("weir query failed:\n" + out)
    return [int(x) for x in out.split()[1:]]


def spark_ids(out_dir):
    ids = []
    for p in glob.glob(os.path.join(out_dir, "part-*.json")):
        with open(p) as f:
            ids += [json.loads(line)["id"] for line in f if line.strip()]
    return ids


def write_pipeline(work, sql):
    os.makedirs(os.path.join(work, "transformations"))
    with open(os.path.join(work, "spark-pipeline.yml"), "w") as f:
        f.write("name: import\nstorage: storage\nlibraries:\n"
                "  - glob:\n      include: transformations/**\n")
    with open(os.path.join(work, "transformations", "m.sql"), "w") as f:
        f.write(sql)


def files_scenario(work, binary, failures):
    inp, cp, sout = (os.path.join(work, x) for x in ("input", "cp", "spark-out"))
    write_input(inp, 1, 5)
    subprocess.run([sys.executable, os.path.join(HERE, "checkpoint-job.py"),
                    "--input", inp, "--output", sout, "--checkpoint", cp,
                    "--max-files", "1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    write_input(inp, 6, 8)
    write_pipeline(work,
                   "CREATE STREAMING TABLE events;\n"
                   "CREATE FLOW migrate OPTIONS (import_checkpoint 'cp')\n"
                   "AS INSERT INTO events BY NAME SELECT id, name FROM STREAM "
                   "read_files('input', format => 'json', "
                   "schema => 'id BIGINT, name STRING');\n")
    before = tree_sum(cp)
    rc, out = weir(["run"], work, binary)
    if rc or "imported the Spark Structured Streaming checkpoint" not in out:
        failures.append("first run (rc %d):\n%s" % (rc, out))
    everything = sorted(i * 10 + k for i in range(1, 9) for k in range(3))
    union = sorted(spark_ids(sout) + weir_ids(work, binary))
    if union != everything:
        failures.append("Spark + weir rows %s, expected %s" % (union, everything))
    if sorted(weir_ids(work, binary)) != everything[15:]:
        failures.append("weir read %s" % sorted(weir_ids(work, binary)))
    write_input(inp, 9, 9)
    rc, out = weir(["run"], work, binary)
    if rc or "imported" in out:
        failures.append("second run (rc %d):\n%s" % (rc, out))
    if len(weir_ids(work, binary)) != 12:
        failures.append("after the second run weir holds %d rows, expected 12"
                        % len(weir_ids(work, binary)))
    if tree_sum(cp) != before:
        failures.append("the checkpoint folder changed")


def produce(ktool, broker, topic, partition, values):
    subprocess.run([ktool, "-b", broker, "produce", topic, "-p", str(partition)],
                   input="".join(v + "\n" for v in values), text=True,
                   check=True, capture_output=True)


def weir_values(cwd, binary, table):
    rc, out = weir(["query", "--format", "csv", "SELECT v FROM " + table], cwd, binary)
    if rc:
        raise SystemExit("weir query failed:\n" + out)
    return out.split()[1:]


def spark_values(out_dir):
    vals = []
    for p in glob.glob(os.path.join(out_dir, "part-*.json")):
        with open(p) as f:
            vals += [json.loads(line)["v"] for line in f if line.strip()]
    return vals


def kafka_scenario(work, binary, ktool, jars, failures):
    kdir, cp, sout = (os.path.join(work, x) for x in ("kafka", "cp", "spark-out"))
    broker = subprocess.run([os.path.join(ROOT, "scripts", "kafka.sh"), "start", kdir],
                            check=True, capture_output=True, text=True).stdout.strip()
    try:
        subprocess.run([ktool, "-b", broker, "create", "orders", "2"],
                       check=True, capture_output=True)
        # What the query reads: 5 records in partition 0, 3 in 1.
        produce(ktool, broker, "orders", 0, ["a%d" % i for i in range(5)])
        produce(ktool, broker, "orders", 1, ["b%d" % i for i in range(3)])
        r = subprocess.run([sys.executable, os.path.join(HERE, "checkpoint-job.py"),
                            "--kafka", broker, "--topic", "orders", "--jars", jars,
                            "--output", sout, "--checkpoint", cp,
                            "--max-offsets", "3"],
                           capture_output=True, text=True)
        if r.returncode:
            failures.append("the Kafka Structured Streaming job failed:\n"
                            + r.stdout + r.stderr)
            return
        batches = len(os.listdir(os.path.join(cp, "commits")))
        if batches < 2:
            failures.append("Spark committed %d batches, expected several" % batches)
        # More records arrive after the query stopped.
        produce(ktool, broker, "orders", 0, ["a%d" % i for i in range(5, 8)])
        produce(ktool, broker, "orders", 1, ["b%d" % i for i in range(3, 5)])
        write_pipeline(work,
                       "CREATE STREAMING TABLE orders;\n"
                       "CREATE FLOW migrate OPTIONS (import_checkpoint 'cp')\n"
                       "AS INSERT INTO orders BY NAME\n"
                       "SELECT CAST(value AS STRING) AS v FROM STREAM read_kafka("
                       "bootstrapServers => '%s', subscribe => 'orders', "
                       "startingOffsets => 'earliest');\n" % broker)
        before = tree_sum(cp)
        rc, out = weir(["run"], work, binary)
        if rc or "imported the Spark Structured Streaming checkpoint" not in out:
            failures.append("Kafka: first run (rc %d):\n%s" % (rc, out))
        spark = sorted(spark_values(sout))
        if spark != sorted(["a%d" % i for i in range(5)] + ["b%d" % i for i in range(3)]):
            failures.append("Kafka: Spark wrote %s" % spark)
        everything = sorted(["a%d" % i for i in range(8)] + ["b%d" % i for i in range(5)])
        union = sorted(spark + weir_values(work, binary, "orders"))
        if union != everything:
            failures.append("Kafka: Spark + weir rows %s, expected %s" % (union, everything))
        # Later records are read once; the option is ignored from now on.
        produce(ktool, broker, "orders", 0, ["a8"])
        produce(ktool, broker, "orders", 1, ["b5"])
        rc, out = weir(["run"], work, binary)
        if rc or "imported" in out:
            failures.append("Kafka: second run (rc %d):\n%s" % (rc, out))
        got = sorted(weir_values(work, binary, "orders"))
        if got != ["a5", "a6", "a7", "a8", "b3", "b4", "b5"]:
            failures.append("Kafka: after the second run weir holds %s" % got)
        if tree_sum(cp) != before:
            failures.append("Kafka: the checkpoint folder changed")
    finally:
        subprocess.run([os.path.join(ROOT, "scripts", "kafka.sh"), "stop", kdir],
                       capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", default=None)
    ap.add_argument("--ktool", default=None)
    ap.add_argument("--kafka-jars", default=None)
    ap.add_argument("--no-kafka", action="store_true")
    a = ap.parse_args()
    a.weir = os.path.abspath(a.weir)
    ktool = os.path.abspath(a.ktool or os.path.join(os.path.dirname(a.weir), "ktool"))
    failures = []
    work = tempfile.mkdtemp(prefix="weir-import-checkpoint-")
    try:
        files_scenario(os.path.join(work, "files"), a.weir, failures)
        if not a.no_kafka:
            jars = a.kafka_jars or subprocess.run(
                [os.path.join(HERE, "kafka-jars.sh")], check=True,
                capture_output=True, text=True).stdout.strip()
            if not os.access(ktool, os.X_OK):
                failures.append("Kafka: no ktool at %s (build it, or --ktool)" % ktool)
            else:
                kafka_scenario(os.path.join(work, "kafka"), a.weir, ktool,
                               os.path.abspath(jars), failures)
    finally:
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            with open(os.path.join(a.out, "import_checkpoint.txt"), "w") as f:
                f.write("\n".join(failures) or "passed\n")
        shutil.rmtree(work, ignore_errors=True)
    for msg in failures:
        print("FAIL import_checkpoint: " + msg)
    print("import_checkpoint: %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
