/*
 * Query translation to DuckDB SQL: WITH, set operations, VALUES, SELECT
 * with its clauses, ORDER BY with Spark's null ordering made explicit,
 * LIMIT/OFFSET, and FROM clauses (tables and table-valued functions through
 * the resolver, subqueries, joins, LATERAL VIEW generators). Identifiers are
 * always double-quoted; unaliased select items get Spark's column names.
 */
#include "internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/str.h"

int weir__sql_tx_error(sql_tx *t, weir_sql_pos pos, const weir_sql_source *src,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(t->err, WEIR_ESQL, "UNSUPPORTED_SPARK_SQL", __FILE__,
                     __LINE__, fmt, ap);
    va_end(ap);
    if (src)
        weir__sql_error_at(t->err, src, pos);
    return WEIR_ESQL;
}

int weir__sql_tx_order(sql_tx *t, weir_buf *out, const sql_order *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        int rc = weir__sql_tx_expr(t, out, o[i].e);
        if (rc)
            return rc;
        weir__buf_puts(out, o[i].dir == 2 ? " DESC" : " ASC");
        int nulls = o[i].nulls ? o[i].nulls : (o[i].dir == 2 ? 2 : 1);
        weir__buf_puts(out, nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
    }
    return 0;
}

static bool has_upper(const char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            return true;
    return false;
}

static const sql_window *named_window(const sql_tx *t, const char *name)
{
    if (!t->sel)
        return NULL;
    for (size_t i = 0; i < t->sel->n_windows; i++)
        if (weir__str_ieq(t->sel->windows[i].name, name))
            return t->sel->windows[i].w;
    return NULL;
}

static void put_bound(weir_buf *out, const sql_bound *b, weir_buf *n)
{
    switch (b->kind) {
    case 1: weir__buf_puts(out, "UNBOUNDED PRECEDING"); break;
    case 2: weir__buf_printf(out, "%s PRECEDING", weir__buf_cstr(n)); break;
    case 3: weir__buf_puts(out, "CURRENT ROW"); break;
    case 4: weir__buf_printf(out, "%s FOLLOWING", weir__buf_cstr(n)); break;
    case 5: weir__buf_puts(out, "UNBOUNDED FOLLOWING"); break;
    default: break;
    }
}

static int tx_bound(sql_tx *t, weir_buf *out, const sql_bound *b)
{
    weir_buf n = WEIR_BUF_INIT;
    int rc = 0;
    if (b->n)
        rc = weir__sql_tx_expr(t, &n, b->n);
    if (!rc)
        put_bound(out, b, &n);
    weir__buf_free(&n);
    return rc;
}

int weir__sql_tx_window(sql_tx *t, weir_buf *out, const sql_window *w,
                        const weir_sql_expr *at)
{
    /* Merge a chain of named windows: OVER (w ORDER BY ..) or OVER w. */
    const sql_window *chain[16];
    size_t n = 0;
    for (const sql_window *cur = w; cur && n < 16;) {
        chain[n++] = cur;
        if (!cur->ref)
            break;
        const sql_window *next = named_window(t, cur->ref);
        if (!next)
            return weir__sql_tx_error(t, at->pos, at->src,
                                      "Window specification %s is not defined",
                                      cur->ref);
        cur = next;
    }
    const sql_window *part = NULL, *ord = NULL, *frame = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!part && chain[i]->n_partition)
            part = chain[i];
        if (!ord && chain[i]->n_order)
            ord = chain[i];
        if (!frame && chain[i]->frame)
            frame = chain[i];
    }
    int rc = 0;
    weir__buf_puts(out, " OVER (");
    bool sp = false;
    if (part) {
        weir__buf_puts(out, "PARTITION BY ");
        for (size_t i = 0; !rc && i < part->n_partition; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            rc = weir__sql_tx_expr(t, out, part->partition[i]);
        }
        sp = true;
    }
    if (!rc && ord) {
        weir__buf_puts(out, sp ? " ORDER BY " : "ORDER BY ");
        rc = weir__sql_tx_order(t, out, ord->order, ord->n_order);
        sp = true;
    }
    if (!rc && frame) {
        weir__buf_puts(out, sp ? " " : "");
        weir__buf_puts(out, frame->frame == 1 ? "ROWS " : "RANGE ");
        if (frame->end.kind) {
            weir__buf_puts(out, "BETWEEN ");
            rc = tx_bound(t, out, &frame->start);
            weir__buf_puts(out, " AND ");
            if (!rc)
                rc = tx_bound(t, out, &frame->end);
        } else {
            rc = tx_bound(t, out, &frame->start);
        }
    }
    weir__buf_putc(out, ')');
    return rc;
}

/* ------------------------------------------------------------------------
 * FROM
 * ------------------------------------------------------------------------ */

static int tx_rel(sql_tx *t, weir_buf *out, const sql_rel *r);

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
static int tx_values_rel(sql_tx *t, weir_buf *out, const weir_sql_query *q,
                         const char *alias, const char *const *cols, size_t n)
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

