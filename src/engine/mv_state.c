/*
 * The hidden state of a materialized view refreshed by GROUP_AGGREGATE
 * (see mv_state.h). An avg() column cannot be merged from the averages
 * of the view and of the new rows, so the refresh keeps each average's
 * exact sum and count per group in a table beside the view and computes
 * the average from them as the translation of avg() does
 * (weir__sql_exact_avg). A count(DISTINCT x) column grows by the
 * (group, value) pairs of the new rows not seen before, so those pairs
 * are kept, one table per column. Only averages of a DECIMAL(p,s) with p <= 23 are
 * kept so: Spark computes them exactly, and so does weir's translation.
 * The average of integers or floating-point numbers is a DOUBLE that
 * DuckDB divides in extended precision: no SQL expression of a stored sum
 * and count gives it to the bit, so such views are recomputed.
 */
#include "engine/mv_state.h"

#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "state/mv.h"
#include "store/db.h"
#include "util/str.h"

static int oom(weir_flow_exec *x)
{
    return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
}

void weir__mv_state_put_match(weir_buf *q, const weir_mv_state *st,
                              const char *tab, const char *other)
{
    bool any = false;
    for (size_t i = 0; i < st->shape->n_cols; i++) {
        if (st->shape->cols[i] != WEIR_SQL_INCR_KEY)
            continue;
        const char *name = st->t->schema.cols[i].name;
        weir__buf_printf(q, "%s\"%s\".", any ? " AND " : "", tab);
        weir__buf_put_sql_ident(q, name);
        weir__buf_printf(q, " IS NOT DISTINCT FROM \"%s\".", other);
        weir__buf_put_sql_ident(q, name);
        any = true;
    }
    if (!any)
        weir__buf_puts(q, "true"); /* a global aggregate: its one row */
}

/* The view's key columns, by name, separated by commas; false when it
 * has none (a global aggregate). */
static bool put_keys(weir_buf *q, const weir_mv_state *st)
{
    bool any = false;
    for (size_t i = 0; i < st->shape->n_cols; i++) {
        if (st->shape->cols[i] != WEIR_SQL_INCR_KEY)
            continue;
        weir__buf_puts(q, any ? ", " : "");
        any = true;
        weir__buf_put_sql_ident(q, st->t->schema.cols[i].name);
    }
    return any;
}

int weir__mv_state_sql(const weir_sql_query *q, weir_flow_exec *x,
                       const weir_source_batch *batches, size_t n_batches,
                       weir_buf *sql)
{
    /* The flow as it is, but for its query. */
    weir_gflow f = *x->f;
    f.query = q;
    const weir_gflow *saved = x->f;
    x->f = &f;
    int rc = weir__flow_sql(x, batches, n_batches, false, batches != NULL, sql);
    x->f = saved;
    return rc;
}

/* Why average column i cannot be kept from its sum and count (the sum's
 * type: sum_type), else NULL; its argument's DECIMAL(p,s) into st. */
static const char *avg_refused(const weir_mv_state *st, weir_arena *arena,
                               size_t i, const char *sum_type)
{
    const weir_column *c = &st->t->schema.cols[i];
    int prec = 0, scale = 0;
    char want[64] = "";
    /* The translation sums a DECIMAL(p,s) as Spark does, to a
     * DECIMAL(p+10,s), and averages it exactly up to p = 23 as a
     * DECIMAL(p+4,s+4); an average of anything else is a DOUBLE. */
    if (sum_type && sscanf(sum_type, "DECIMAL(%d,%d)", &prec, &scale) == 2)
        snprintf(want, sizeof(want), "DECIMAL(%d,%d)", prec - 6, scale + 4);
    if (!want[0] || !weir__str_ieq(c->duck_type, want))
        return weir__arena_printf(arena,
                                  "the average %s is a %s, which DuckDB "
                                  "divides in extended precision (only the "
                                  "average of a DECIMAL is kept from its sum "
                                  "and count)",
                                  c->name, c->duck_type);
    if (prec - 10 > 23)
        return weir__arena_printf(arena,
                                  "the average %s is of a DECIMAL with more "
                                  "than 23 digits",
                                  c->name);
    st->p[i] = prec - 10;
    st->s[i] = scale;
    return NULL;
}

