#!/usr/bin/env bash
# The whole test suite, from a fresh machine: install dependencies, build
# with AddressSanitizer + UBSan, run every unit, API and end-to-end test,
# the quick differential tier against real Apache Spark, then fuzz each
# target briefly (the corpora are replayed by ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

./scripts/bootstrap.sh

# The pinned pyspark-client environments the python-* e2e cases use
# (build-pyclient-VERSION, created once).
scripts/pyclient.sh 4.2.0 >/dev/null
scripts/pyclient.sh 4.1.3 >/dev/null
# The Apache Kafka broker of the kafka-* cases (Maven Central, pinned).
scripts/kafka.sh fetch
# Apache Spark's JVM Connect client of e2e/serve-jvm-client (Maven Central).
scripts/jvm-client.sh fetch >/dev/null
# S3Proxy, the S3-compatible server of the objstore-* cases (Maven Central).
scripts/s3.sh fetch
# The independent readers (stock DuckDB, deltalake) several cases use.
scripts/pyenv.sh >/dev/null

jobs=$(nproc)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j "$jobs" -LE heavy "$@"

# The quick subset of the differential tier against real Apache Spark
# (pyspark from PyPI, the machine's Java 17): every 5th SQL corpus entry,
# two Python pipeline projects, the import of a file and a Kafka
# Structured Streaming checkpoint, and three projects run through `weir run
# --remote` on a Spark Connect server (about 4 minutes, and 3 for the
# remote runs); WEIR_SKIP_SPARK=1 skips it.
if [ -z "${WEIR_SKIP_SPARK:-}" ]; then
    WEIR="$root/build-asan/weir" ASAN_OPTIONS=detect_leaks=1 \
        tests/spark/run.sh --quick --no-pipelines
fi

if [ -f fuzz/CMakeLists.txt ] && [ -z "${WEIR_SKIP_FUZZ:-}" ]; then
    ./scripts/fuzz.sh --short
fi
echo "test.sh: all tests passed"