static int arg_number(const weir_sql_expr *e)
{
    return e->kind == EX_LIT &&
           (e->lit == LIT_INT || e->lit == LIT_BIGINT || e->lit == LIT_SMALLINT ||
            e->lit == LIT_TINYINT);
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
        (void)arg_number;
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

static int tx_lateral_view(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    int rc = tx_rel(t, out, r->left);
    if (rc)
        return rc;
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
    rc = weir__sql_tx_generator(t, out, r->gen, r->col_aliases,
                                r->n_col_aliases);
    if (rc)
        return rc;
    weir__buf_puts(out, ") AS ");
    weir__buf_put_sql_ident(out, r->alias ? r->alias : "__lateral_view");
    if (outer)
        weir__buf_puts(out, " ON true");
    return 0;
}

static int tx_rel(sql_tx *t, weir_buf *out, const sql_rel *r)
{
    if (++t->depth > 4 * SQL_MAX_DEPTH) {
        t->depth--;
        return weir__sql_tx_error(t, r->pos, NULL, "Query nested too deeply");
    }
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
            rc = tx_values_rel(t, out, r->query, r->alias, r->col_aliases,
                               r->n_col_aliases);
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
        if ((rc = tx_rel(t, out, r->left)))
            break;
        if (r->natural)
            weir__buf_puts(out, " NATURAL");
        weir__buf_puts(out, join_sql(r->join));
        if (r->right->kind == R_JOIN)
            weir__buf_putc(out, '(');
        t->open++; /* DuckDB lets the right side see the left */
        rc = tx_rel(t, out, r->right);
        t->open--;
        if (rc)
            break;
        if (r->right->kind == R_JOIN)
            weir__buf_putc(out, ')');
        if (r->on) {
            weir__buf_puts(out, " ON ");
            rc = weir__sql_tx_expr(t, out, r->on);
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
            if (r->join == J_INNER)
                weir__buf_puts(out, " ON true");
            else
                weir__buf_puts(out, " ON true");
        }
        break;
    case R_LATERAL_VIEW:
        rc = tx_lateral_view(t, out, r);
        break;
    }
    t->depth--;
    return rc;
}

/* ------------------------------------------------------------------------
 * SELECT
 * ------------------------------------------------------------------------ */

static const weir_sql_expr *find_time_window(const sql_select *s)
{
    for (size_t i = 0; i < s->n_group_by; i++) {
        const weir_sql_expr *g = s->group_by[i];
        if (g->kind == EX_FUNC && weir__str_ieq(g->name, "window"))
            return g;
    }
    return NULL;
}

static bool is_generator_call(const weir_sql_expr *e)
{
    if (e->kind != EX_FUNC || e->over)
        return false;
    char lname[64];
    weir__str_copy(lname, sizeof(lname), e->name);
    weir__str_lower(lname);
    return weir__sql_is_generator(lname);
}

/* Whether star e (`*` or `q.*`) covers the relation read as alias. */
static bool star_covers(const weir_sql_expr *e, const char *alias)
{
    return !e->n_names || weir__str_ieq(e->names[e->n_names - 1], alias);
}

static int tx_item(sql_tx *t, weir_buf *out, const sql_item *it)
{
    const weir_sql_expr *e = it->e;
    if (e->kind == EX_STAR) {
        if (e->n_names) {
            for (size_t i = 0; i < e->n_names; i++) {
                weir__buf_put_sql_ident(out, e->names[i]);
                weir__buf_putc(out, '.');
            }
        }
        weir__buf_putc(out, '*');
        size_t n = e->n;
        for (size_t i = 0; i < e->n; i++) {
            const weir_sql_expr *c = e->list[i];
            weir__buf_puts(out, i ? ", " : " EXCLUDE (");
            weir__buf_put_sql_ident(out, c->names[c->n_names - 1]);
        }
        /* The hidden columns of the relations the star covers, once each. */
        for (size_t i = t->hidden_base; i < t->n_hidden; i++) {
            const char *col = t->hidden[i].column;
            bool emit = star_covers(e, t->hidden[i].alias);
            for (size_t j = 0; emit && j < e->n; j++) {
                const weir_sql_expr *c = e->list[j];
                emit = !weir__str_ieq(c->names[c->n_names - 1], col);
            }
            for (size_t j = t->hidden_base; emit && j < i; j++)
                emit = !(weir__str_ieq(t->hidden[j].column, col) &&
                         star_covers(e, t->hidden[j].alias));
            if (!emit)
                continue;
            weir__buf_puts(out, n++ ? ", " : " EXCLUDE (");
            weir__buf_put_sql_ident(out, col);
        }
        if (n)
            weir__buf_putc(out, ')');
        return 0;
    }
    if (is_generator_call(e)) {
        const char *one[1] = { it->alias };
        if (it->alias)
            return weir__sql_tx_generator(t, out, e, one, 1);
        return weir__sql_tx_generator(t, out, e, it->aliases, it->n_aliases);
    }
    if (it->n_aliases)
        return weir__sql_tx_error(t, it->pos, e->src,
                                  "Multiple aliases AS (...) are only allowed "
                                  "for generator functions");
    int rc = weir__sql_tx_expr(t, out, e);
    if (rc)
        return rc;
    if (it->alias) {
        weir__buf_puts(out, " AS ");
        weir__buf_put_sql_ident(out, it->alias);
    } else if (e->kind == EX_COLUMN && e->n_names == 1 &&
               !(t->time_window && weir__str_ieq(e->names[0], "window"))) {
        /* A bare column keeps its name as written (Spark: SELECT ID from a
         * column id is named ID); lower-case names are left to DuckDB. */
        if (has_upper(e->names[0])) {
            weir__buf_puts(out, " AS ");
            weir__buf_put_sql_ident(out, e->names[0]);
        }
    } else {
        weir_buf name = WEIR_BUF_INIT;
        if (e->kind == EX_COLUMN)
            weir__buf_puts(&name, e->names[e->n_names - 1]);
        else
            weir__sql_pretty(&name, e);
        weir__buf_puts(out, " AS ");
        weir__buf_put_sql_ident(out, weir__buf_cstr(&name));
        weir__buf_free(&name);
    }
    return 0;
}

