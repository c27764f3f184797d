#!/usr/bin/env python3
"""The Spark tier's live import_checkpoint test (docs/import-checkpoint.md).

  import_checkpoint.py --weir WEIR [--out DIR]

A Structured Streaming job (checkpoint-job.py, this Python's pyspark and
Java 17) reads 5 JSON files, one batch each, into a JSON sink with a
checkpointLocation and stops; 3 more files arrive; a weir pipeline whose
flow imports that checkpoint runs. Spark's output and weir's table must
hold every input row exactly once, and the checkpoint folder must be
unchanged (checksum of every file). A second weir run with one more file
must read only that file.
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    a.weir = os.path.abspath(a.weir)
    work = tempfile.mkdtemp(prefix="weir-import-checkpoint-")
    failures = []
    try:
        inp, cp, sout = (os.path.join(work, x) for x in ("input", "cp", "spark-out"))
        write_input(inp, 1, 5)
        subprocess.run([sys.executable, os.path.join(HERE, "checkpoint-job.py"),
                        "--input", inp, "--output", sout, "--checkpoint", cp,
                        "--max-files", "1"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        write_input(inp, 6, 8)
        os.makedirs(os.path.join(work, "transformations"))
        with open(os.path.join(work, "spark-pipeline.yml"), "w") as f:
            f.write("name: import\nstorage: storage\nlibraries:\n"
                    "  - glob:\n      include: transformations/**\n")
        with open(os.path.join(work, "transformations", "m.sql"), "w") as f:
            f.write("CREATE STREAMING TABLE events;\n"
                    "CREATE FLOW migrate OPTIONS (import_checkpoint 'cp')\n"
                    "AS INSERT INTO events BY NAME SELECT id, name FROM STREAM "
                    "read_files('input', format => 'json', "
                    "schema => 'id BIGINT, name STRING');\n")
        before = tree_sum(cp)
        rc, out = weir(["run"], work, a.weir)
        if rc or "imported the Spark Structured Streaming checkpoint" not in out:
            failures.append("first run (rc %d):\n%s" % (rc, out))
        everything = sorted(i * 10 + k for i in range(1, 9) for k in range(3))
        union = sorted(spark_ids(sout) + weir_ids(work, a.weir))
        if union != everything:
            failures.append("Spark + weir rows %s, expected %s" % (union, everything))
        if sorted(weir_ids(work, a.weir)) != everything[15:]:
            failures.append("weir read %s" % sorted(weir_ids(work, a.weir)))
        write_input(inp, 9, 9)
        rc, out = weir(["run"], work, a.weir)
        if rc or "imported" in out:
            failures.append("second run (rc %d):\n%s" % (rc, out))
        if len(weir_ids(work, a.weir)) != 12:
            failures.append("after the second run weir holds %d rows, expected 12"
                            % len(weir_ids(work, a.weir)))
        if tree_sum(cp) != before:
            failures.append("the checkpoint folder changed")
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
