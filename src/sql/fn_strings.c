/*
 * Spark functions on strings and arrays that need code but no pattern
 * rewriting: collate, mask, regexp_instr, arrays_zip and array_insert.
 * Each one is a DuckDB expression with Spark's null rules; what cannot be
 * said with Spark's semantics is refused with the construct.
 */
#include "internal.h"
#include "functions.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

/* collate(s, 'UTF8_BINARY') is s: the only collation DuckDB compares
 * with Spark's semantics (byte order). */
int weir__fn_collate(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    const char *c = weir__fn_string_literal(e->list[1]);
    if (!c)
        return weir__fn_need_literal(t, e, 1, "collation name");
    if (!weir__str_ieq(c, "UTF8_BINARY"))
        return weir__sql_tx_error(t, e->list[1]->pos, e->src,
                                  "collate(): collation '%s' is not supported "
                                  "(only UTF8_BINARY)",
                                  c);
    weir__buf_puts(out, "CAST(");
    int rc = weir__fn_arg(t, out, e, 0);
    weir__buf_puts(out, " AS VARCHAR)");
    return rc;
}

/* mask(s [, upper [, lower [, digit [, other]]]]): each character by its
 * Unicode class in one pass (a NULL replacement keeps the character). */
int weir__fn_mask(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    static const char *const DEFAULTS[] = { "'X'", "'x'", "'n'", "NULL" };
    static const char *const CLASSES[] = { "\\p{Lu}", "\\p{Ll}", "\\p{Nd}" };
    weir_buf *a;
    int rc = weir__fn_args(t, &a, e);
    if (rc)
        return rc;
    weir__buf_printf(out,
                     "array_to_string(list_transform(string_split(%s, ''), "
                     "lambda __c: CASE",
                     weir__buf_cstr(&a[0]));
    for (size_t i = 0; i < 3; i++) {
        const char *r = i + 1 < e->n ? weir__buf_cstr(&a[i + 1]) : DEFAULTS[i];
        weir__buf_printf(out, " WHEN regexp_full_match(__c, '%s') THEN "
                              "coalesce(left(%s, 1), __c)",
                         CLASSES[i], r);
    }
    weir__buf_printf(out, " ELSE coalesce(left(%s, 1), __c) END), '')",
                     e->n == 5 ? weir__buf_cstr(&a[4]) : DEFAULTS[3]);
    weir__fn_args_free(a, e->n);
    return 0;
}

/* regexp_instr(s, re [, 0]): the 1-based start of the first match, 0 when
 * none. The leftmost match of `re` starts where the leftmost match of
 * `(?:re).*` does, so the text before it is what replacing the latter
 * leaves. Group indexes other than 0 are refused. */
int weir__fn_regexp_instr(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->n == 3) {
        const weir_sql_expr *g = e->list[2];
        if (g->kind != EX_LIT || g->lit != LIT_INT || strcmp(g->text, "0") != 0)
            return weir__sql_tx_error(t, g->pos, e->src,
                                      "regexp_instr(): only group index 0 is "
                                      "supported");
    }
    weir_buf *a;
    int rc = weir__fn_args(t, &a, e);
    if (rc)
        return rc;
    const char *s = weir__buf_cstr(&a[0]), *re = weir__buf_cstr(&a[1]);
    weir__buf_printf(out,
                     "CAST(CASE WHEN regexp_matches(%s, %s) THEN length("
                     "regexp_replace(%s, '(?s)(?:' || (%s) || ').*', '')) + 1 "
                     "WHEN (%s) IS NOT NULL THEN 0 END AS INTEGER)",
                     s, re, s, re, s);
    weir__fn_args_free(a, e->n);
    return 0;
}

/* arrays_zip(a, b, ...): structs named like Spark's (a column's name,
 * else the argument's index), padded with NULLs to the longest array;
 * NULL when any array is. */
int weir__fn_arrays_zip(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (e->n == 0)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "arrays_zip() expects at least one array");
    weir_buf *a;
    int rc = weir__fn_args(t, &a, e);
    if (rc)
        return rc;
    weir__buf_puts(out, "CASE WHEN ");
    for (size_t i = 0; i < e->n; i++)
        weir__buf_printf(out, "%s(%s) IS NULL", i ? " OR " : "",
                         weir__buf_cstr(&a[i]));
    weir__buf_puts(out, " THEN NULL ELSE list_transform(generate_series(1, "
                        "greatest(");
    for (size_t i = 0; i < e->n; i++)
        weir__buf_printf(out, "%slen(%s)", i ? ", " : "", weir__buf_cstr(&a[i]));
    weir__buf_puts(out, ")), lambda __i: struct_pack(");
    for (size_t i = 0; i < e->n; i++) {
        const weir_sql_expr *x = e->list[i];
        char idx[24];
        const char *name = idx;
        if (x->kind == EX_COLUMN && x->n_names)
            name = x->names[x->n_names - 1];
        else
            snprintf(idx, sizeof(idx), "%zu", i);
        for (size_t j = 0; j < i; j++) {
            const weir_sql_expr *w = e->list[j];
            if (x->kind == EX_COLUMN && w->kind == EX_COLUMN && w->n_names &&
                x->n_names && strcmp(w->names[w->n_names - 1], name) == 0) {
                weir__fn_args_free(a, e->n);
                return weir__sql_tx_error(t, x->pos, e->src,
                                          "arrays_zip() of two columns with the "
                                          "same name '%s' (DuckDB structs need "
                                          "distinct field names)",
                                          name);
            }
        }
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, name);
        weir__buf_printf(out, " := (%s)[__i]", weir__buf_cstr(&a[i]));
    }
    weir__buf_puts(out, ")) END");
    weir__fn_args_free(a, e->n);
    return 0;
}

/* array_insert(a, pos, v) with Spark 4's rules: pos 1..len+1 inserts
 * before element pos, past the end pads with NULLs; pos -1 appends, -k
 * inserts before the k-1th element from the end, padding at the front past
 * the start; 0 raises INVALID_INDEX_OF_ZERO. */
int weir__fn_array_insert(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    weir_buf *a;
    int rc = weir__fn_args(t, &a, e);
    if (rc)
        return rc;
    const char *arr = weir__buf_cstr(&a[0]), *pos = weir__buf_cstr(&a[1]),
               *v = weir__buf_cstr(&a[2]);
    weir__buf_printf(
        out,
        "CASE WHEN (%s) IS NULL OR (%s) IS NULL THEN NULL "
        "WHEN (%s) = 0 THEN error('[INVALID_INDEX_OF_ZERO] The index 0 is "
        "invalid. An index shall be either < 0 or > 0 (the first element has "
        "index 1).') "
        "WHEN (%s) > 0 THEN list_concat((%s)[1:(%s) - 1], "
        "list_transform(range(greatest((%s) - 1 - len(%s), 0)), lambda __i: "
        "NULL), [%s], (%s)[%s:]) "
        "WHEN len(%s) + (%s) + 1 >= 0 THEN list_concat((%s)[1:len(%s) + (%s) + "
        "1], [%s], (%s)[len(%s) + (%s) + 2:]) "
        "ELSE list_concat([%s], list_transform(range(-(len(%s) + (%s) + 1)), "
        "lambda __i: NULL), %s) END",
        arr, pos, pos, pos, arr, pos, pos, arr, v, arr, pos, arr, pos, arr, arr,
        pos, v, arr, arr, pos, v, arr, pos, arr);
    weir__fn_args_free(a, e->n);
    return 0;
}