static int expr_list_out(sql_tx *t, weir_buf *out, weir_sql_expr *const *e,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        int rc = weir__sql_tx_expr(t, out, e[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static bool has_star(const sql_select *s)
{
    for (size_t i = 0; i < s->n_items; i++)
        if (s->items[i].e->kind == EX_STAR)
            return true;
    return false;
}

static int tx_select(sql_tx *t, weir_buf *out, const sql_select *s)
{
    const sql_select *saved_sel = t->sel;
    const sql_rel *saved_from = t->from;
    weir_buf *saved_text = t->from_text;
    int saved_rc = t->from_rc;
    int saved_decimals = t->from_decimals;
    const weir_sql_expr *saved_tw = t->time_window;
    weir_buf from_text = WEIR_BUF_INIT;
    t->sel = s;
    t->from = s->from;
    t->from_text = &from_text;
    t->from_rc = -1;
    t->from_decimals = 0;
    t->time_window = find_time_window(s);
    size_t saved_hidden = t->n_hidden, saved_base = t->hidden_base;
    t->hidden_base = t->n_hidden; /* an outer SELECT's are not this one's */
    int rc = 0;
    if (s->from && t->resolver && t->resolver->tvf_hidden && has_star(s)) {
        /* The FROM first: its table functions tell their hidden columns,
         * which the stars leave out. Errors are reported where the FROM
         * is rendered again (as after a probe). */
        weir_error saved = *t->err;
        t->from_text = NULL;
        t->from_rc = tx_rel(t, &from_text, s->from) ? 1 : 0;
        t->from_text = &from_text;
        *t->err = saved;
        if (t->from_rc)
            t->n_hidden = saved_hidden;
    }
    weir__buf_puts(out, s->distinct ? "SELECT DISTINCT " : "SELECT ");
    for (size_t i = 0; !rc && i < s->n_items; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        rc = tx_item(t, out, &s->items[i]);
    }
    if (!rc && s->from) {
        weir__buf_puts(out, " FROM ");
        if (t->from_rc == 0) /* a probe rendered it already */
            weir__buf_put(out, from_text.ptr, from_text.len);
        else
            rc = tx_rel(t, out, s->from);
    }
    if (!rc && s->where) {
        weir__buf_puts(out, " WHERE ");
        rc = weir__sql_tx_expr(t, out, s->where);
    }
    if (!rc && s->group != GB_NONE) {
        weir__buf_puts(out, " GROUP BY ");
        switch (s->group) {
        case GB_ALL: weir__buf_puts(out, "ALL"); break;
        case GB_EXPRS: rc = expr_list_out(t, out, s->group_by, s->n_group_by); break;
        case GB_ROLLUP:
        case GB_CUBE:
            weir__buf_puts(out, s->group == GB_ROLLUP ? "ROLLUP (" : "CUBE (");
            rc = expr_list_out(t, out, s->group_by, s->n_group_by);
            weir__buf_putc(out, ')');
            break;
        case GB_SETS:
            weir__buf_puts(out, "GROUPING SETS (");
            for (size_t i = 0; !rc && i < s->n_sets; i++) {
                if (i)
                    weir__buf_puts(out, ", ");
                weir__buf_putc(out, '(');
                rc = expr_list_out(t, out, s->sets[i].e, s->sets[i].n);
                weir__buf_putc(out, ')');
            }
            weir__buf_putc(out, ')');
            break;
        default: break;
        }
    }
    if (!rc && s->having) {
        weir__buf_puts(out, " HAVING ");
        rc = weir__sql_tx_expr(t, out, s->having);
    }
    if (!rc && s->qualify) {
        weir__buf_puts(out, " QUALIFY ");
        rc = weir__sql_tx_expr(t, out, s->qualify);
    }
    t->sel = saved_sel;
    t->from = saved_from;
    t->from_text = saved_text;
    t->from_rc = saved_rc;
    t->from_decimals = saved_decimals;
    t->time_window = saved_tw;
    t->n_hidden = saved_hidden;
    t->hidden_base = saved_base;
    weir__buf_free(&from_text);
    return rc;
}

/* DuckDB type text -> Spark's decimal view of it (see decimal_of). */
static void decimal_view(const char *ty, size_t len, int *p, int *s,
                         bool *integral)
{
    static const struct {
        const char *name;
        int digits;
    } INTS[] = { { "TINYINT", 3 }, { "SMALLINT", 5 }, { "INTEGER", 10 },
                 { "BIGINT", 20 } };
    *p = *s = -1;
    *integral = false;
    char buf[64];
    if (len >= sizeof(buf))
        return;
    memcpy(buf, ty, len);
    buf[len] = '\0';
    int pp, ss;
    if (sscanf(buf, "DECIMAL(%d,%d)", &pp, &ss) == 2 && pp >= 1 && pp <= 38 &&
        ss >= 0 && ss <= pp) {
        *p = pp;
        *s = ss;
        return;
    }
    for (size_t i = 0; i < sizeof(INTS) / sizeof(INTS[0]); i++)
        if (strcmp(buf, INTS[i].name) == 0) {
            *p = INTS[i].digits;
            *s = 0;
            *integral = true;
        }
}

/* The types of "SELECT <list> FROM <the SELECT's FROM>", one per line. */
static bool probe_types(sql_tx *t, const char *const *x_sql, size_t n,
                        weir_buf *types)
{
    if (!t->resolver || !t->resolver->expr_type || t->lambdas)
        return false;
    /* The probe renders the FROM again: errors there are not the query's. */
    weir_error saved = *t->err;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT ");
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(&q, "%s%s", i ? ", " : "", x_sql[i]);
    int rc = 0;
    if (t->from && t->from_text) {
        /* rendered once per SELECT: probes of nested views would
         * otherwise multiply */
        if (t->from_rc < 0) {
            weir_buf *text = t->from_text;
            t->from_text = NULL; /* probes inside the FROM render their own */
            t->from_rc = tx_rel(t, text, t->from) ? 1 : 0;
            t->from_text = text;
        }
        rc = t->from_rc;
        weir__buf_puts(&q, " FROM ");
        weir__buf_put(&q, t->from_text->ptr, t->from_text->len);
    } else if (t->from) {
        weir__buf_puts(&q, " FROM ");
        rc = tx_rel(t, &q, t->from);
    }
    *t->err = saved;
    bool ok = !rc && !q.failed &&
              t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&q),
                                     types) == 0 && !types->failed;
    weir__buf_free(&q);
    return ok;
}

bool weir__sql_tx_types(sql_tx *t, const char *const *x_sql, size_t n,
                        weir_buf *types)
{
    weir_arena a = WEIR_ARENA_INIT;
    const char **wrapped = weir__arena_array(&a, n ? n : 1, sizeof(*wrapped));
    for (size_t i = 0; wrapped && i < n; i++) {
        wrapped[i] = weir__arena_printf(&a, "(%s)", x_sql[i]);
        if (!wrapped[i])
            wrapped = NULL;
    }
    bool ok = wrapped && probe_types(t, wrapped, n, types);
    weir__arena_free(&a);
    return ok;
}

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (weir__str_ieqn(s, w, n))
            return true;
    return false;
}