/* The types of the columns of query q over the inputs whole (arena). */
static int describe(weir_db_column **cols, size_t *n, weir_arena *arena,
                    weir_flow_exec *x, const weir_sql_query *q)
{
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__mv_state_sql(q, x, NULL, 0, &sql);
    if (!rc)
        rc = weir__conn_describe(x->conn, weir__buf_cstr(&sql), cols, n, arena,
                                 &x->err);
    weir__buf_free(&sql);
    return rc;
}

/* Why count(DISTINCT x) column i cannot be kept from the pairs seen, else
 * NULL: x's type is value_type. */
static const char *distinct_refused(const weir_mv_state *st, weir_arena *arena,
                                    size_t i, const char *value_type)
{
    static const char *const INEXACT[] = { "FLOAT", "REAL", "DOUBLE", NULL };
    for (size_t k = 0; value_type && INEXACT[k]; k++)
        if (weir__str_ieq(value_type, INEXACT[k]))
            value_type = NULL;
    if (!value_type)
        return weir__arena_printf(arena,
                                  "the distinct count %s counts "
                                  "floating-point values (-0.0 and 0.0, NaNs: "
                                  "not kept as pairs)",
                                  st->t->schema.cols[i].name);
    return NULL;
}

int weir__mv_state_plan(weir_mv_state *out, const char **why_not,
                        weir_arena *arena, weir_flow_exec *x,
                        const weir_gdataset *t, const weir_sql_incr *shape)
{
    memset(out, 0, sizeof(*out));
    *why_not = NULL;
    out->t = t;
    out->shape = shape;
    size_t n_cols = shape->n_cols;
    out->p = weir__arena_array(arena, n_cols + 1, sizeof(int));
    out->s = weir__arena_array(arena, n_cols + 1, sizeof(int));
    out->distinct = weir__arena_array(arena, n_cols + 1, sizeof(*out->distinct));
    out->keep = weir__arena_array(arena, n_cols + 1, sizeof(bool));
    if (!out->p || !out->s || !out->distinct || !out->keep ||
        weir__sql_incr_state_query(&out->query, arena, x->f->query, shape))
        return oom(x);
    if (out->query == x->f->query)
        out->query = NULL; /* no average */
    weir_db_column *cols = NULL;
    size_t n = 0;
    int rc = out->query ? describe(&cols, &n, arena, x, out->query) : 0;
    for (size_t i = 0; !rc && !*why_not && i < n_cols; i++) {
        if (shape->cols[i] == WEIR_SQL_INCR_AVG) {
            out->any = true;
            *why_not = avg_refused(out, arena, i, i < n ? cols[i].type : NULL);
            continue;
        }
        if (shape->cols[i] != WEIR_SQL_INCR_COUNT_DISTINCT)
            continue;
        out->any = true;
        weir_db_column *dc = NULL;
        size_t dn = 0;
        if (weir__sql_incr_distinct_query(&out->distinct[i], arena,
                                          x->f->query, shape, i))
            return oom(x);
        rc = describe(&dc, &dn, arena, x, out->distinct[i]);
        const char *value_type = NULL;
        for (size_t k = 0; !rc && k < dn; k++) {
            if (!strcmp(dc[k].name, "__weir_value"))
                value_type = dc[k].type;
            out->keep[i] |= !strcmp(dc[k].name, "__weir_keep");
        }
        if (!rc)
            *why_not = distinct_refused(out, arena, i, value_type);
    }
    return rc;
}

