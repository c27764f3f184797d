/*
 * FROM clauses in DuckDB SQL: tables (through the resolver, or a CTE in
 * scope, pasted when it is inlined), table-valued functions (the
 * resolver's, else weir's own renderings of range, read_files and the
 * generators), inline tables (VALUES) with Spark's default column names,
 * subqueries, joins and LATERAL VIEW generators.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

static void put_alias(weir_buf *out, const char *alias, const char *const *cols,
                      size_t n)
{
    if (!alias)
        return;
    weir__buf_puts(out, " AS ");
    weir__buf_put_sql_ident(out, alias);
    if (n) {
        weir__buf_putc(out, '(');
        for (size_t i = 0; i < n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_put_sql_ident(out, cols[i]);
        }
        weir__buf_putc(out, ')');
    }
}

static int tx_values(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    weir__buf_puts(out, "VALUES ");
    for (size_t i = 0; i < q->n_rows; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_putc(out, '(');
        for (size_t k = 0; k < q->rows[i].n; k++) {
            if (k)
                weir__buf_puts(out, ", ");
            int rc = weir__sql_tx_expr(t, out, q->rows[i].v[k]);
            if (rc)
                return rc;
        }
        weir__buf_putc(out, ')');
    }
    return 0;
}

/* (VALUES ...) AS alias(col1, ...) with Spark's default names col1..n. */
int weir__sql_tx_values_rel(sql_tx *t, weir_buf *out, const weir_sql_query *q,
                            const char *alias, const char *const *cols,
                            size_t n)
{
    size_t width = q->n_rows ? q->rows[0].n : 0;
    if (n && n != width)
        return weir__sql_tx_error(t, q->pos, q->src,
                                  "Number of column aliases (%zu) does not "
                                  "match the number of columns (%zu) of the "
                                  "inline table",
                                  n, width);
    weir__buf_putc(out, '(');
    int rc = tx_values(t, out, q);
    if (rc)
        return rc;
    weir__buf_puts(out, ") AS ");
    weir__buf_put_sql_ident(out, alias ? alias : "__values");
    weir__buf_putc(out, '(');
    for (size_t i = 0; i < width; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        if (n) {
            weir__buf_put_sql_ident(out, cols[i]);
        } else {
            char name[32];
            snprintf(name, sizeof(name), "col%zu", i + 1);
            weir__buf_put_sql_ident(out, name);
        }
    }
    weir__buf_putc(out, ')');
    return 0;
}

/* Built-in renderings of table-valued functions. */
static int tx_tvf_default(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    const char *name = r->call->name;
    for (size_t i = 0; i < r->n_args; i++)
        if (r->arg_names[i] && !weir__str_ieq(name, "read_files") &&
            !weir__str_ieq(name, "cloud_files"))
            return weir__sql_tx_error(t, r->args[i]->pos, r->args[i]->src,
                                      "Named arguments are not supported for "
                                      "%s()",
                                      name);
    if (strcmp(name, "range") == 0) {
        if (r->n_args < 1 || r->n_args > 4)
            return weir__sql_tx_error(t, r->pos, r->args ? r->args[0]->src : NULL,
                                      "range() takes 1 to 4 arguments");
        weir__buf_puts(out, "(SELECT \"range\" AS \"id\" FROM range(");
        size_t n = r->n_args == 4 ? 3 : r->n_args;
        for (size_t i = 0; i < n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_puts(out, "CAST(");
            int rc = weir__sql_tx_expr(t, out, r->args[i]);
            if (rc)
                return rc;
            weir__buf_puts(out, " AS BIGINT)");
        }
        weir__buf_puts(out, "))");
        return 0;
    }
    if (strcmp(name, "read_files") == 0 || strcmp(name, "cloud_files") == 0)
        return weir__sql_render_read_files(out, r->call, NULL, 0, NULL, t->err);
    if (weir__sql_is_generator(name)) {
        weir_sql_expr call;
        memset(&call, 0, sizeof(call));
        call.kind = EX_FUNC;
        call.name = name;
        call.list = r->args;
        call.n = r->n_args;
        call.pos = r->pos;
        call.src = r->n_args ? r->args[0]->src : NULL;
        weir__buf_puts(out, "(SELECT ");
        int rc = weir__sql_tx_generator(t, out, &call, r->col_aliases,
                                        r->n_col_aliases);
        if (rc)
            return rc;
        weir__buf_putc(out, ')');
        return 0;
    }
    return weir__sql_tx_error(t, r->pos, r->n_args ? r->args[0]->src : NULL,
                              "Table-valued function %s() is not supported",
                              name);
}