/* Whether an operand, as DuckDB SQL, can only be of a DECIMAL type when a
 * column of the FROM is: names (qualified too), integer literals, and
 * + - * % and parentheses over them. A function call, cast, subquery or
 * literal of another kind needs the probe. */
static bool plain_operand(const char *x)
{
    bool after_name = false;
    for (const char *c = x; *c;) {
        unsigned char ch = (unsigned char)*c;
        if (isdigit(ch)) {
            while (isdigit((unsigned char)*c))
                c++;
            if (isalpha((unsigned char)*c) || *c == '.' || *c == '_')
                return false; /* 1.5, 1e3, 10L */
            after_name = false;
        } else if (isalpha(ch) || ch == '_' || ch == '"') {
            const char *w = c;
            while (isalnum((unsigned char)*c) || *c == '_' || *c == '"' || *c == '.')
                c++;
            if (weir__str_ieqn(w, "decimal", 7) || weir__str_ieqn(w, "select", 6))
                return false;
            after_name = true;
        } else if (ch == '(') {
            if (after_name)
                return false; /* a call */
            c++;
        } else if (strchr(" )+-*%", ch)) {
            after_name = after_name && ch == ' ';
            c++;
        } else {
            return false;
        }
    }
    return true;
}

/* Whether relation r has a DECIMAL column, from the types the resolver
 * knows for its tables: 1 no, 2 yes, 0 unknown (a table the resolver
 * cannot type, a CTE, a subquery, a table-valued function). */
