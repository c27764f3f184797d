#!/usr/bin/env bash
# The Spark differential tier: weir against real Apache Spark.
#
#   tests/spark/run.sh [--quick] [--only REGEX] [--no-pipelines] [--no-python]
#                      [--no-grammar] [--no-stateful]
#                      [--python-only] [--stateful] [--write-expected] [--no-fail]
#                      [--no-checkpoint] [--checkpoint-only] [--no-remote]
#                      [--dataframes] [--doctests] [--no-jdbc] [--jdbc-only]
#
# Creates (once) a Python venv with pinned pyspark in build-spark-venv/,
# uses the machine's Java 17, runs the SQL corpus (tests/spark/corpus/*.sql)
# on Spark and on weir and compares them, checks weir's parser against
# Spark's on keywords as identifiers and property lists
# (tests/spark/grammar.py; not with --only; --no-grammar skips it; it uses
# the test_sql_grammar binary next to WEIR in tests/, or GRAMMAR_TEST),
# then runs the example SQL
# pipelines (tests/spark/pipelines.py; not with --quick or --no-pipelines)
# and the Python pipelines (tests/spark/python_pipelines.py; --quick: a
# subset; --no-python skips them, --python-only runs only them,
# --write-expected stores Spark's answers in tests/spark/python-expected/),
# then the stateful streaming corpus over several updates
# (tests/spark/stateful/stateful.py: Spark's answers must still equal the
# stored ones, weir must give them or refuse per entry; --quick: a subset;
# --stateful runs only it, --no-stateful skips it, --write-expected stores
# Spark's answers in tests/spark/stateful/expected/), then has weir import
# the checkpoints of Structured Streaming queries it just ran, of files and
# of a Kafka topic (tests/spark/import_checkpoint.py; not with --only,
# --python-only, --stateful or --no-checkpoint; --checkpoint-only runs
# only it; for it, run.sh fetches Spark's Kafka connector into
# build-spark-kafka/ with tests/spark/kafka-jars.sh and the test broker
# with scripts/kafka.sh), then runs projects through `weir run --remote` on
# a Spark Connect server it starts and compares their tables with local
# runs (tests/spark/remote.py; not with --only, --python-only, --stateful,
# --checkpoint-only or --no-remote), then reads a PostgreSQL, a MariaDB and
# a SQLite table of every type with Spark's JDBC reads and with weir's
# read_jdbc and compares types and values (tests/spark/jdbc_types.py, its
# drivers fetched into build-spark-jdbc/ by tests/spark/jdbc-jars.sh; not
# with --only, --python-only, --stateful, --checkpoint-only or --no-jdbc;
# --jdbc-only runs only it). Results go to build-spark-out/
# (report.md, results.json, pipelines/, python/, stateful/,
# import_checkpoint.txt, remote/, jdbc/);
# the generated column names of every built-in function's examples are
# asked of Spark (tests/spark/names.py; with the grammar check) and must be
# the stored ones that unit/test_sql_names checks weir against;
# --dataframes runs only the DataFrame corpus (tests/spark/dataframes.py,
# with the pinned pyspark-client 4.2.0; --write-expected stores Spark's
# answers), --doctests only the doctest sweep (tests/spark/doctests.py: the
# client's docstring examples on Spark and on weir; long; --write-expected
# stores the list Spark passes);
# regenerate docs/sql-functions.md with
# tests/spark/gen_docs.py build-spark-out/results.json.
#
# Environment: WEIR (the weir binary; default build/weir, built with the
# release preset when missing), KTOOL (default: the ktool next to WEIR),
# JAVA_HOME (default: the Java 17 found here), SPARK_VENV, SPARK_OUT,
# SPARK_KAFKA_JARS (default build-spark-kafka), GRAMMAR_TEST,
# SPARK_CONNECT_EPHEMERAL (spark-pipelines' Connect server: 1 an ephemeral
# port, 0 port 15002; default: ephemeral when 15002 is taken, e.g. by
# another engineer's Spark).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYSPARK_VERSION=4.1.4
VENV="${SPARK_VENV:-$ROOT/build-spark-venv}"
OUT="${SPARK_OUT:-$ROOT/build-spark-out}"
WEIR="${WEIR:-$ROOT/build/weir}"

