# Bounded adversarial test of weir query: about 80 generated statements
# (220 in heavy/adv-query-generated)
# (writes, failing writes, self-reads, reads of weir's state, writes to
# weir's state and to the pipeline's datasets spelled many ways, DuckDB
# statements that reach past the catalogs) from a fixed seed, checked
# against a model: no row of the user's tables lost or added, weir's own
# state and the pipeline's datasets unchanged (see gen.py).

run_weir init demo
cd demo
run_weir run
expect_exit 0

py=$(weir_python)
"$py" "$E2E_WORK/gen.py" "$WEIR" 20261201 >"$E2E_OUT/gen.out" 2>&1 || {
    cat "$E2E_OUT/gen.out"
    e2e_fail "generated statements: a check failed (see above)"
}
cat "$E2E_OUT/gen.out"
expect_file_contains "$E2E_OUT/gen.out" "weir's state unchanged"