static int known_decimals(sql_tx *t, const sql_rel *r)
{
    if (!r || !t->resolver->relation_types)
        return 0;
    if (r->kind == R_JOIN) {
        int a = known_decimals(t, r->left);
        int b = a ? known_decimals(t, r->right) : 0;
        return a && b ? (a == 2 || b == 2 ? 2 : 1) : 0;
    }
    if (r->kind != R_TABLE ||
        (r->name.n == 1 && weir__sql_cte_lookup(t->ctes, r->name.parts[0], NULL)))
        return 0;
    weir_sql_relref ref = { r->name, r->streaming, r };
    weir_buf types = WEIR_BUF_INIT;
    int known = 0;
    if (t->resolver->relation_types(t->resolver->payload, &ref, &types) == 0 &&
        !types.failed)
        known = has_word(weir__buf_cstr(&types), "DECIMAL") ? 2 : 1;
    weir__buf_free(&types);
    return known;
}

/* No operand can be a DECIMAL: they are plain and the FROM has no DECIMAL
 * column (known from the resolver's types of its tables, else one probe
 * per SELECT), so the types DuckDB gives are Spark's and the operator
 * needs no probe of its own. */
static bool no_decimals(sql_tx *t, const char *const *x_sql, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!plain_operand(x_sql[i]))
            return false;
    if (!t->from)
        return true;
    if (!t->from_decimals && t->resolver && !t->lambdas)
        t->from_decimals = known_decimals(t, t->from);
    if (!t->from_decimals) {
        weir_buf types = WEIR_BUF_INIT;
        const char *star = "*";
        bool ok = probe_types(t, &star, 1, &types);
        t->from_decimals = ok && !types.failed &&
                                   !has_word(weir__buf_cstr(&types), "DECIMAL")
                               ? 1
                               : 2;
        weir__buf_free(&types);
    }
    return t->from_decimals == 1;
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

bool weir__sql_tx_decimal_of(sql_tx *t, const char *const *x_sql, size_t n,
                             int *p, int *s, bool *integral)
{
    if (no_decimals(t, x_sql, n))
        return false;
    weir_buf type = WEIR_BUF_INIT;
    bool ok = weir__sql_tx_types(t, x_sql, n, &type);
    const char *at = ok ? weir__buf_cstr(&type) : "";
    for (size_t i = 0; ok && i < n; i++) {
        size_t len = strcspn(at, "\n");
        ok = len > 0;
        decimal_view(at, len, &p[i], &s[i], &integral[i]);
        at += len + (at[len] == '\n');
    }
    weir__buf_free(&type);
    return ok;
}

static int tx_modifiers(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    int rc = 0;
    if (q->n_order) {
        weir__buf_puts(out, " ORDER BY ");
        rc = weir__sql_tx_order(t, out, q->order, q->n_order);
    }
    if (!rc && q->limit) {
        weir__buf_puts(out, " LIMIT ");
        rc = weir__sql_tx_expr(t, out, q->limit);
    }
    if (!rc && q->offset) {
        weir__buf_puts(out, " OFFSET ");
        rc = weir__sql_tx_expr(t, out, q->offset);
    }
    return rc;
}

/* Spark's coarse type families for set operations: inputs in different
 * families have no common type (INCOMPATIBLE_COLUMN_TYPE); within one,
 * and for strings and NULLs, Spark finds a wider type. */
static int type_family(const char *ty)
{
    static const char *const NUM[] = { "TINYINT", "SMALLINT", "INTEGER", "BIGINT",
                                       "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
                                       "UTINYINT", "USMALLINT", "UINTEGER",
                                       "UBIGINT" };
    size_t n = strlen(ty);
    if (n >= 2 && strcmp(ty + n - 2, "[]") == 0)
        return 1; /* array */
    if (weir__str_istarts(ty, "STRUCT("))
        return 2;
    if (weir__str_istarts(ty, "MAP("))
        return 3;
    if (strcmp(ty, "BOOLEAN") == 0)
        return 4;
    if (strcmp(ty, "DATE") == 0 || weir__str_istarts(ty, "TIMESTAMP"))
        return 5;
    if (strcmp(ty, "BLOB") == 0)
        return 6;
    if (weir__str_istarts(ty, "INTERVAL"))
        return 7;
    for (size_t i = 0; i < sizeof(NUM) / sizeof(NUM[0]); i++)
        if (weir__str_istarts(ty, NUM[i]))
            return 8;
    if (strcmp(ty, "VARCHAR") == 0)
        return 9;
    return 0; /* NULL and anything else: not judged */
}