quick="" pipelines=1 python=1 corpus=1 checkpoint=1 grammar=1 remote=1 stateful=1 jdbc=1 pyargs=() args=()
dataframes=0 doctests=0
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=--quick; args+=(--quick) ;;
    --no-pipelines) pipelines=0 ;;
    --no-python) python=0 ;;
    --python-only) corpus=0 pipelines=0 checkpoint=0 grammar=0 remote=0 stateful=0 jdbc=0 ;;
    --stateful) corpus=0 pipelines=0 python=0 checkpoint=0 grammar=0 remote=0 stateful=1 jdbc=0 ;;
    --no-stateful) stateful=0 ;;
    --no-grammar) grammar=0 ;;
    --no-checkpoint) checkpoint=0 ;;
    --checkpoint-only) corpus=0 pipelines=0 python=0 grammar=0 remote=0 stateful=0 checkpoint=1 jdbc=0 ;;
    --no-remote) remote=0 ;;
    --no-jdbc) jdbc=0 ;;
    --jdbc-only) corpus=0 pipelines=0 python=0 checkpoint=0 grammar=0 remote=0 stateful=0 jdbc=1 ;;
    --write-expected) pyargs+=(--write-expected) ;;
    --dataframes) dataframes=1 corpus=0 pipelines=0 python=0 checkpoint=0 grammar=0 remote=0 stateful=0 jdbc=0 ;;
    --doctests) doctests=1 corpus=0 pipelines=0 python=0 checkpoint=0 grammar=0 remote=0 stateful=0 jdbc=0 ;;
    --only) args+=(--only "$2"); pipelines=0; python=0; checkpoint=0; grammar=0; remote=0; stateful=0; jdbc=0; shift ;;
    --no-fail) args+=(--no-fail) ;;
    -h|--help) sed -n "2,59p" "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

# Java 17: JAVA_HOME, else the Debian/Temurin 17 install, else `java` on PATH.
if [ -z "${JAVA_HOME:-}" ]; then
    for j in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk* \
             /usr/lib/jvm/temurin-17*; do
        if [ -x "$j/bin/java" ]; then JAVA_HOME="$j"; break; fi
    done
fi
if [ -n "${JAVA_HOME:-}" ]; then
    export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
fi
if ! java -version 2>&1 | grep -q 'version "17'; then
    echo "run.sh: Java 17 is required (set JAVA_HOME)" >&2
    exit 1
fi

# The venv, with pyspark pinned (connect extras: spark-pipelines needs them).
if ! "$VENV/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$PYSPARK_VERSION')" 2>/dev/null; then
    echo "run.sh: installing pyspark $PYSPARK_VERSION into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "pyspark[connect]==$PYSPARK_VERSION" pyyaml
fi

# The Kafka checkpoint test's jars: Spark's Kafka connector (pinned,
# verified) and the test broker.
if [ "$checkpoint" = 1 ]; then
    KAFKA_JARS=$("$HERE/kafka-jars.sh")
    "$ROOT/scripts/kafka.sh" fetch
fi

if [ ! -x "$WEIR" ]; then
    echo "run.sh: building weir (release preset) for $WEIR" >&2
    (cd "$ROOT" && cmake --preset release >/dev/null && cmake --build --preset release >/dev/null)
fi

export TZ=UTC PYSPARK_PYTHON="$VENV/bin/python" SPARK_LOCAL_IP=127.0.0.1
rc=0
if [ "$corpus" = 1 ]; then
    "$VENV/bin/python" "$HERE/difftest.py" --weir "$WEIR" --out "$OUT" "${args[@]}" || rc=$?
fi
# Keywords and property lists: Spark's parser now == the stored answers,
# and weir's parser == Spark's live answers.
if [ "$grammar" = 1 ]; then
    GRAMMAR_TEST="${GRAMMAR_TEST:-$(dirname "$WEIR")/tests/test_sql_grammar}"
    if [ ! -x "$GRAMMAR_TEST" ]; then
        echo "run.sh: building $GRAMMAR_TEST" >&2
        cmake --build "$(dirname "$WEIR")" --target test_sql_grammar >/dev/null
    fi
    mkdir -p "$OUT"
    "$VENV/bin/python" "$HERE/grammar.py" --check --out "$OUT/grammar.tsv" \
        --weir-test "$GRAMMAR_TEST" || rc=$?