/* The state's columns of average i: its sum, a DECIMAL(38,s), and its
 * count. */
static void put_state_cols(weir_buf *q, const weir_mv_state *st, size_t i,
                           const char *sum, const char *count)
{
    weir__buf_printf(q, "CAST(%s AS DECIMAL(38,%d)) AS \"__weir_sum_%zu\", "
                        "CAST(%s AS BIGINT) AS \"__weir_count_%zu\"",
                     sum, st->s[i], i, count, i);
}

/* The distinct (group, value) pairs of rows q (a query of distinct
 * values of column i, over some rows) not already in the state:
 * SELECT .. FROM (q) AS "__weir_delta" WHERE .. */
static void put_pairs(weir_buf *b, const weir_mv_state *st, size_t i,
                      const char *q, bool only_new)
{
    weir__buf_puts(b, "SELECT DISTINCT ");
    bool keys = put_keys(b, st);
    weir__buf_printf(b, "%s\"__weir_value\" FROM (%s) AS \"__weir_delta\" "
                        "WHERE \"__weir_value\" IS NOT NULL",
                     keys ? ", " : "", q);
    if (st->keep[i])
        weir__buf_puts(b, " AND \"__weir_keep\"");
    if (!only_new)
        return;
    weir__buf_puts(b, " AND NOT EXISTS (SELECT 1 FROM ");
    weir__mv_state_table(b, st->t, (long)i);
    weir__buf_puts(b, " AS \"__weir_state\" WHERE ");
    weir__mv_state_put_match(b, st, "__weir_state", "__weir_delta");
    weir__buf_puts(b, " AND \"__weir_state\".\"__weir_value\" = "
                      "\"__weir_delta\".\"__weir_value\")");
}

int weir__mv_state_rebuild(const weir_mv_state *st, weir_flow_exec *x)
{
    weir_buf q = WEIR_BUF_INIT, part = WEIR_BUF_INIT;
    int rc = st->query ? weir__mv_state_sql(st->query, x, NULL, 0, &part) : 0;
    if (!rc && st->query) {
        weir__buf_puts(&q, "CREATE OR REPLACE TABLE ");
        weir__mv_state_table(&q, st->t, -1);
        weir__buf_puts(&q, " AS SELECT ");
        bool keys = put_keys(&q, st);
        for (size_t i = 0; i < st->shape->n_cols; i++) {
            if (st->shape->cols[i] != WEIR_SQL_INCR_AVG)
                continue;
            char sum[40], count[40];
            snprintf(sum, sizeof(sum), "\"__weir_sum_%zu\"", i);
            snprintf(count, sizeof(count), "\"__weir_count_%zu\"", i);
            weir__buf_puts(&q, keys ? ", " : "");
            keys = true;
            put_state_cols(&q, st, i, sum, count);
        }
        weir__buf_printf(&q, " FROM (%s)", weir__buf_cstr(&part));
        rc = weir__exec_buf(x->conn, &q, &x->err);
    }
    for (size_t i = 0; !rc && i < st->shape->n_cols; i++) {
        if (!st->distinct[i])
            continue;
        weir__buf_clear(&part);
        weir__buf_clear(&q);
        rc = weir__mv_state_sql(st->distinct[i], x, NULL, 0, &part);
        weir__buf_puts(&q, "CREATE OR REPLACE TABLE ");
        weir__mv_state_table(&q, st->t, (long)i);
        weir__buf_puts(&q, " AS ");
        put_pairs(&q, st, i, weir__buf_cstr(&part), false);
        if (!rc)
            rc = weir__exec_buf(x->conn, &q, &x->err);
    }
    weir__buf_free(&q);
    weir__buf_free(&part);
    return rc;
}