static bool families_compatible(const char *a, const char *b)
{
    int fa = type_family(a), fb = type_family(b);
    /* a string meets any atomic type (Spark casts it); not a complex one */
    if ((fa == 9 && fb > 3) || (fb == 9 && fa > 3))
        return true;
    if (!fa || !fb || fa == fb) {
        if (fa == 1 && fb == 1) { /* arrays: compare the elements */
            char ea[256], eb[256];
            size_t na = strlen(a) - 2, nb = strlen(b) - 2;
            if (na >= sizeof(ea) || nb >= sizeof(eb))
                return true;
            memcpy(ea, a, na);
            ea[na] = '\0';
            memcpy(eb, b, nb);
            eb[nb] = '\0';
            return families_compatible(ea, eb);
        }
        return true;
    }
    return false;
}

static void put_ordinal(weir_buf *out, size_t n)
{
    static const char *const WORDS[] = { "first", "second", "third", "fourth",
                                         "fifth", "sixth", "seventh", "eighth",
                                         "ninth", "tenth" };
    if (n >= 1 && n <= 10) {
        weir__buf_puts(out, WORDS[n - 1]);
        return;
    }
    const char *suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                   ? "st"
                         : n % 10 == 2                   ? "nd"
                         : n % 10 == 3                   ? "rd"
                                                         : "th";
    weir__buf_printf(out, "%zu%s", n, suffix);
}

static void put_spark_type(weir_buf *out, const char *duck, size_t len)
{
    weir_buf d = WEIR_BUF_INIT, s = WEIR_BUF_INIT;
    weir__buf_put(&d, duck, len);
    weir__sql_duckdb_type_to_spark(&s, weir__buf_cstr(&d));
    /* Spark's SQL form: keywords upper case, field names as they are,
     * "MAP<INT, INT>", "STRUCT<x: INT>" */
    for (size_t i = 0; i < s.len; i++) {
        size_t j = i;
        while (j < s.len && (s.ptr[j] == '_' || (s.ptr[j] >= 'a' && s.ptr[j] <= 'z') ||
                             (s.ptr[j] >= 'A' && s.ptr[j] <= 'Z') ||
                             (s.ptr[j] >= '0' && s.ptr[j] <= '9')))
            j++;
        if (j > i) {
            bool field = j < s.len && s.ptr[j] == ':';
            for (size_t k = i; k < j; k++)
                weir__buf_putc(out, (char)(!field && s.ptr[k] >= 'a' && s.ptr[k] <= 'z'
                                               ? s.ptr[k] - 'a' + 'A'
                                               : s.ptr[k]));
            i = j - 1;
            continue;
        }
        weir__buf_putc(out, s.ptr[i]);
        if (s.ptr[i] == ',' || s.ptr[i] == ':')
            weir__buf_putc(out, ' ');
    }
    weir__buf_free(&d);
    weir__buf_free(&s);
}

static bool null_column(const weir_sql_query *q, size_t col);

/* Whether select item col is an untyped NULL: the literal, or a column of
 * (or `*` over) a lone subquery or VALUES in FROM whose column is one
 * (`SELECT d FROM VALUES (NULL) AS t(d)`). */
static bool null_item(const sql_select *sel, size_t col)
{
    const sql_rel *r = sel->from;
    const weir_sql_expr *e = NULL;
    if (sel->n_items == 1 && sel->items[0].e->kind == EX_STAR &&
        !sel->items[0].e->n) {
        e = sel->items[0].e;
    } else {
        if (col >= sel->n_items)
            return false;
        e = sel->items[col].e;
    }
    if (e->kind == EX_LIT)
        return e->lit == LIT_NULL;
    if (!r || r->kind != R_SUBQUERY || !r->query)
        return false;
    if (e->kind == EX_STAR)
        return null_column(r->query, col);
    if (e->kind != EX_COLUMN || !e->n_names || e->n_names > 2)
        return false;
    const char *name = e->names[e->n_names - 1];
    for (size_t i = 0; i < r->n_col_aliases; i++)
        if (weir__str_ieq(r->col_aliases[i], name))
            return null_column(r->query, i);
    return false;
}

/* Whether column col of q is an untyped NULL (weir types it INTEGER,
 * Spark void: it takes the other input's type). */
static bool null_column(const weir_sql_query *q, size_t col)
{
    if (!q)
        return false;
    switch (q->kind) {
    case Q_SELECT:
        return null_item(q->sel, col);
    case Q_VALUES:
        for (size_t i = 0; i < q->n_rows; i++)
            if (col < q->rows[i].n && q->rows[i].v[col]->kind == EX_LIT &&
                q->rows[i].v[col]->lit == LIT_NULL)
                return true;
        return false;
    case Q_SETOP:
        return q->setop ? null_column(q->left, col) && null_column(q->right, col)
                        : null_column(q->left, col);
    }
    return false;
}

/* Spark checks a set operation's inputs at analysis: the same number of
 * columns (NUM_COLUMNS_MISMATCH) and column types with a common type
 * (INCOMPATIBLE_COLUMN_TYPE); DuckDB would cast (an INT and a DATE fail
 * only when rows are cast) or word it its own way. Inputs the resolver
 * cannot type alone (they read CTEs of an outer WITH or outer columns)
 * are left to DuckDB. */
