# The Python pipeline corpus (tests/spark/python-projects: public example
# shapes written for open-source pyspark.pipelines) and the Python scaffold
# run on weir with the real pyspark-client 4.2.0, twice (the second run must
# change nothing), and every table must equal Apache Spark's answer stored
# in tests/spark/python-expected/ (written by the Spark tier:
# `tests/spark/run.sh --python-only --write-expected`). No Java needed.
WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
export WEIR_PYTHON

if ! "$WEIR_PYTHON" "$E2E_LIB/../spark/python_pipelines.py" --weir "$WEIR" \
        --expected --runs 2 --out "$E2E_WORK/out" >"$E2E_OUT/corpus.log" 2>&1; then
    cat "$E2E_OUT/corpus.log" >&2
    e2e_fail "weir's tables differ from Spark's stored answers (report: $E2E_WORK/out/report.md)"
fi
e2e_pass
tail -n 1 "$E2E_OUT/corpus.log"
grep -q ' 0 failed$' "$E2E_OUT/corpus.log" || e2e_fail "no summary line"
e2e_pass
