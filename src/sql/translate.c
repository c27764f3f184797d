/*
 * Query translation to DuckDB SQL: WITH, set operations, VALUES, SELECT
 * with its clauses, window specifications, ORDER BY with Spark's null
 * ordering made explicit, and LIMIT/OFFSET. FROM clauses are
 * translate_from.c's; the result types Spark's rules need (DECIMAL
 * operands, a set operation's column checks), translate_types.c's.
 * Identifiers are always double-quoted; unaliased select items get Spark's
 * column names.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
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
 * SELECT
 * ------------------------------------------------------------------------ */

static bool is_window_call(const weir_sql_expr *e)
{
    return e && e->kind == EX_FUNC && weir__str_ieq(e->name, "window");
}

/* The window(...) of the GROUP BY: written there, or the select item it
 * names by alias or ordinal. */
static const weir_sql_expr *find_time_window(const sql_select *s)
{
    for (size_t i = 0; i < s->n_group_by; i++) {
        const weir_sql_expr *g = s->group_by[i];
        if (is_window_call(g))
            return g;
        if (g->kind == EX_LIT && g->lit == LIT_INT && g->text) {
            long n = strtol(g->text, NULL, 10);
            if (n >= 1 && (size_t)n <= s->n_items && is_window_call(s->items[n - 1].e))
                return s->items[n - 1].e;
        }
        for (size_t k = 0; g->kind == EX_COLUMN && g->n_names == 1 && k < s->n_items; k++)
            if (s->items[k].alias && weir__str_ieq(s->items[k].alias, g->names[0]) &&
                is_window_call(s->items[k].e))
                return s->items[k].e;
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

/* The USING columns of the joins of r, outermost join first (a left-deep
 * chain), each once: Spark's `*` over a USING join lists them first, then
 * the other columns of the left side, then the right side's; DuckDB leaves
 * them where the left side has them. Semi and anti joins keep the left
 * side's columns as they are. */
static size_t using_keys(const sql_rel *r, const char **keys, size_t n, size_t cap)
{
    for (; r && r->kind == R_JOIN && r->join != J_SEMI && r->join != J_ANTI;
         r = r->left) {
        for (size_t i = 0; i < r->n_using; i++) {
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen = weir__str_ieq(keys[k], r->using_cols[i]);
            if (!seen && n < cap)
                keys[n++] = r->using_cols[i];
        }
    }
    return n;
}

static bool excepted(const weir_sql_expr *star, const char *name)
{
    for (size_t i = 0; i < star->n; i++) {
        const weir_sql_expr *c = star->list[i];
        if (weir__str_ieq(c->names[c->n_names - 1], name))
            return true;
    }
    return false;
}

static int tx_item(sql_tx *t, weir_buf *out, const sql_item *it)
{
    const weir_sql_expr *e = it->e;
    if (e->kind == EX_STAR) {
        const char *keys[32];
        size_t n_keys =
            e->n_names ? 0 : using_keys(weir__sql_tx_from(t), keys, 0, 32);
        size_t shown = 0;
        for (size_t i = 0; i < n_keys; i++) {
            if (excepted(e, keys[i]))
                continue;
            weir__buf_put_sql_ident(out, keys[i]);
            weir__buf_puts(out, ", ");
            keys[shown++] = keys[i];
        }
        n_keys = shown;
        if (e->n_names) {
            for (size_t i = 0; i < e->n_names; i++) {
                weir__buf_put_sql_ident(out, e->names[i]);
                weir__buf_putc(out, '.');
            }
        }
        weir__buf_putc(out, '*');
        size_t n = e->n;
        /* A qualified name excludes that relation's column only (a
         * DataFrame's drop(df2.c) after a join), as DuckDB reads it. */
        for (size_t i = 0; i < e->n; i++) {
            const weir_sql_expr *c = e->list[i];
            weir__buf_puts(out, i ? ", " : " EXCLUDE (");
            for (size_t k = 0; k < c->n_names; k++) {
                if (k)
                    weir__buf_putc(out, '.');
                weir__buf_put_sql_ident(out, c->names[k]);
            }
        }
        for (size_t i = 0; i < n_keys; i++) {
            weir__buf_puts(out, n++ ? ", " : " EXCLUDE (");
            weir__buf_put_sql_ident(out, keys[i]);
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
    } else if (e->kind == EX_FUNC && !e->over &&
               (weir__str_ieq(e->name, "session_window") ||
                weir__str_ieq(e->name, "window"))) {
        /* Spark names a time window's column after its function */
        weir__buf_printf(out, " AS \"%s\"",
                         weir__str_ieq(e->name, "window") ? "window"
                                                          : "session_window");
    } else if (e->kind == EX_COLUMN && e->n_names == 1 &&
               !(t->time_window && weir__str_ieq(e->names[0], "window")) &&
               !(t->session && weir__str_ieq(e->names[0], "session_window"))) {
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
            weir__sql_tx_pretty(t, &name, e);
        weir__buf_puts(out, " AS ");
        weir__buf_put_sql_ident(out, weir__buf_cstr(&name));
        weir__buf_free(&name);
    }
    return 0;
}

/* Does the current FROM have a column named name (any case)? 1 yes, 0
 * no, -1 when DuckDB cannot be asked. */
static int from_has_column(sql_tx *t, const char *name)
{
    weir_buf q = WEIR_BUF_INIT, types = WEIR_BUF_INIT;
    const char *one = "1";
    if (!weir__sql_tx_types(t, &one, 1, &types)) {
        weir__buf_free(&types);
        return -1;
    }
    weir__buf_clear(&types);
    weir__buf_puts(&q, "COLUMNS(c -> lower(c) = lower(");
    weir__buf_put_sql_string(&q, name);
    weir__buf_puts(&q, "))");
    const char *x = weir__buf_cstr(&q);
    weir_error saved = *t->err;
    bool has = !q.failed && weir__sql_tx_types(t, &x, 1, &types);
    *t->err = saved;
    weir__buf_free(&q);
    weir__buf_free(&types);
    return has;
}

/* withColumns on a join's own level (connect/plan_ops.c): as in Spark,
 * a value replaces every column of its name in place (both sides' when
 * both have it), or is appended when the join has none. Which one needs
 * the join's columns: DuckDB is asked. */
static int tx_join_replace(sql_tx *t, weir_buf *out, const sql_select *s, size_t at)
{
    const weir_sql_expr *star = s->items[at].e;
    weir_buf appended = WEIR_BUF_INIT;
    int rc = 0;
    size_t replaced = 0;
    weir__buf_putc(out, '*');
    for (size_t i = at + 1; !rc && i < s->n_items; i++) {
        const sql_item *it = &s->items[i];
        int has = from_has_column(t, it->alias);
        if (has < 0) {
            rc = weir__sql_tx_error(t, star->pos, star->src,
                                    "withColumn over a join needs the join's columns, "
                                    "which weir cannot read here");
            break;
        }
        weir_buf *b = has ? out : &appended;
        weir__buf_puts(b, has ? (replaced++ ? ", " : " REPLACE (") : ", ");
        rc = weir__sql_tx_expr(t, b, it->e);
        weir__buf_puts(b, " AS ");
        weir__buf_put_sql_ident(b, it->alias);
    }
    if (replaced)
        weir__buf_putc(out, ')');
    weir__buf_puts(out, weir__buf_cstr(&appended));
    weir__buf_free(&appended);
    return rc;
}

/* A star's REPLACE or RENAME form (parse_query.c star_form), its pairs
 * the items after it. REPLACE: the row of the FROM's one relation as a
 * struct, each value set by name (in place when the relation has the
 * column, else appended: struct_update), unnested into columns; the
 * values are read over the relation's columns, as Spark's withColumns
 * reads them. RENAME: DuckDB's own, which ignores a missing column. */
static int tx_star_form(sql_tx *t, weir_buf *out, const sql_select *s, size_t at)
{
    const weir_sql_expr *star = s->items[at].e;
    bool replace = strcmp(star->op, "REPLACE") == 0;
    const sql_rel *from = weir__sql_tx_from(t);
    if (replace && from && from->kind == R_JOIN)
        return tx_join_replace(t, out, s, at);
    if (replace && (!from || !from->alias || from->kind == R_LATERAL_VIEW))
        return weir__sql_tx_error(t, star->pos, star->src,
                                  "* __weir_replace needs one aliased relation");
    if (replace) {
        weir__buf_puts(out, "UNNEST(struct_update(");
        weir__buf_put_sql_ident(out, from->alias);
    } else {
        int rc = tx_item(t, out, &s->items[at]);
        if (rc)
            return rc;
        weir__buf_puts(out, " RENAME (");
    }
    for (size_t i = at + 1; i < s->n_items; i++) {
        const sql_item *it = &s->items[i];
        weir__buf_puts(out, replace || i > at + 1 ? ", " : "");
        if (replace) {
            weir__buf_put_sql_ident(out, it->alias);
            weir__buf_puts(out, " := ");
        }
        if (!replace) {
            weir__buf_put_sql_ident(out, it->e->names[it->e->n_names - 1]);
            weir__buf_puts(out, " AS ");
            weir__buf_put_sql_ident(out, it->alias);
            continue;
        }
        int rc = weir__sql_tx_expr(t, out, it->e);
        if (rc)
            return rc;
    }
    weir__buf_puts(out, replace ? "))" : ")");
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

static int tx_group_by(sql_tx *t, weir_buf *out, const sql_select *s)
{
    int rc = 0;
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
    return rc;
}

static int tx_modifiers(sql_tx *t, weir_buf *out, const weir_sql_query *q);

/* SELECT s, and the ORDER BY and LIMIT of its query q, over the scope of
 * its FROM. */
static int tx_select(sql_tx *t, weir_buf *out, const sql_select *s,
                     const weir_sql_query *q)
{
    const sql_select *saved_sel = t->sel;
    sql_scope *saved_scope = t->scope;
    const weir_sql_expr *saved_tw = t->time_window;
    sql_scope scope;
    weir__sql_scope_init(&scope, s->from, t->depth);
    bool saved_sliding = t->sliding;
    const weir_sql_expr *saved_session = t->session;
    t->sel = s;
    t->scope = s->from ? &scope : NULL;
    t->time_window = find_time_window(s);
    t->sliding = t->time_window && weir__sql_window_slides(t->time_window);
    t->session = s->from ? weir__sql_grouped_session(s) : NULL;
    const weir_sql_expr *row_session =
        s->from && !t->session ? weir__sql_row_call(s, "session_window") : NULL;
    /* Spark drops the rows whose time is NULL from a window() (grouped
     * by, or of each row). */
    const weir_sql_expr *time_window =
        !s->from || t->session ? NULL
        : t->time_window ? t->time_window : weir__sql_row_call(s, "window");
    size_t saved_hidden = t->n_hidden, saved_base = t->hidden_base;
    t->hidden_base = t->n_hidden; /* an outer SELECT's are not this one's */
    int rc = 0;
    if (s->from && t->resolver && t->resolver->tvf_hidden && has_star(s)) {
        /* The FROM first: its table functions tell their hidden columns,
         * which the stars leave out. Its errors are reported where the
         * FROM is written. */
        weir_error saved = *t->err;
        if (weir__sql_scope_text(t))
            t->n_hidden = saved_hidden;
        *t->err = saved;
    }
    weir__buf_puts(out, s->distinct ? "SELECT DISTINCT " : "SELECT ");
    for (size_t i = 0; !rc && i < s->n_items; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        if (s->items[i].e->kind == EX_STAR && s->items[i].e->op) {
            rc = tx_star_form(t, out, s, i); /* its pairs are the rest */
            break;
        }
        rc = tx_item(t, out, &s->items[i]);
    }
    if (!rc && s->from) {
        weir__buf_puts(out, " FROM ");
        rc = weir__sql_scope_text(t); /* made once, probes included */
        if (!rc && t->session) /* the rows with their sessions */
            rc = weir__sql_session_from(t, out, s, &scope.text);
        else if (!rc)
            weir__buf_put(out, scope.text.ptr, scope.text.len);
        /* Sliding windows: each row once per window holding it. */
        if (!rc && t->sliding)
            rc = weir__fn_sliding_windows(t, out, t->time_window);
    }
    bool filtered = row_session || time_window;
    if (!rc && s->where && !t->session) {
        weir__buf_puts(out, filtered ? " WHERE (" : " WHERE ");
        rc = weir__sql_tx_expr(t, out, s->where);
        if (filtered)
            weir__buf_putc(out, ')');
    }
    if (!rc && row_session) { /* Spark drops the rows without a session */
        weir__buf_puts(out, s->where ? " AND " : " WHERE ");
        rc = weir__sql_session_filter(t, out, row_session);
    }
    if (!rc && time_window && time_window->n > 0) {
        weir__buf_puts(out, s->where || row_session ? " AND (" : " WHERE (");
        rc = weir__sql_tx_expr(t, out, time_window->list[0]);
        weir__buf_puts(out, ") IS NOT NULL");
    }
    if (!rc && s->group != GB_NONE)
        rc = tx_group_by(t, out, s);
    if (!rc && s->having) {
        weir__buf_puts(out, " HAVING ");
        rc = weir__sql_tx_expr(t, out, s->having);
    }
    if (!rc && s->qualify) {
        weir__buf_puts(out, " QUALIFY ");
        rc = weir__sql_tx_expr(t, out, s->qualify);
    }
    if (!rc && q) /* ORDER BY may use the select's named windows */
        rc = tx_modifiers(t, out, q);
    t->sel = saved_sel;
    t->scope = saved_scope;
    t->time_window = saved_tw;
    t->sliding = saved_sliding;
    t->session = saved_session;
    t->n_hidden = saved_hidden;
    t->hidden_base = saved_base;
    weir__sql_scope_free(&scope);
    return rc;
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

static int tx_body(sql_tx *t, weir_buf *out, const weir_sql_query *q)
{
    int rc = 0;
    switch (q->kind) {
    case Q_SELECT:
        return tx_select(t, out, q->sel, q);
    case Q_VALUES:
        weir__buf_puts(out, "SELECT * FROM ");
        rc = weir__sql_tx_values_rel(t, out, q, NULL, NULL, 0);
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
            rc = weir__sql_tx_check_setop(t, q, out->ptr + l0, l1 - l0,
                                          out->ptr + r0, r1 - r0);
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
    if (t->resolver && t->resolver->query) {
        int rc = t->resolver->query(t->resolver->payload, q, out, t->err);
        if (rc != WEIR_ENOTFOUND)
            return rc;
    }
    if (++t->depth > 4 * SQL_MAX_DEPTH) {
        t->depth--;
        return weir__sql_tx_error(t, q->pos, q->src, "Query nested too deeply");
    }
    const sql_cte_scope *outer = t->ctes;
    sql_scope *scope = t->scope;
    t->scope = NULL; /* its SELECTs have their own; the rest none */
    int rc = q->n_ctes ? tx_with(t, out, q) : tx_body(t, out, q);
    t->scope = scope;
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
    int rc = weir__sql_tx_set_zone(&t, resolver ? resolver->time_zone : NULL, err);
    if (rc)
        weir__sql_error_at(err, q->src, q->pos);
    else
        rc = weir__sql_tx_query(&t, out, q);
    if (!rc && (weir__buf_failed(out) || weir__arena_failed(&arena)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        weir__buf_truncate(out, start);
    weir__arena_free(&arena);
    return rc;
}

int weir__sql_translate_expr(weir_buf *out, const weir_sql_expr *e,
                             const char *time_zone, weir_error *err)
{
    weir_arena arena = WEIR_ARENA_INIT;
    sql_tx t;
    memset(&t, 0, sizeof(t));
    t.err = err;
    t.arena = &arena;
    t.unqualify = true;
    size_t start = out->len;
    int rc = weir__sql_tx_set_zone(&t, time_zone, err);
    if (rc)
        weir__sql_error_at(err, e->src, e->pos);
    else
        rc = weir__sql_tx_expr(&t, out, e);
    if (!rc && (weir__buf_failed(out) || weir__arena_failed(&arena)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        weir__buf_truncate(out, start);
    weir__arena_free(&arena);
    return rc;
}
