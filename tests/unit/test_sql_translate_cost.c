/*
 * The translator's cost: how many times it asks its resolver for a table
 * (each one a DuckDB statement in weir query) and for the types of a probe
 * (a duckdb_prepare each), for generated families of queries of growing
 * size. Translation is linear in the query: doubling a join chain, the
 * nesting of arithmetic in its ON conditions, or of subqueries with ORDER
 * BY, at most doubles the calls. Past a budget of calls the test exits
 * failing, so a translator that goes exponential fails here at once
 * instead of hanging.
 * Counts, never times.
 */
#include "harness.h"

#include <duckdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"

static duckdb_database db;
static duckdb_connection con;

#define BUDGET 20000 /* resolver calls, far above any linear count here */

typedef struct counts {
    unsigned long relations, probes;
    bool known_types; /* answer relation_types (the engine's resolver) */
} counts;

static void setup(void)
{
    duckdb_result r;
    if (duckdb_open(NULL, &db) != DuckDBSuccess ||
        duckdb_connect(db, &con) != DuckDBSuccess ||
        duckdb_query(con, weir__sql_session_setup(), &r) != DuckDBSuccess) {
        fprintf(stderr, "cannot open duckdb\n");
        exit(2);
    }
    duckdb_destroy_result(&r);
    if (duckdb_query(con,
                     "CREATE TABLE dd (x BIGINT, m DECIMAL(10,2));"
                     "CREATE TABLE ee (y BIGINT);"
                     "INSERT INTO dd VALUES (1, 2.50), (2, 3.25);"
                     "INSERT INTO ee VALUES (2), (3);",
                     &r) != DuckDBSuccess) {
        fprintf(stderr, "fixtures failed: %s\n", duckdb_result_error(&r));
        exit(2);
    }
    duckdb_destroy_result(&r);
}

static void teardown(void)
{
    duckdb_disconnect(&con);
    duckdb_close(&db);
}

/* Past the budget the test ends at once: a translator that goes on after
 * its resolver refused would still take exponential time building text. */
static void check_budget(const counts *c)
{
    if (c->relations + c->probes <= BUDGET)
        return;
    fprintf(stderr, "FAIL: more than %d resolver calls: translation is not "
                    "linear\n", BUDGET);
    fflush(stderr);
    _exit(1);
}

/* A table as written. */
static int on_relation(void *payload, const weir_sql_relref *ref, weir_buf *out,
                       weir_error *err)
{
    counts *c = payload;
    (void)err;
    c->relations++;
    check_budget(c);
    weir__buf_put_sql_ident(out, ref->name.parts[ref->name.n - 1]);
    return 0;
}

/* The types of a probe's columns, as weir's resolvers give them. */
static int on_expr_type(void *payload, const char *sql, weir_buf *out)
{
    counts *c = payload;
    c->probes++;
    check_budget(c);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "DESCRIBE %s", sql);
    duckdb_result r;
    int rc = -1;
    if (duckdb_query(con, weir__buf_cstr(&q), &r) == DuckDBSuccess) {
        rc = 0;
        for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
            char *v = duckdb_value_varchar(&r, 1, i);
            weir__buf_printf(out, "%s%s", i ? "\n" : "", v ? v : "");
            duckdb_free(v);
        }
    }
    duckdb_destroy_result(&r);
    weir__buf_free(&q);
    return rc;
}

static int on_relation_types(void *payload, const weir_sql_relref *ref,
                             weir_buf *out)
{
    const counts *c = payload;
    const char *name = ref->name.parts[ref->name.n - 1];
    if (!c->known_types)
        return -1;
    if (!strcmp(name, "dd"))
        weir__buf_puts(out, "BIGINT\nDECIMAL(10,2)");
    else if (!strcmp(name, "ee"))
        weir__buf_puts(out, "BIGINT");
    else
        return -1;
    return 0;
}

/* Translate spark counting the resolver's calls into *c; the DuckDB SQL
 * into out (may be NULL). */