static const char *join_sql(sql_join_kind k)
{
    switch (k) {
    case J_INNER: return " JOIN ";
    case J_LEFT: return " LEFT JOIN ";
    case J_RIGHT: return " RIGHT JOIN ";
    case J_FULL: return " FULL JOIN ";
    case J_CROSS: return " CROSS JOIN ";
    case J_SEMI: return " SEMI JOIN ";
    case J_ANTI: return " ANTI JOIN ";
    case J_COMMA: return ", ";
    }
    return " JOIN ";
}

/* A scope over the translations in out: [l0, l1) alone, or joined with
 * [r0, r1) (translate_types.c's join_text). */
static void sides_scope(sql_scope *s, const sql_rel *rel, const weir_buf *out,
                        size_t l0, size_t l1, size_t r0, size_t r1, int depth)
{
    weir__sql_scope_init(s, rel, depth);
    s->sides = out;
    s->left[0] = l0, s->left[1] = l1;
    s->right[0] = r0, s->right[1] = r1;
}

static int tx_lateral_view(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    size_t l0 = out->len;
    int rc = weir__sql_tx_rel(t, out, r->left);
    if (rc)
        return rc;
    /* the generator's arguments read the relation it extends */
    sql_scope scope;
    sides_scope(&scope, r->left, out, l0, out->len, 0, 0, t->depth);
    const char *name = r->gen->name;
    char lname[64];
    weir__str_copy(lname, sizeof(lname), name);
    weir__str_lower(lname);
    if (!weir__sql_is_generator(lname))
        return weir__sql_tx_error(t, r->gen->pos, r->gen->src,
                                  "%s() is not a generator function usable in "
                                  "LATERAL VIEW",
                                  name);
    bool outer = r->outer || strstr(lname, "_outer") != NULL;
    weir__buf_puts(out, outer ? " LEFT JOIN LATERAL (SELECT "
                              : " CROSS JOIN LATERAL (SELECT ");
    t->scope = &scope;
    rc = weir__sql_tx_generator(t, out, r->gen, r->col_aliases,
                                r->n_col_aliases);
    t->scope = NULL;
    weir__sql_scope_free(&scope);
    if (rc)
        return rc;
    weir__buf_puts(out, ") AS ");
    weir__buf_put_sql_ident(out, r->alias ? r->alias : "__lateral_view");
    if (outer)
        weir__buf_puts(out, " ON true");
    return 0;
}

/* left JOIN right ON cond: cond over the scope of the two sides. */
static int tx_join(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    size_t l0 = out->len;
    int rc = weir__sql_tx_rel(t, out, r->left);
    if (rc)
        return rc;
    size_t l1 = out->len;
    if (r->natural)
        weir__buf_puts(out, " NATURAL");
    weir__buf_puts(out, join_sql(r->join));
    size_t r0 = out->len;
    if (r->right->kind == R_JOIN)
        weir__buf_putc(out, '(');
    t->open++; /* DuckDB lets the right side see the left */
    rc = weir__sql_tx_rel(t, out, r->right);
    t->open--;
    if (rc)
        return rc;
    if (r->right->kind == R_JOIN)
        weir__buf_putc(out, ')');
    size_t r1 = out->len;
    if (r->on) {
        weir__buf_puts(out, " ON ");
        sql_scope scope;
        sides_scope(&scope, r, out, l0, l1, r0, r1, t->depth);
        t->scope = &scope;
        rc = weir__sql_tx_expr(t, out, r->on);
        t->scope = NULL;
        weir__sql_scope_free(&scope);
    } else if (r->n_using) {
        weir__buf_puts(out, " USING (");
        for (size_t i = 0; i < r->n_using; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_put_sql_ident(out, r->using_cols[i]);
        }
        weir__buf_putc(out, ')');
    } else if (!r->natural && r->join != J_CROSS && r->join != J_COMMA) {
        /* Spark allows JOIN without a condition: a cross join. */
        weir__buf_puts(out, " ON true");
    }
    return rc;
}

