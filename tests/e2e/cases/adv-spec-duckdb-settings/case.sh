# weir.duckdb.* settings in the spec's configuration are checked when the
# spec loads: a negative, zero, non-numeric or absurd thread count, a
# memory limit that is not a size (or is below 4MiB or above 1PiB) and an
# unknown weir.duckdb key are spec errors (exit 2) at the value's (or
# key's) line and column, and nothing is written. Before, "-1" threads
# silently meant DuckDB's default, 100000 threads exhausted memory and a
# bad memory limit was ignored.

mkdir -p transformations
echo 'CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;' >transformations/a.sql

# spec_with KEY VALUE: the spec with one configuration entry (line 7).
spec_with() {
    printf 'name: p\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\nconfiguration:\n  %s: "%s"\n' \
        "$1" "$2" >spark-pipeline.yml
}

# bad KEY VALUE COLUMN TEXT: dry-run and run both refuse it.
bad() {
    spec_with "$1" "$2"
    for cmd in dry-run run; do
        run_weir $cmd
        expect_exit 2
        expect_stderr_contains "spark-pipeline.yml:7:$3: error: [$4]"
        [ ! -e storage ] || e2e_fail "$1=$2: $cmd created storage"
    done
}

T=weir.duckdb.threads        # values start at column 24
M=weir.duckdb.memory_limit   # values start at column 29
V=PIPELINE_SPEC_INVALID_FIELD_VALUE
bad $T -1 24 $V
expect_stderr_contains "weir.duckdb.threads must be a whole number of threads from 1 to 1024, got '-1'"
bad $T 0 24 $V
bad $T two 24 $V
bad $T 1.5 24 $V
bad $T 100000 24 $V
bad $M -1 29 $V
expect_stderr_contains "weir.duckdb.memory_limit must be a size with a unit"
bad $M 0 29 $V
bad $M 0GB 29 $V
bad $M lots 29 $V
bad $M 1000 29 $V
bad $M 80% 29 $V
bad $M 1KB 29 $V
expect_stderr_contains "weir.duckdb.memory_limit must be from 4MiB to 1PiB, got '1KB'"
bad $M 5PB 29 $V
bad $M 2000TB 29 $V
bad weir.duckdb.thread 4 3 PIPELINE_SPEC_UNEXPECTED_FIELD
expect_stderr_contains "unknown setting weir.duckdb.thread: weir knows weir.duckdb.threads and weir.duckdb.memory_limit"

# Good values still run.
spec_with $T 2
run_weir dry-run
expect_exit 0
for m in 64MB "1.5 GiB" 512mib 1GB; do
    spec_with $M "$m"
    run_weir dry-run
    expect_exit 0
done
spec_with $M 64MB
run_weir run
expect_exit 0
expect_query "SELECT x FROM a" "x
1"
