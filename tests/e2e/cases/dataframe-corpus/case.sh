# The DataFrame corpus (tests/spark/dataframes.py: generated column names,
# expression strings with aliases, joins, local data, DataFrame operations
# and actions, as notebooks and pipeline files write them) runs with the
# real pyspark-client 4.2.0 against `weir serve`, and every case must equal
# Apache Spark's answer stored in tests/spark/dataframe-expected.json
# (written by the Spark tier: `tests/spark/run.sh --dataframes
# --write-expected`): column names, types and rows, or the error class.
py=$("$E2E_LIB/../../scripts/pyclient.sh" 4.2.0)
if ! timeout 1200 "$py" "$E2E_LIB/../spark/dataframes.py" --weir "$WEIR" --client "$py" \
        --expected --out-dir "$E2E_WORK/out" >"$E2E_OUT/corpus.log" 2>&1; then
    cat "$E2E_OUT/corpus.log" >&2
    e2e_fail "weir's DataFrames differ from Spark's stored answers (report: $E2E_WORK/out/report.md)"
fi
tail -n 1 "$E2E_OUT/corpus.log"
grep -q ' 0 failed$' "$E2E_OUT/corpus.log" || e2e_fail "no summary line"
e2e_pass