int weir__sql_tx_rel(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    if (++t->depth > 4 * SQL_MAX_DEPTH) {
        t->depth--;
        return weir__sql_tx_error(t, r->pos, NULL, "Query nested too deeply");
    }
    /* A FROM's parts have no scope of their own but a join's ON and a
     * LATERAL VIEW's generator: never the SELECT's FROM they make up. */
    sql_scope *scope = t->scope;
    t->scope = NULL;
    int rc = 0;
    switch (r->kind) {
    case R_TABLE: {
        weir_sql_relref ref = { r->name, r->streaming, r };
        const sql_cte_scope *cte =
            r->name.n == 1 ? weir__sql_cte_lookup(t->ctes, r->name.parts[0], NULL)
                           : NULL;
        if (cte && cte->inlined) {
            weir__buf_putc(out, '(');
            weir__buf_put(out, cte->text.ptr, cte->text.len);
            weir__buf_putc(out, ')');
            put_alias(out, r->alias ? r->alias : cte->name,
                      r->n_col_aliases ? r->col_aliases : cte->cte->cols,
                      r->n_col_aliases ? r->n_col_aliases : cte->cte->n_cols);
            break;
        }
        if (cte) {
            weir__sql_put_name(out, &r->name); /* a CTE: not the resolver's */
        } else if (t->resolver && t->resolver->relation) {
            rc = t->resolver->relation(t->resolver->payload, &ref, out, t->err);
        } else {
            weir__sql_put_name(out, &r->name);
        }
        if (!rc)
            put_alias(out, r->alias ? r->alias : r->name.parts[r->name.n - 1],
                      r->col_aliases, r->n_col_aliases);
        break;
    }
    case R_TVF:
        rc = WEIR_ENOTFOUND;
        if (t->resolver && t->resolver->tvf)
            rc = t->resolver->tvf(t->resolver->payload, r->call, out, t->err);
        if (rc == WEIR_ENOTFOUND) {
            weir__error_clear(t->err);
            rc = tx_tvf_default(t, out, r);
        }
        if (!rc && t->resolver && t->resolver->tvf_hidden &&
            t->n_hidden < sizeof(t->hidden) / sizeof(t->hidden[0])) {
            const char *h = t->resolver->tvf_hidden(t->resolver->payload, r->call);
            if (h) {
                t->hidden[t->n_hidden].alias = r->alias ? r->alias : r->call->name;
                t->hidden[t->n_hidden++].column = h;
            }
        }
        if (!rc)
            put_alias(out, r->alias ? r->alias : r->call->name,
                      weir__sql_is_generator(r->call->name) ? NULL
                                                            : r->col_aliases,
                      weir__sql_is_generator(r->call->name) ? 0
                                                            : r->n_col_aliases);
        break;
    case R_SUBQUERY:
        if (r->query->kind == Q_VALUES && !r->query->n_ctes && !r->query->n_order &&
            !r->query->limit && !r->query->offset) {
            rc = weir__sql_tx_values_rel(t, out, r->query, r->alias,
                                         r->col_aliases, r->n_col_aliases);
            break;
        }
        if (r->lateral)
            weir__buf_puts(out, "LATERAL ");
        weir__buf_putc(out, '(');
        t->open += r->lateral;
        rc = weir__sql_tx_query(t, out, r->query);
        t->open -= r->lateral;
        weir__buf_putc(out, ')');
        if (!rc)
            put_alias(out, r->alias, r->col_aliases, r->n_col_aliases);
        break;
    case R_JOIN:
        rc = tx_join(t, out, r);
        break;
    case R_LATERAL_VIEW:
        rc = tx_lateral_view(t, out, r);
        break;
    }
    t->scope = scope;
    t->depth--;
    return rc;
}

const char *weir__sql_rel_name(const sql_rel *r, const char *fallback)
{
    if (r->alias)
        return r->alias;
    if (r->kind == R_TABLE && r->name.n)
        return r->name.parts[r->name.n - 1];
    return fallback;
}

/* Whether name is the alias (or unaliased name) of a relation of r. */
bool weir__sql_tx_is_relation(const sql_rel *r, const char *name)
{
    if (!r)
        return false;
    if (r->kind == R_JOIN || r->kind == R_LATERAL_VIEW)
        return weir__sql_tx_is_relation(r->left, name) ||
               weir__sql_tx_is_relation(r->right, name) ||
               (r->alias && weir__str_ieq(r->alias, name));
    if (r->alias)
        return weir__str_ieq(r->alias, name);
    if (r->kind == R_TABLE)
        return weir__str_ieq(r->name.parts[r->name.n - 1], name);
    if (r->kind == R_TVF && r->call)
        return weir__str_ieq(r->call->name, name);
    return false;
}