static int check_setop(sql_tx *t, const weir_sql_query *q, const char *left,
                       size_t left_len, const char *right, size_t right_len)
{
    if (!t->resolver || !t->resolver->expr_type || t->lambdas)
        return 0;
    weir_buf lq = WEIR_BUF_INIT, rq = WEIR_BUF_INIT;
    weir_buf lt = WEIR_BUF_INIT, rt = WEIR_BUF_INIT;
    weir__buf_put(&lq, left, left_len);
    weir__buf_put(&rq, right, right_len);
    int rc = 0;
    bool typed = !lq.failed && !rq.failed &&
                 t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&lq),
                                        &lt) == 0 &&
                 t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&rq),
                                        &rt) == 0 &&
                 !lt.failed && !rt.failed;
    const char *op = weir__str_ieq(q->setop, "MINUS") ? "EXCEPT" : q->setop;
    size_t nl = 0, nr = 0;
    for (size_t i = 0; typed && i < lt.len; i++)
        nl += lt.ptr[i] == '\n';
    for (size_t i = 0; typed && i < rt.len; i++)
        nr += rt.ptr[i] == '\n';
    if (typed && nl != nr) {
        rc = WEIR_ESQL;
        weir__error_set(t->err, WEIR_ESQL, "NUM_COLUMNS_MISMATCH", __FILE__,
                        __LINE__,
                        "%s can only be performed on inputs with the same "
                        "number of columns, but the first input has %zu "
                        "columns and the second input has %zu columns.",
                        op, nl + 1, nr + 1);
        if (q->src)
            weir__sql_error_at(t->err, q->src, q->pos);
    }
    const char *a = lt.ptr, *b = rt.ptr;
    for (size_t col = 1; typed && !rc && *a && *b; col++) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        char ta[256], tb[256];
        if (na < sizeof(ta) && nb < sizeof(tb)) {
            memcpy(ta, a, na);
            ta[na] = '\0';
            memcpy(tb, b, nb);
            tb[nb] = '\0';
            if (!null_column(q->left, col - 1) && !null_column(q->right, col - 1) &&
                !families_compatible(ta, tb)) {
                weir_buf m = WEIR_BUF_INIT;
                weir__buf_printf(&m, "%s can only be performed on tables with "
                                     "compatible column types. The ", op);
                put_ordinal(&m, col);
                weir__buf_puts(&m, " column of the second table is \"");
                put_spark_type(&m, tb, nb);
                weir__buf_puts(&m, "\" type which is not compatible with \"");
                put_spark_type(&m, ta, na);
                weir__buf_puts(&m, "\" at the same column of the first table.");
                weir__error_set(t->err, WEIR_ESQL, "INCOMPATIBLE_COLUMN_TYPE",
                                __FILE__, __LINE__, "%s", weir__buf_cstr(&m));
                weir__buf_free(&m);
                if (q->src)
                    weir__sql_error_at(t->err, q->src, q->pos);
                rc = WEIR_ESQL;
            }
        }
        a += na + (a[na] == '\n');
        b += nb + (b[nb] == '\n');
    }
    weir__buf_free(&lq);
    weir__buf_free(&rq);
    weir__buf_free(&lt);
    weir__buf_free(&rt);
    return rc;
}

static int tx_body(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    int rc = 0;
    switch (q->kind) {
    case Q_SELECT:
        rc = tx_select(t, out, q->sel);
        if (!rc && q->n_order && t->sel == NULL) {
            /* ORDER BY may use the select's named windows. */
        }
        if (!rc) {
            const sql_select *saved = t->sel;
            t->sel = q->sel;
            rc = tx_modifiers(t, out, q);
            t->sel = saved;
        }
        return rc;
    case Q_VALUES:
        weir__buf_puts(out, "SELECT * FROM ");
        rc = tx_values_rel(t, out, q, NULL, NULL, 0);
        break;
    case Q_SETOP:
        if (!q->setop) {
            weir__buf_puts(out, "SELECT * FROM (");
            rc = weir__sql_tx_query(t, out, q->left);
            weir__buf_puts(out, ") AS \"__q\"");
            break;
        }
        weir__buf_putc(out, '(');
        size_t l0 = out->len;
        rc = weir__sql_tx_query(t, out, q->left);
        size_t l1 = out->len;
        weir__buf_puts(out, ") ");
        weir__buf_puts(out, q->setop);
        if (q->all)
            weir__buf_puts(out, " ALL");
        if (q->by_name)
            weir__buf_puts(out, " BY NAME");
        weir__buf_puts(out, " (");
        size_t r0 = out->len;
        if (!rc)
            rc = weir__sql_tx_query(t, out, q->right);
        size_t r1 = out->len;
        weir__buf_putc(out, ')');
        if (!rc && !q->by_name && !out->failed)
            rc = check_setop(t, q, out->ptr + l0, l1 - l0, out->ptr + r0, r1 - r0);
        break;
    }
    if (!rc)
        rc = tx_modifiers(t, out, q);
    return rc;
}

