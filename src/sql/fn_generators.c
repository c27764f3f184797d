/*
 * Spark's generators translated to DuckDB: explode, explode_outer,
 * posexplode, inline, stack and json_tuple, in SELECT lists and LATERAL
 * VIEWs (see weir__sql_tx_generator in internal.h).
 */
#include "internal.h"
#include "functions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static bool map_valued(const weir_sql_expr *a)
{
    static const char *const MAPS[] = { "map", "map_from_arrays", "str_to_map",
                                         "map_concat", "map_from_entries",
                                         "map_filter", NULL };
    if (a->kind != EX_FUNC)
        return false;
    for (int i = 0; MAPS[i]; i++)
        if (weir__str_ieq(a->name, MAPS[i]))
            return true;
    return false;
}

static void put_col(weir_buf *out, const char *const *aliases, size_t n,
                    size_t i, const char *dflt)
{
    weir__buf_puts(out, " AS ");
    weir__buf_put_sql_ident(out, i < n && aliases[i] ? aliases[i] : dflt);
}

/* json_tuple(js, 'f1', 'f2', ..): one row, columns c0, c1, .. (strings;
 * NULLs for NULL or malformed JSON). */
static int json_tuple(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                      const char *const *aliases, size_t n_aliases)
{
    if (e->n < 2)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "json_tuple() needs a JSON string and field "
                                  "names");
    if (n_aliases && n_aliases != e->n - 1)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "json_tuple() produces %zu column(s) but %zu "
                                  "alias(es) were given",
                                  e->n - 1, n_aliases);
    weir_buf j = WEIR_BUF_INIT;
    int rc = weir__fn_arg(t, &j, e, 0);
    for (size_t i = 1; !rc && i < e->n; i++) {
        const char *f = weir__fn_string_literal(e->list[i]);
        if (!f) {
            rc = weir__fn_need_literal(t, e, i, "field name");
            break;
        }
        weir_buf path = WEIR_BUF_INIT;
        weir__buf_puts(&path, "$.\"");
        weir__buf_puts(&path, f);
        weir__buf_putc(&path, '"');
        if (i > 1)
            weir__buf_puts(out, ", ");
        weir__buf_printf(out, "CASE WHEN json_valid(%s) THEN json_extract_string(%s, ",
                         weir__buf_cstr(&j), weir__buf_cstr(&j));
        weir__buf_put_sql_string(out, weir__buf_cstr(&path));
        weir__buf_puts(out, ") END");
        char dflt[32];
        snprintf(dflt, sizeof(dflt), "c%zu", i - 1);
        put_col(out, aliases, n_aliases, i - 1, dflt);
        weir__buf_free(&path);
    }
    weir__buf_free(&j);
    return rc;
}

/* stack(n, a1, .., ak): n rows of ceil(k/n) columns col0, col1, .. */
static int stack(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                 const char *const *aliases, size_t n_aliases)
{
    const weir_sql_expr *n0 = e->n ? e->list[0] : NULL;
    if (!n0 || n0->kind != EX_LIT || n0->lit != LIT_INT || e->n < 2)
        return weir__fn_need_literal(t, e, 0, "row count");
    long rows = strtol(n0->text, NULL, 10);
    if (rows < 1 || rows > 10000)
        return weir__sql_tx_error(t, n0->pos, e->src,
                                  "stack(): the row count must be positive");
    size_t k = e->n - 1, cols = (k + (size_t)rows - 1) / (size_t)rows;
    if (n_aliases && n_aliases != cols)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "stack() produces %zu column(s) but %zu "
                                  "alias(es) were given",
                                  cols, n_aliases);
    int rc = 0;
    for (size_t c = 0; !rc && c < cols; c++) {
        weir__buf_puts(out, c ? ", unnest([" : "unnest([");
        for (long r = 0; !rc && r < rows; r++) {
            size_t i = 1 + (size_t)r * cols + c;
            if (r)
                weir__buf_puts(out, ", ");
            if (i < e->n)
                rc = weir__fn_arg(t, out, e, i);
            else
                weir__buf_puts(out, "NULL");
        }
        weir__buf_puts(out, "])");
        char dflt[32];
        snprintf(dflt, sizeof(dflt), "col%zu", c);
        put_col(out, aliases, n_aliases, c, dflt);
    }
    return rc;
}

