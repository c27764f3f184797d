#!/usr/bin/env python3
"""Generate a wide pipeline project for orchestration benchmarks.

  wide.py DIR [--datasets 200] [--depth 10]

Level 0 holds streaming tables over range(); every later level holds
materialized views that each read two datasets of the level above, so the
graph has DATASETS datasets in DEPTH levels. Deterministic.
"""
import argparse
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--datasets", type=int, default=200)
    ap.add_argument("--depth", type=int, default=10)
    a = ap.parse_args()
    per = max(1, a.datasets // a.depth)
    os.makedirs(os.path.join(a.dir, "transformations"), exist_ok=True)
    with open(os.path.join(a.dir, "spark-pipeline.yml"), "w") as f:
        f.write("name: wide\nstorage: storage\nlibraries:\n"
                "  - glob:\n      include: transformations/**\n")
    n = 0
    levels = []
    for level in range(a.depth):
        names = []
        count = per if level < a.depth - 1 else a.datasets - per * (a.depth - 1)
        for i in range(count):
            name = "d%02d_%03d" % (level, i)
            path = os.path.join(a.dir, "transformations", name + ".sql")
            with open(path, "w") as f:
                if level == 0:
                    f.write("CREATE STREAMING TABLE %s AS\n"
                            "SELECT id, id %% 7 AS k FROM STREAM(range(%d));\n"
                            % (name, 1000 + i))
                else:
                    up = levels[level - 1]
                    x, y = up[i % len(up)], up[(i * 7 + 3) % len(up)]
                    f.write("CREATE MATERIALIZED VIEW %s AS\n"
                            "SELECT a.k, count(*) AS id, sum(b.id) AS total\n"
                            "FROM %s a JOIN %s b ON a.k = b.k\n"
                            "GROUP BY a.k;\n" % (name, x, y))
            names.append(name)
            n += 1
        levels.append(names)


if __name__ == "__main__":
    main()