int weir__mv_state_put_distinct(weir_buf *q, const weir_mv_state *st,
                                weir_flow_exec *x, size_t i,
                                const weir_source_batch *batches,
                                size_t n_batches)
{
    weir_buf part = WEIR_BUF_INIT;
    int rc = weir__mv_state_sql(st->distinct[i], x, batches, n_batches, &part);
    weir__buf_printf(q, "; CREATE OR REPLACE TEMP TABLE \"__weir_new_%zu\" AS ",
                     i);
    put_pairs(q, st, i, weir__buf_cstr(&part), true);
    weir__buf_puts(q, "; INSERT INTO ");
    weir__mv_state_table(q, st->t, (long)i);
    weir__buf_printf(q, " SELECT * FROM \"__weir_new_%zu\"", i);
    weir__buf_free(&part);
    return rc;
}

int weir__mv_state_check(const weir_mv_state *st, weir_flow_exec *x,
                         int64_t view_rows, bool *ok)
{
    *ok = true;
    int rc = 0;
    for (long col = -1; !rc && *ok && col < (long)st->shape->n_cols; col++) {
        if (col < 0 ? !st->query : !st->distinct[col])
            continue;
        rc = weir__mv_state_exists(x->conn, st->t, col, ok, &x->err);
        if (rc || !*ok)
            break;
        /* A row per group, or as many pairs as the view counts. */
        weir_buf q = WEIR_BUF_INIT;
        weir__buf_puts(&q, "SELECT (SELECT count(*) FROM ");
        weir__mv_state_table(&q, st->t, col);
        weir__buf_puts(&q, ") - ");
        if (col < 0) {
            weir__buf_printf(&q, "%lld", (long long)view_rows);
        } else {
            weir__buf_puts(&q, "(SELECT coalesce(sum(");
            weir__buf_put_sql_ident(&q, st->t->schema.cols[col].name);
            weir__buf_puts(&q, "), 0) FROM ");
            weir__phys(&q, st->t);
            weir__buf_putc(&q, ')');
        }
        int64_t diff = 0;
        rc = weir__scalar_buf(x->conn, &q, &diff, NULL, &x->err);
        *ok = !rc && diff == 0;
        weir__buf_free(&q);
    }
    return rc;
}

void weir__mv_state_put_merged(weir_buf *q, const weir_mv_state *st, size_t i)
{
    char ds[64], ss[64], dn[64], sn[64];
    snprintf(ds, sizeof(ds), "\"__weir_delta\".\"__weir_sum_%zu\"", i);
    snprintf(ss, sizeof(ss), "\"__weir_state\".\"__weir_sum_%zu\"", i);
    snprintf(dn, sizeof(dn), "\"__weir_delta\".\"__weir_count_%zu\"", i);
    snprintf(sn, sizeof(sn), "\"__weir_state\".\"__weir_count_%zu\"", i);
    weir_buf sum = WEIR_BUF_INIT, count = WEIR_BUF_INIT;
    /* A NULL sum: no values yet. */
    weir__buf_printf(&sum, "CASE WHEN %s IS NULL THEN %s WHEN %s IS NULL THEN "
                           "%s ELSE %s + %s END",
                     ss, ds, ds, ss, ss, ds);
    weir__buf_printf(&count, "coalesce(%s, 0) + coalesce(%s, 0)", sn, dn);
    put_state_cols(q, st, i, weir__buf_cstr(&sum), weir__buf_cstr(&count));
    if (sum.failed || count.failed)
        q->failed = true;
    weir__buf_free(&sum);
    weir__buf_free(&count);
}

void weir__mv_state_put_avg(weir_buf *q, const weir_mv_state *st, size_t i)
{
    char sum[40], count[40];
    snprintf(sum, sizeof(sum), "\"__weir_sum_%zu\"", i);
    snprintf(count, sizeof(count), "\"__weir_count_%zu\"", i);
    weir__sql_exact_avg(q, sum, count, st->p[i], st->s[i]);
    weir__buf_puts(q, " AS ");
    weir__buf_put_sql_ident(q, st->t->schema.cols[i].name);
}