int weir__sql_tx_generator(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                           const char *const *aliases, size_t n_aliases)
{
    char name[64];
    weir__str_copy(name, sizeof(name), e->name);
    weir__str_lower(name);
    if (strcmp(name, "json_tuple") == 0)
        return json_tuple(t, out, e, aliases, n_aliases);
    if (strcmp(name, "stack") == 0)
        return stack(t, out, e, aliases, n_aliases);
    if (e->n != 1)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "%s() takes exactly one argument", name);
    bool outer = strstr(name, "_outer") != NULL;
    bool pos = weir__str_istarts(name, "posexplode");
    bool inl = weir__str_istarts(name, "inline");
    weir_buf x = WEIR_BUF_INIT;
    int rc = weir__fn_arg(t, &x, e, 0);
    if (rc) {
        weir__buf_free(&x);
        return rc;
    }
    const char *xv = weir__buf_cstr(&x);
    if (inl && n_aliases) {
        /* Rename the struct fields by position, then expand them. */
        weir_buf r = WEIR_BUF_INIT;
        weir__buf_printf(&r, "list_transform(%s, lambda \"__s\": struct_pack(", xv);
        for (size_t i = 0; i < n_aliases; i++) {
            if (i)
                weir__buf_puts(&r, ", ");
            weir__buf_put_sql_ident(&r, aliases[i]);
            weir__buf_printf(&r, " := struct_extract_at(\"__s\", %zu)", i + 1);
        }
        weir__buf_puts(&r, "))");
        weir__buf_clear(&x);
        weir__buf_puts(&x, weir__buf_cstr(&r));
        weir__buf_free(&r);
        xv = weir__buf_cstr(&x);
    }
    if (inl) {
        if (outer)
            weir__buf_printf(out,
                             "unnest(CASE WHEN len(%s) > 0 THEN %s ELSE [NULL] "
                             "END, recursive := true)",
                             xv, xv);
        else
            weir__buf_printf(out, "unnest(%s, recursive := true)", xv);
        weir__buf_free(&x);
        return rc;
    }
    bool map = map_valued(e->list[0]) || n_aliases == (pos ? 3u : 2u);
    size_t need = (pos ? 1 : 0) + (map ? 2 : 1);
    if (n_aliases && n_aliases != need) {
        weir__buf_free(&x);
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "%s() produces %zu column(s) but %zu "
                                  "alias(es) were given",
                                  name, need, n_aliases);
    }
    /* The list each unnest walks; _outer keeps one NULL row for empty. */
    weir_buf src = WEIR_BUF_INIT;
    size_t k = 0;
    if (pos) {
        weir__buf_printf(&src, "%s(%s)", map ? "map_keys" : "", xv);
        const char *lv = weir__buf_cstr(&src);
        if (outer)
            weir__buf_printf(out,
                             "unnest(CASE WHEN len(%s) > 0 THEN CAST(range(0, "
                             "len(%s)) AS INTEGER[]) ELSE [NULL] END)",
                             lv, lv);
        else
            weir__buf_printf(out, "unnest(CAST(range(0, len(%s)) AS INTEGER[]))", lv);
        put_col(out, aliases, n_aliases, k++, "pos");
        weir__buf_puts(out, ", ");
    }
    const char *parts[2] = { map ? "map_keys" : "", map ? "map_values" : "" };
    const char *names[2] = { map ? "key" : "col", "value" };
    for (int j = 0; j < (map ? 2 : 1); j++) {
        weir__buf_clear(&src);
        weir__buf_printf(&src, "%s(%s)", parts[j], xv);
        const char *sv = weir__buf_cstr(&src);
        if (j)
            weir__buf_puts(out, ", ");
        if (outer)
            weir__buf_printf(out,
                             "unnest(CASE WHEN len(%s) > 0 THEN %s ELSE [NULL] "
                             "END)",
                             sv, sv);
        else
            weir__buf_printf(out, "unnest(%s)", sv);
        put_col(out, aliases, n_aliases, k++, names[j]);
    }
    weir__buf_free(&src);
    weir__buf_free(&x);
    return 0;
}