/* Bracket depth of DuckDB SQL text (quotes ignored: an overestimate). */
static unsigned bracket_depth(const weir_buf *b)
{
    unsigned d = 0, max = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->ptr[i] == '(' && ++d > max)
            max = d;
        else if (b->ptr[i] == ')' && d)
            d--;
    }
    return max;
}

/* CTEs read once are pasted into their reader as subqueries while the
 * nesting this builds stays under this depth (DuckDB's parser accepts
 * about 1000 levels); a deeper one stays a CTE and nesting starts again. */
#define CTE_INLINE_DEPTH 64

static void put_cte(weir_buf *out, const sql_cte_scope *f, bool first)
{
    weir__buf_puts(out, first ? "" : ", ");
    weir__buf_put_sql_ident(out, f->name);
    if (f->cte->n_cols) {
        weir__buf_putc(out, '(');
        for (size_t k = 0; k < f->cte->n_cols; k++) {
            if (k)
                weir__buf_puts(out, ", ");
            weir__buf_put_sql_ident(out, f->cte->cols[k]);
        }
        weir__buf_putc(out, ')');
    }
    weir__buf_puts(out, " AS (");
    weir__buf_put(out, f->text.ptr, f->text.len);
    weir__buf_putc(out, ')');
}

/* WITH: each CTE's query is translated in its own scope first; the ones
 * read once become subqueries of their reader, the others a WITH list. */
static int tx_with(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    size_t n = q->n_ctes;
    sql_cte_scope *frames = weir__arena_array(t->arena, n, sizeof(*frames));
    unsigned *refs = weir__arena_array(t->arena, n, sizeof(*refs));
    bool *keep = weir__arena_array(t->arena, n, sizeof(*keep));
    if (!frames || !refs || !keep)
        return WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
    /* Only where no outer columns are in reach: DuckDB would bind a free
     * column of a pasted CTE to them (correlation, implicit LATERAL) where
     * Spark reports it unresolved. Names are unique (the parser). */
    bool may_inline = !q->recursive && t->open == 0;
    if (may_inline && weir__sql_cte_refs(q, refs, keep))
        return WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = 0;
    size_t made = 0;
    for (size_t i = 0; !rc && i < n; i++, made++) {
        sql_cte_scope *f = &frames[i];
        t->ctes = weir__sql_cte_enter(f, q, i, t->ctes);
        rc = weir__sql_tx_query(t, &f->text, f->cte->q);
        if (!rc && f->text.failed)
            rc = WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
        f->depth = rc ? 0 : bracket_depth(&f->text) + 1;
        f->inlined = may_inline && refs[i] == 1 && !keep[i] &&
                     f->depth < CTE_INLINE_DEPTH;
        t->ctes = f;
    }
    bool first = true;
    for (size_t i = 0; !rc && i < n; i++) {
        if (frames[i].inlined)
            continue;
        if (first)
            weir__buf_puts(out, q->recursive ? "WITH RECURSIVE " : "WITH ");
        put_cte(out, &frames[i], first);
        first = false;
    }
    if (!first)
        weir__buf_putc(out, ' ');
    if (!rc)
        rc = tx_body(t, out, q);
    for (size_t i = 0; i < made; i++)
        weir__buf_free(&frames[i].text);
    return rc;
}

int weir__sql_tx_query(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    if (++t->depth > 4 * SQL_MAX_DEPTH) {
        t->depth--;
        return weir__sql_tx_error(t, q->pos, q->src, "Query nested too deeply");
    }
    const sql_cte_scope *outer = t->ctes;
    int rc = q->n_ctes ? tx_with(t, out, q) : tx_body(t, out, q);
    t->ctes = outer;
    t->depth--;
    return rc;
}

int weir__sql_translate_query(weir_buf *out, const weir_sql_query *q,
                              const weir_sql_resolver *resolver,
                              weir_error *err)
{
    weir_arena arena = WEIR_ARENA_INIT;
    sql_tx t;
    memset(&t, 0, sizeof(t));
    t.resolver = resolver;
    t.err = err;
    t.arena = &arena;
    size_t start = out->len;
    int rc = weir__sql_tx_query(&t, out, q);
    if (!rc && (weir__buf_failed(out) || weir__arena_failed(&arena)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        weir__buf_truncate(out, start);
    weir__arena_free(&arena);
    return rc;
}

int weir__sql_translate_expr(weir_buf *out, const weir_sql_expr *e,
                             weir_error *err)
{
    weir_arena arena = WEIR_ARENA_INIT;
    sql_tx t;
    memset(&t, 0, sizeof(t));
    t.err = err;
    t.arena = &arena;
    t.unqualify = true;
    size_t start = out->len;
    int rc = weir__sql_tx_expr(&t, out, e);
    if (!rc && (weir__buf_failed(out) || weir__arena_failed(&arena)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        weir__buf_truncate(out, start);
    weir__arena_free(&arena);
    return rc;
}