static int translate(const char *spark, counts *c, weir_buf *out)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "q.sql", spark, strlen(spark), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    weir_error err;
    memset(&err, 0, sizeof(err));
    c->relations = c->probes = 0;
    weir_buf local = WEIR_BUF_INIT;
    int rc = weir__sql_parse_query(&q, &a, &src, 0, src.len, &err);
    weir_sql_resolver r = { on_relation, NULL, c, NULL, on_expr_type,
                            on_relation_types, NULL, NULL, NULL, NULL, NULL };
    if (!rc)
        rc = weir__sql_translate_query(out ? out : &local, q, &r, &err);
    if (rc)
        fprintf(stderr, "  %s\n  -> %s\n", spark, err.message);
    weir__buf_free(&local);
    weir__arena_free(&a);
    return rc;
}

static unsigned long calls(const counts *c)
{
    return c->relations + c->probes;
}

/* n joins of dd, each ON nested arithmetic of depth d over a DECIMAL
 * table's column: t<i-1>.x + 1 + 1 ... = t<i>.x (nested, not a flat sum). */
static void join_family(weir_buf *q, int n, int d)
{
    weir__buf_puts(q, "SELECT t0.m FROM dd t0");
    for (int i = 1; i <= n; i++) {
        weir__buf_printf(q, " JOIN %s t%d ON ", i % 2 ? "ee" : "dd", i);
        for (int k = 0; k < d; k++)
            weir__buf_putc(q, '(');
        weir__buf_printf(q, "t%d.x", i - 1 - (i % 2 == 0));
        for (int k = 0; k < d; k++)
            weir__buf_puts(q, " + 1)");
        weir__buf_printf(q, " = t%d.%s", i, i % 2 ? "y" : "x");
    }
}

/* d subqueries, each with an ORDER BY with arithmetic (a DataFrame's sort
 * under its show()), and an inline table's rows at the bottom. */
static void sort_family(weir_buf *q, int d)
{
    for (int k = 0; k < d; k++)
        weir__buf_puts(q, "SELECT * FROM (");
    weir__buf_puts(q, "SELECT * FROM VALUES (PI() * 2, 1.5 * 2), (PI() * 4, 2.5 * 3) AS t(v, w)");
    for (int k = 0; k < d; k++)
        weir__buf_printf(q, " ORDER BY v * %d, w - 1) AS s%d", k + 2, k);
    weir__buf_puts(q, " LIMIT 21");
}

/* Calls for size n and 2n: linear means at most twice as many, plus a
 * constant for the query's fixed parts. */
static void check_linear(const char *what, void (*make)(weir_buf *, int, int),
                         int n, int d, bool grow_n, bool known)
{
    unsigned long got[2];
    for (int i = 0; i < 2; i++) {
        weir_buf q = WEIR_BUF_INIT;
        int scale = i ? 2 : 1;
        make(&q, grow_n ? n * scale : n, grow_n ? d : d * scale);
        counts c = { 0, 0, known };
        CHECK_INT(translate(weir__buf_cstr(&q), &c, NULL), 0);
        got[i] = calls(&c);
        weir__buf_free(&q);
    }
    if (got[1] > 2 * got[0] + 8 || got[1] >= BUDGET) {
        fprintf(stderr, "  %s: %lu resolver calls, then %lu at twice the size\n",
                what, got[0], got[1]);
        T_.failures++;
    }
}

static void sort_make(weir_buf *q, int n, int d)
{
    (void)n;
    sort_family(q, d);
}

TEST(test_sql_translate_cost__join_on_arithmetic)
{
    /* The query: a DECIMAL column in a joined table, arithmetic in
     * the ON condition: a couple of calls, not thousands. */
    counts c = { 0, 0, false };
    CHECK_INT(translate("SELECT 1 FROM dd JOIN ee ON dd.x + 1 = ee.y", &c, NULL), 0);
    CHECK(calls(&c) <= 8);
    c.known_types = true;
    CHECK_INT(translate("SELECT 1 FROM dd JOIN ee ON dd.x + 1 = ee.y", &c, NULL), 0);
    CHECK(calls(&c) <= 8);
    /* Growing the chain or the nesting grows the calls linearly, with the
     * resolver's table types (the engine) and without (weir query). */
    for (int known = 0; known < 2; known++) {
        check_linear("joins", join_family, 4, 3, true, known);
        check_linear("joins", join_family, 8, 3, true, known);
        check_linear("nesting", join_family, 3, 4, false, known);
        check_linear("nesting", join_family, 3, 8, false, known);
    }
}

