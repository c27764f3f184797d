/*
 * Spark's higher-order functions translated to DuckDB list lambdas:
 * transform, filter, exists, forall, aggregate, zip_with, and the map ones
 * (map_filter, transform_values, transform_keys) over map entries.
 */
#include "internal.h"
#include "functions.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

static int lambda_call(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                       const char *fn, size_t max_params)
{
    const weir_sql_expr *l = e->list[1];
    if (l->kind != EX_LAMBDA || l->n_names > max_params)
        return weir__sql_tx_error(t, l->pos, e->src,
                                  "%s() expects a lambda with at most %zu "
                                  "parameter(s)",
                                  e->name, max_params);
    weir__buf_printf(out, "%s(", fn);
    int rc = weir__fn_arg(t, out, e, 0);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = weir__sql_tx_lambda(t, out, l, l->n_names == 2);
    weir__buf_putc(out, ')');
    return rc;
}

int weir__fn_transform(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return lambda_call(t, out, e, "list_transform", 2);
}

int weir__fn_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return lambda_call(t, out, e, "list_filter", 2);
}

/* exists/forall with Spark's three-valued results. */
static int quantified(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                      bool any)
{
    weir_buf tr = WEIR_BUF_INIT, arr = WEIR_BUF_INIT;
    int rc = lambda_call(t, &tr, e, "list_transform", 1);
    if (!rc)
        rc = weir__fn_arg(t, &arr, e, 0);
    if (!rc) {
        const char *tv = weir__buf_cstr(&tr);
        weir__buf_printf(out,
                         "CASE WHEN list_position(%s, %s) IS NOT NULL THEN %s "
                         "WHEN list_position(%s, NULL) IS NOT NULL THEN NULL "
                         "WHEN (%s) IS NULL THEN NULL ELSE %s END",
                         tv, any ? "true" : "false", any ? "true" : "false", tv,
                         weir__buf_cstr(&arr), any ? "false" : "true");
    }
    weir__buf_free(&tr);
    weir__buf_free(&arr);
    return rc;
}

int weir__fn_exists(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return quantified(t, out, e, true);
}

int weir__fn_forall(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return quantified(t, out, e, false);
}

int weir__fn_aggregate(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const weir_sql_expr *merge = e->list[2];
    if (merge->kind != EX_LAMBDA || merge->n_names != 2)
        return weir__sql_tx_error(t, merge->pos, e->src,
                                  "%s() expects a lambda (acc, x) -> ...",
                                  e->name);
    const weir_sql_expr *fin = e->n == 4 ? e->list[3] : NULL;
    if (fin && (fin->kind != EX_LAMBDA || fin->n_names != 1))
        return weir__sql_tx_error(t, fin->pos, e->src,
                                  "%s() expects a finish lambda acc -> ...",
                                  e->name);
    if (fin)
        weir__buf_puts(out, "list_transform([");
    weir__buf_puts(out, "list_reduce(");
    int rc = weir__fn_arg(t, out, e, 0);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = weir__sql_tx_lambda(t, out, merge, false);
    weir__buf_puts(out, ", ");
    if (!rc)
        rc = weir__fn_arg(t, out, e, 1);
    weir__buf_putc(out, ')');
    if (fin && !rc) {
        weir__buf_puts(out, "], ");
        rc = weir__sql_tx_lambda(t, out, fin, false);
        weir__buf_puts(out, ")[1]");
    }
    return rc;
}

/* map_filter / transform_values / transform_keys over map_entries(m). */
static int map_lambda(sql_tx *t, weir_buf *out, const weir_sql_expr *e, int kind)
{
    static const char *const KV[] = { "\"__kv\".\"key\"", "\"__kv\".\"value\"" };
    weir_buf body = WEIR_BUF_INIT;
    int rc = weir__sql_tx_lambda_body(t, &body, e->list[1], KV, 2);
    if (!rc) {
        weir__buf_puts(out, kind == 0 ? "map_from_entries(list_filter(map_entries("
                                      : "map_from_entries(list_transform(map_entries(");
        rc = weir__fn_arg(t, out, e, 0);
        weir__buf_puts(out, "), lambda \"__kv\": ");
        if (kind == 0)
            weir__buf_puts(out, weir__buf_cstr(&body));
        else if (kind == 1)
            weir__buf_printf(out, "struct_pack(k := %s, v := %s)", KV[0],
                             weir__buf_cstr(&body));
        else
            weir__buf_printf(out, "struct_pack(k := %s, v := %s)",
                             weir__buf_cstr(&body), KV[1]);
        weir__buf_puts(out, "))");
    }
    weir__buf_free(&body);
    return rc;
}

int weir__fn_map_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return map_lambda(t, out, e, 0);
}

int weir__fn_transform_values(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return map_lambda(t, out, e, 1);
}

int weir__fn_transform_keys(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    return map_lambda(t, out, e, 2);
}

/* zip_with(a, b, (x, y) -> f): the arrays are bound once, through a
 * one-element list and a lambda over it, so each argument's text appears
 * once and nested calls grow linearly; the names carry the lambda depth so
 * an inner call's do not shadow an outer one's. NULL when either array is
 * NULL; the shorter array is padded with NULLs, as in Spark. */
int weir__fn_zip_with(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    size_t depth = 0;
    for (const sql_lambda_scope *sc = t->lambdas; sc; sc = sc->up)
        depth++;
    char z[32], x[64], y[64];
    snprintf(z, sizeof(z), "\"__zw%zu\"", depth);
    snprintf(x, sizeof(x), "%s.a[\"__zi%zu\"]", z, depth);
    snprintf(y, sizeof(y), "%s.b[\"__zi%zu\"]", z, depth);
    const char *subst[2] = { x, y };
    weir__buf_puts(out, "list_transform([struct_pack(a := ");
    int rc = weir__fn_arg(t, out, e, 0);
    weir__buf_puts(out, ", b := ");
    if (!rc)
        rc = weir__fn_arg(t, out, e, 1);
    weir__buf_printf(out,
                     ")], lambda %s: CASE WHEN %s.a IS NULL OR %s.b IS NULL "
                     "THEN NULL ELSE list_transform(generate_series(1, "
                     "greatest(len(%s.a), len(%s.b))), lambda \"__zi%zu\": ",
                     z, z, z, z, z, depth);
    if (!rc)
        rc = weir__sql_tx_lambda_body(t, out, e->list[2], subst, 2);
    weir__buf_puts(out, ") END)[1]");
    return rc;
}
