# Parsing scales linearly: a SQL file of 40,000 statements, one of 20,000
# SET statements and a query of 1,600 chained CTEs all pass dry-run in
# bounded memory. Before the fix the first took over a minute (every
# statement rescanned the file from its start to find its line), the
# second 3 GB (each SET copied all earlier ones) and the third 5.3 GB
# (DuckDB binds a long WITH list in quadratic memory; weir now hands it
# CTEs read once as nested subqueries). Time is not asserted; peak RSS is,
# against a bound far above what the fixed binary needs even under ASan
# (about 350 MB) and far below the old figures.

limit_kb=1000000
[ -x /usr/bin/time ] || e2e_fail "/usr/bin/time is needed (bootstrap installs it)"

project() { # name
    mkdir -p "$1/transformations"
    printf 'name: %s\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
        "$1" >"$1/spark-pipeline.yml"
}

dry_run_bounded() { # name
    (
        cd "$1"
        WEIR_EXIT=0
        timeout -s KILL 300 /usr/bin/time -f %M -o "$E2E_OUT/$1.rss" \
            "$WEIR" dry-run >"$WEIR_STDOUT" 2>"$WEIR_STDERR" || WEIR_EXIT=$?
        WEIR_CMD="weir dry-run ($1)"
        expect_exit 0
        rss=$(tail -n 1 "$E2E_OUT/$1.rss")
        echo "adv-parse-scale: $1: peak RSS $rss KB" >&2
        [ "$rss" -lt "$limit_kb" ] || e2e_fail "$1: peak RSS $rss KB (bound $limit_kb KB)"
        e2e_pass
    ) || exit 1
}

# 40,000 statements: 2,000 materialized views, each reading the one
# before it, between 38,000 USE statements.
project statements
awk 'BEGIN {
    print "CREATE MATERIALIZED VIEW m0 AS SELECT 1 AS x;"
    for (i = 1; i < 40000; i++)
        if (i % 20 == 0)
            printf "CREATE MATERIALIZED VIEW m%d AS SELECT x + 1 AS x FROM m%d;\n", i / 20, i / 20 - 1
        else
            print "USE SCHEMA default;"
}' >statements/transformations/many.sql
dry_run_bounded statements
expect_stdout_contains "materialized view spark_catalog.default.m1999"

# 20,000 SET statements before a view and its reader: both carry all of
# them, which the check of confs through views compares (it was cubic).
project settings
awk 'BEGIN {
    for (i = 1; i <= 20000; i++)
        printf "SET pipelines.test.k%d = v%d;\n", i, i
    print "CREATE TEMPORARY VIEW base AS SELECT 1 AS x;"
    print "CREATE MATERIALIZED VIEW last AS SELECT x FROM base;"
}' >settings/transformations/sets.sql
dry_run_bounded settings
expect_stdout_contains "materialized view spark_catalog.default.last"

# 1,600 chained CTEs.
project ctes
awk 'BEGIN {
    printf "CREATE MATERIALIZED VIEW chained AS WITH a1 AS (SELECT 1 AS x)"
    for (i = 2; i <= 1600; i++)
        printf ", a%d AS (SELECT x + 1 AS x FROM a%d)", i, i - 1
    print " SELECT x FROM a1600;"
}' >ctes/transformations/chain.sql
dry_run_bounded ctes
expect_stdout_contains "materialized view spark_catalog.default.chained"
cd ctes
run_weir run
expect_exit 0
expect_query "SELECT x FROM chained" "x
1600"