TEST(test_sql_translate_cost__on_is_typed_over_its_sides)
{
    /* A DECIMAL operand in ON gets Spark's result type, probed over the
     * join's two sides (the query reads as Spark computes it). */
    counts c = { 0, 0, false };
    weir_buf out = WEIR_BUF_INIT;
    CHECK_INT(translate("SELECT dd.x FROM dd JOIN ee ON dd.m * 2 = ee.y", &c, &out), 0);
    CHECK_CONTAINS(weir__buf_cstr(&out), "AS DECIMAL(12,2))");
    weir__buf_free(&out);
}

TEST(test_sql_translate_cost__values_and_sorts)
{
    /* Inline tables of two rows and sorts in subqueries (a DataFrame's
     * sort().show()): each probe is made once. */
    counts c = { 0, 0, false };
    CHECK_INT(translate("SELECT * FROM VALUES (PI() * 2), (PI() * 4) AS t(v)", &c,
                        NULL),
              0);
    CHECK(calls(&c) <= 8);
    CHECK_INT(translate("SELECT * FROM (SELECT * FROM (SELECT * FROM dd) "
                        "ORDER BY x * 2 ASC NULLS FIRST) LIMIT 21",
                        &c, NULL),
              0);
    CHECK(calls(&c) <= 8);
    check_linear("sorts", sort_make, 0, 3, false, false);
    check_linear("sorts", sort_make, 0, 6, false, false);
}

/* f(f(...f(col)...)) nested d deep, for a call whose result type depends
 * on its argument's (it translates the argument to probe its type). */
static void call_family(weir_buf *q, const char *fn, const char *rest,
                        const char *col, int d)
{
    weir__buf_puts(q, "SELECT ");
    for (int k = 0; k < d; k++)
        weir__buf_printf(q, "%s(", fn);
    weir__buf_puts(q, col);
    for (int k = 0; k < d; k++)
        weir__buf_puts(q, rest);
    weir__buf_puts(q, " AS r FROM dd");
}

TEST(test_sql_translate_cost__nested_calls)
{
    /* floor, ceil, round and bround of an integer (no DECIMAL: the call is
     * translated as usual after the probe) or of a DECIMAL; the DuckDB
     * text grows linearly too (bround's half-even rounding reads its
     * operand once). */
    static const char *const calls_[][2] = {
        { "floor", ")" }, { "ceil", ")" }, { "round", ", 1)" }, { "bround", ", 1)" },
    };
    for (size_t f = 0; f < sizeof(calls_) / sizeof(calls_[0]); f++) {
        for (int col = 0; col < 2; col++) {
            unsigned long got[2];
            size_t len[2];
            for (int i = 0; i < 2; i++) {
                weir_buf q = WEIR_BUF_INIT, out = WEIR_BUF_INIT;
                call_family(&q, calls_[f][0], calls_[f][1], col ? "m" : "x",
                            i ? 8 : 4);
                counts c = { 0, 0, false };
                CHECK_INT(translate(weir__buf_cstr(&q), &c, &out), 0);
                got[i] = calls(&c);
                len[i] = out.len;
                weir__buf_free(&q);
                weir__buf_free(&out);
            }
            if (got[1] > 2 * got[0] + 8 || len[1] > 2 * len[0] + 200) {
                fprintf(stderr, "  %s(%s): %lu calls, %zu bytes; twice as "
                                "deep: %lu calls, %zu bytes\n",
                        calls_[f][0], col ? "m" : "x", got[0], len[0], got[1],
                        len[1]);
                T_.failures++;
            }
        }
    }
}

TEST_MAIN(setup(); RUN(test_sql_translate_cost__join_on_arithmetic);
          RUN(test_sql_translate_cost__on_is_typed_over_its_sides);
          RUN(test_sql_translate_cost__values_and_sorts);
          RUN(test_sql_translate_cost__nested_calls); teardown())