fi
if [ "$grammar" = 1 ]; then
    NAMES_TEST="$(dirname "$WEIR")/tests/test_sql_names"
    [ -x "$NAMES_TEST" ] || cmake --build "$(dirname "$WEIR")" --target test_sql_names >/dev/null
    "$VENV/bin/python" "$HERE/names.py" || rc=$?
    (cd "$ROOT/tests/unit" && "$NAMES_TEST") || rc=$?
fi
# The client side: the DataFrame corpus and the doctest sweep, with the
# pinned pyspark-client (scripts/pyclient.sh) against Spark's Connect server
# and weir serve.
if [ "$dataframes" = 1 ] || [ "$doctests" = 1 ]; then
    CLIENT=$("$ROOT/scripts/pyclient.sh" 4.2.0)
fi
if [ "$dataframes" = 1 ]; then
    "$CLIENT" "$HERE/dataframes.py" --spark "$VENV" --weir "$WEIR" --client "$CLIENT" \
        --out-dir "$OUT/dataframes" "${pyargs[@]}" || rc=$?
fi
if [ "$doctests" = 1 ]; then
    mkdir -p "$OUT/doctests"
    "$CLIENT" "$HERE/doctests.py" --spark "$VENV" --client "$CLIENT" \
        --out "$OUT/doctests/spark.json" || rc=$?
    "$CLIENT" "$HERE/doctests.py" --weir "$WEIR" --client "$CLIENT" --timeout 60 \
        --out "$OUT/doctests/weir.json" || rc=$?
    "$CLIENT" "$HERE/doctests.py" --compare "$OUT/doctests/spark.json" \
        "$OUT/doctests/weir.json" --report "$OUT/doctests/report.md" "${pyargs[@]}" || rc=$?
fi
if [ "$pipelines" = 1 ]; then
    "$VENV/bin/python" "$HERE/pipelines.py" --weir "$WEIR" --out "$OUT/pipelines" $quick || rc=$?
fi
# weir imports the Python files with the same pinned pyspark (client side).
if [ "$python" = 1 ]; then
    WEIR_PYTHON="${WEIR_PYTHON:-$VENV/bin/python}" \
        "$VENV/bin/python" "$HERE/python_pipelines.py" --weir "$WEIR" \
        --out "$OUT/python" $quick "${pyargs[@]}" || rc=$?
fi
# Stateful streaming pipelines over several updates (one Spark Connect
# server for the corpus); weir imports Python files with the same pyspark.
if [ "$stateful" = 1 ]; then
    WEIR_PYTHON="${WEIR_PYTHON:-$VENV/bin/python}" \
        "$VENV/bin/python" "$HERE/stateful/stateful.py" corpus --weir "$WEIR" \
        --out "$OUT/stateful" $quick "${pyargs[@]}" || rc=$?
fi
# import_checkpoint against a checkpoint Spark writes now.
if [ "$checkpoint" = 1 ]; then
    "$VENV/bin/python" "$HERE/import_checkpoint.py" --weir "$WEIR" --out "$OUT" \
        --ktool "${KTOOL:-$(dirname "$WEIR")/ktool}" --kafka-jars "$KAFKA_JARS" || rc=$?
fi
# weir as the client of a Spark Connect server (`weir run --remote`).
if [ "$remote" = 1 ]; then
    "$VENV/bin/python" "$HERE/remote.py" --weir "$WEIR" --out "$OUT/remote" || rc=$?
fi
# Database reads: weir's types and values against Spark's JDBC reads.
if [ "$jdbc" = 1 ]; then
    JDBC_JARS=$("$HERE/jdbc-jars.sh")
    "$VENV/bin/python" "$HERE/jdbc_types.py" --weir "$WEIR" --out "$OUT/jdbc" \
        --jars "$JDBC_JARS" || rc=$?
fi
exit $rc
