/*
 * Operators on one DataFrame: filter, select, groupBy/agg, sort,
 * limit/offset, distinct and dropDuplicates, withColumn(s), drop,
 * withColumnRenamed, toDF and alias. Each renders its input first, then
 * adds its clause, wrapping the input as a derived table when that clause
 * would come too late in SQL's order (plan_query.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "connect/plan_query.h"
#include "util/str.h"

/* Older clients still send the deprecated rename_columns_map: read it
 * too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

typedef Spark__Connect__Relation Rel;

/* Render child into out, wrapped if needed so that a clause at stage can
 * still be added. */
static int child_at_rendered(plan_ctx *c, plan_query *out, int stage, bool need_star);

static int child_at(plan_ctx *c, const Rel *child, plan_query *out, int stage,
                    bool need_star)
{
    if (weir__plan_rel(c, child, out) < 0)
        return -1;
    return child_at_rendered(c, out, stage, need_star);
}

/* The same for a child already rendered into out. */
static int child_at_rendered(plan_ctx *c, plan_query *out, int stage, bool need_star)
{
    if (out->is_closed || out->stage > stage ||
        (need_star && out->select.len) ||
        (stage < PLAN_ST_LIMIT && (out->has_limit || out->has_offset)))
        return weir__plan_query_wrap(c, out, NULL);
    return 0;
}

static int items(plan_ctx *c, weir_buf *b, Spark__Connect__Expression *const *e,
                 size_t n, const plan_query *x)
{
    c->scope = &x->scope;
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_item(c, b, e[i]) < 0)
            return -1;
    }
    return 0;
}

static int exprs(plan_ctx *c, weir_buf *b, Spark__Connect__Expression *const *e,
                 size_t n, const plan_query *x)
{
    c->scope = &x->scope;
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_expr(c, b, e[i]) < 0)
            return -1;
    }
    return 0;
}

static void and_cond(weir_buf *where, const weir_buf *cond)
{
    if (where->len)
        weir__buf_puts(where, " AND ");
    weir__buf_puts(where, weir__buf_cstr(cond));
}

/* ------------------------------------------------------------------------
 * drop and withColumn on a join's own level (plan_query.h: join_star)
 * ------------------------------------------------------------------------ */

/* x is a join (and maybe a filter), or that with join_star's select. */
static bool over_join(const plan_query *x)
{
    return x->join_sides && !x->is_closed && !x->distinct && !x->has_limit &&
           !x->has_offset && x->group.len == 0 && x->order.len == 0 &&
           (x->select.len == 0 || x->join_star);
}

/* Does the Spark SQL text sql name the column `name` unqualified (not after
 * a '.', not a function)? Quoted strings are skipped. */
static bool names_column(const char *sql, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = sql; *p;) {
        if (*p == '\'' || *p == '"') {
            char q = *p++;
            while (*p && *p != q)
                p += p[0] == '\\' && p[1] ? 2 : 1;
            p += *p ? 1 : 0;
            continue;
        }
        bool quoted = *p == '`';
        const char *w = p + quoted;
        size_t len = 0;
        if (quoted) {
            while (w[len] && w[len] != '`')
                len++;
        } else {
            while (isalnum((unsigned char)w[len]) || w[len] == '_')
                len++;
        }
        if (!len) {
            p++;
            continue;
        }
        const char *after = w + len + quoted;
        bool qualified = p > sql && p[-1] == '.';
        if (!qualified && *after != '(' && len == n && strncasecmp(w, name, n) == 0)
            return true;
        p = after;
    }
    return false;
}

/* Is any of d's values a window function (`.. OVER (..)`)? */
static bool defs_window(const plan_defs *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (strstr(d->sqls[i], " OVER ("))
            return true;
    return false;
}

/* Regenerate x's select from its excepts and defs: with nothing dropped,
 * `* __weir_replace (..)`, each def replacing the join's columns of its
 * name or appended (src/sql's tx_join_replace asks DuckDB which). */
static void join_select(plan_query *x)
{
    weir__buf_clear(&x->select);
    if (x->defs_replace) {
        weir__buf_puts(&x->select, "* __weir_replace (");
        for (size_t i = 0; i < x->defs.n; i++) {
            weir__buf_printf(&x->select, "%s(%s) AS ", i ? ", " : "", x->defs.sqls[i]);
            weir__plan_put_ident(&x->select, x->defs.names[i]);
        }
        weir__buf_putc(&x->select, ')');
        x->join_star = true;
        x->stage = PLAN_ST_SELECT;
        return;
    }
    if (x->excepts.len)
        weir__buf_printf(&x->select, "* EXCEPT (%s)", weir__buf_cstr(&x->excepts));
    else
        weir__buf_putc(&x->select, '*');
    for (size_t i = 0; i < x->defs.n; i++) {
        weir__buf_printf(&x->select, ", (%s) AS ", x->defs.sqls[i]);
        weir__plan_put_ident(&x->select, x->defs.names[i]);
    }
    x->join_star = true;
    x->stage = PLAN_ST_SELECT;
}

static void add_except(plan_query *x, const char *qual, const char *name)
{
    if (x->excepts.len)
        weir__buf_puts(&x->excepts, ", ");
    if (qual)
        weir__buf_printf(&x->excepts, "%s.", qual);
    weir__plan_put_ident(&x->excepts, name);
}

/* One row of NULLs named names (a list of Spark identifiers) crossed with x,
 * so that excepting a name x lacks is no error. */
static void add_dummy(plan_ctx *c, plan_query *x, const weir_buf *cols)
{
    if (!cols->len)
        return;
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(&x->from, " CROSS JOIN (SELECT %s) AS %s", weir__buf_cstr(cols), alias);
}

static ssize_t find_def(const plan_defs *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (weir__str_ieq(d->names[i], name))
            return (ssize_t)i;
    return -1;
}

static void remove_def(plan_defs *d, size_t i)
{
    free(d->names[i]);
    free(d->sqls[i]);
    memmove(d->names + i, d->names + i + 1, (d->n - i - 1) * sizeof *d->names);
    memmove(d->sqls + i, d->sqls + i + 1, (d->n - i - 1) * sizeof *d->sqls);
    d->n--;
}

static int add_def(plan_ctx *c, plan_defs *d, const char *name, const char *sql)
{
    char **nn = realloc(d->names, (d->n + 1) * sizeof *nn);
    if (!nn)
        return weir__plan_oom(c);
    d->names = nn;
    char **ss = realloc(d->sqls, (d->n + 1) * sizeof *ss);
    if (!ss)
        return weir__plan_oom(c);
    d->sqls = ss;
    char *n = strdup(name), *v = strdup(sql);
    if (!n || !v) {
        free(n);
        free(v);
        return weir__plan_oom(c);
    }
    d->names[d->n] = n;
    d->sqls[d->n++] = v;
    return 0;
}

/* drop(name) on a join's level: a defined column goes; otherwise every
 * column of that name (Spark drops them all; a name the join lacks is no
 * error: the dummy row). */
static void join_drop_name(plan_query *x, weir_buf *dummy, const char *name)
{
    ssize_t i = find_def(&x->defs, name);
    if (i >= 0) {
        remove_def(&x->defs, (size_t)i);
        return;
    }
    add_except(x, NULL, name);
    if (dummy->len)
        weir__buf_puts(dummy, ", ");
    weir__buf_puts(dummy, "NULL AS ");
    weir__plan_put_ident(dummy, name);
}

/* The qualifier of a join side a column reference carries, or NULL. */
static const char *side_qual(const plan_query *x, const Spark__Connect__Expression *e)
{
    const Spark__Connect__Expression__UnresolvedAttribute *a = e->unresolved_attribute;
    if (!a->_plan_id_case)
        return NULL;
    for (size_t i = x->scope.len; i-- > 0;)
        if (x->scope.items[i].plan_id == a->plan_id)
            return x->scope.items[i].qual;
    return NULL;
}

/* withColumn(name, value) on a join's level: the value replaces a defined
 * column of that name, or becomes one after the join's columns, all of
 * that name excepted (Spark replaces them all). */
static int join_with_column(plan_ctx *c, plan_query *x, weir_buf *dummy, const char *name,
                            const char *sql)
{
    ssize_t i = find_def(&x->defs, name);
    if (i >= 0) {
        char *v = strdup(sql);
        if (!v)
            return weir__plan_oom(c);
        free(x->defs.sqls[i]);
        x->defs.sqls[i] = v;
        return 0;
    }
    if (!x->excepts.len) { /* join_select's replace form */
        x->defs_replace = true;
        return add_def(c, &x->defs, name, sql);
    }
    add_except(x, NULL, name);
    /* A value that reads the column unqualified proves it exists; a dummy
     * of that name would make the reference ambiguous. */
    if (!names_column(sql, name)) {
        if (dummy->len)
            weir__buf_puts(dummy, ", ");
        weir__buf_puts(dummy, "NULL AS ");
        weir__plan_put_ident(dummy, name);
    }
    return add_def(c, &x->defs, name, sql);
}

/* A select list without a star: it can replace join_star's. */
static bool starless(Spark__Connect__Expression *const *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!e[i] || e[i]->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR ||
            e[i]->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_REGEX ||
            e[i]->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXPRESSION_STRING)
            return false;
    return true;
}

/* Replace x's join_star select by a new select list: the defs stay in
 * reach of the new list's references (c->defs) until the list is rendered
 * (end_join_star). */
static bool take_join_star(plan_query *x, Spark__Connect__Expression *const *e, size_t n)
{
    if (!x->join_star || x->defs.n || !starless(e, n))
        return false;
    weir__buf_clear(&x->select);
    weir__buf_clear(&x->excepts);
    x->join_star = false;
    return true;
}

/* Is name (one part) a column x's join-level select list made (renamed
 * or defined)? Those are not probed on the join, nor is anything once a
 * column was dropped there (a drop of one side's column makes the other's
 * unambiguous). */
static bool made_on_join(const plan_query *x, const char *name)
{
    if (find_def(&x->defs, name) >= 0 || x->excepts.len)
        return true;
    size_t n = strlen(name);
    for (const char *p = weir__buf_cstr(&x->renamed); *p; p++)
        if (p[0] == '\n' && strncasecmp(p + 1, name, n) == 0 && p[n + 1] == '\n')
            return true;
    return false;
}

/* Add a probe `name AS __weir_qN` (weir__plan_query_wrap_sides) for each
 * column e reads by a bare one-part name, not through a DataFrame. */
static void probe_bare(plan_ctx *c, const plan_query *x, const Spark__Connect__Expression *e,
                       weir_buf *probes, unsigned depth)
{
    if (!e || depth > 64)
        return;
    switch (e->expr_type_case) {
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE: {
        const Spark__Connect__Expression__UnresolvedAttribute *a = e->unresolved_attribute;
        if (!a || !a->unparsed_identifier || strchr(a->unparsed_identifier, '.') ||
            strchr(a->unparsed_identifier, '`') || made_on_join(x, a->unparsed_identifier))
            return;
        for (size_t i = 0; a->_plan_id_case && i < x->scope.len; i++)
            if (x->scope.items[i].plan_id == a->plan_id && x->scope.items[i].qual)
                return; /* a side's column */
        weir__buf_printf(probes, "%s", probes->len ? ", " : "");
        weir__plan_put_ident(probes, a->unparsed_identifier);
        weir__buf_printf(probes, " AS __weir_q%u", ++c->next_alias);
        return;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
        probe_bare(c, x, e->alias ? e->alias->expr : NULL, probes, depth + 1);
        return;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
        probe_bare(c, x, e->cast ? e->cast->expr : NULL, probes, depth + 1);
        return;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SORT_ORDER:
        probe_bare(c, x, e->sort_order ? e->sort_order->child : NULL, probes, depth + 1);
        return;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
        for (size_t i = 0; e->unresolved_function && i < e->unresolved_function->n_arguments; i++)
            probe_bare(c, x, e->unresolved_function->arguments[i], probes, depth + 1);
        return;
    default: return;
    }
}

/* The child of a select list (e, n) at the WHERE stage: a join's drop-only
 * select is replaced; a join wrapped for a list without a star keeps its
 * sides apart (weir__plan_query_wrap_sides), its bare names probed. */
static int child_for_list(plan_ctx *c, plan_query *out, Spark__Connect__Expression *const *e,
                          size_t n, bool also_starless)
{
    if (also_starless && take_join_star(out, e, n))
        return 0;
    if (also_starless && starless(e, n) && out->join_sides && !out->is_closed &&
        (out->select.len || out->stage > PLAN_ST_WHERE || out->has_limit || out->has_offset)) {
        /* Only a star form's names are the join's columns: a select list
         * on the join's level makes its own names (`... AS order_ts`),
         * which a later select reads, not the join's. */
        bool star_level = !out->select.len || weir__buf_cstr(&out->select)[0] == '*';
        weir_buf probes = WEIR_BUF_INIT;
        for (size_t i = 0; star_level && i < n; i++)
            probe_bare(c, out, e[i], &probes, 0);
        int rc = weir__buf_failed(&probes)
                     ? weir__plan_oom(c)
                     : weir__plan_query_wrap_sides(c, out, weir__buf_cstr(&probes));
        weir__buf_free(&probes);
        return rc;
    }
    return child_at_rendered(c, out, PLAN_ST_WHERE, true);
}

int weir__plan_filter(plan_ctx *c, const Spark__Connect__Filter *f, plan_query *out)
{
    if (!f || !f->condition)
        return weir__plan_fail(c, PLAN_E_INVALID, "A filter has no condition.");
    if (weir__plan_rel(c, f->input, out) < 0)
        return -1;
    /* After drop or withColumn on a join's level the filter still reads
     * the sides, and withColumn's values by name, unless one is a window
     * (which a WHERE cannot hold: then the join is wrapped as before). */
    bool keep = out->join_star && over_join(out) && !defs_window(&out->defs);
    if (!keep && child_at_rendered(c, out, PLAN_ST_WHERE, true) < 0)
        return -1;
    weir_buf cond = WEIR_BUF_INIT;
    c->scope = &out->scope;
    c->defs = keep ? &out->defs : NULL; /* withColumn's values, by name */
    int rc = weir__plan_expr(c, &cond, f->condition);
    c->defs = NULL;
    if (rc == 0)
        and_cond(&out->where, &cond);
    weir__buf_free(&cond);
    if (!keep)
        out->stage = PLAN_ST_WHERE;
    return rc;
}

int weir__plan_project(plan_ctx *c, const Spark__Connect__Project *p, plan_query *out)
{
    if (!p || p->n_expressions == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A select has no columns.");
    if (!p->input)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "A select without a DataFrame (spark.range/sql first) is "
                               "not supported.");
    if (weir__plan_rel(c, p->input, out) < 0)
        return -1;
    if (child_for_list(c, out, p->expressions, p->n_expressions, true) < 0)
        return -1;
    out->stage = PLAN_ST_SELECT;
    return items(c, &out->select, p->expressions, p->n_expressions, out);
}

static int aggregate_lists(plan_ctx *c, const Spark__Connect__Aggregate *a, plan_query *out);

int weir__plan_aggregate(plan_ctx *c, const Spark__Connect__Aggregate *a, plan_query *out)
{
    if (!a)
        return weir__plan_fail(c, PLAN_E_INVALID, "An aggregation is empty.");
    if (a->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_PIVOT)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "groupBy().pivot() is not supported; aggregate with "
                               "F.when per value instead.");
    if (weir__plan_rel(c, a->input, out) < 0)
        return -1;
    if (child_for_list(c, out, a->grouping_expressions, a->n_grouping_expressions,
                       starless(a->aggregate_expressions, a->n_aggregate_expressions)) < 0)
        return -1;
    return aggregate_lists(c, a, out);
}

static int aggregate_lists(plan_ctx *c, const Spark__Connect__Aggregate *a, plan_query *out)
{
    out->stage = PLAN_ST_GROUP;
    weir_buf *s = &out->select;
    /* groupBy(F.window(..)) names its column `window`, and
     * F.session_window `session_window`, as in Spark. */
    c->scope = &out->scope;
    for (size_t i = 0; i < a->n_grouping_expressions; i++) {
        const Spark__Connect__Expression *g = a->grouping_expressions[i];
        if (i)
            weir__buf_puts(s, ", ");
        if (weir__plan_item(c, s, g) < 0)
            return -1;
        const char *fn =
            g && g->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION &&
                    g->unresolved_function
                ? g->unresolved_function->function_name
                : NULL;
        if (fn && (!strcmp(fn, "window") || !strcmp(fn, "session_window")))
            weir__buf_printf(s, " AS `%s`", fn);
    }
    if (a->n_grouping_expressions && a->n_aggregate_expressions)
        weir__buf_puts(s, ", ");
    if (items(c, s, a->aggregate_expressions, a->n_aggregate_expressions, out) < 0)
        return -1;
    if (s->len == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "An aggregation has no columns.");
    weir_buf *g = &out->group;
    switch (a->group_type) {
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP:
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_CUBE:
        weir__buf_puts(g, a->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP
                              ? "ROLLUP(" : "CUBE(");
        if (exprs(c, g, a->grouping_expressions, a->n_grouping_expressions, out) < 0)
            return -1;
        weir__buf_putc(g, ')');
        return 0;
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPING_SETS:
        weir__buf_puts(g, "GROUPING SETS (");
        for (size_t i = 0; i < a->n_grouping_sets; i++) {
            const Spark__Connect__Aggregate__GroupingSets *gs = a->grouping_sets[i];
            weir__buf_puts(g, i ? ", (" : "(");
            if (gs && exprs(c, g, gs->grouping_set, gs->n_grouping_set, out) < 0)
                return -1;
            weir__buf_putc(g, ')');
        }
        weir__buf_putc(g, ')');
        return 0;
    default:
        return exprs(c, g, a->grouping_expressions, a->n_grouping_expressions, out);
    }
}

int weir__plan_sort(plan_ctx *c, const Spark__Connect__Sort *s, plan_query *out)
{
    if (!s || s->n_order == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A sort has no order.");
    if (child_at(c, s->input, out, PLAN_ST_ORDER, false) < 0)
        return -1;
    weir__buf_clear(&out->order); /* a later sort replaces an earlier one */
    c->scope = &out->scope;
    for (size_t i = 0; i < s->n_order; i++) {
        if (i)
            weir__buf_puts(&out->order, ", ");
        if (weir__plan_sort_order(c, &out->order, s->order[i]) < 0)
            return -1;
    }
    out->stage = PLAN_ST_ORDER;
    return 0;
}

int weir__plan_limit(plan_ctx *c, const Rel *input, int32_t n, bool is_offset, plan_query *out)
{
    if (n < 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A %s must not be negative.",
                               is_offset ? "offset" : "limit");
    if (weir__plan_rel(c, input, out) < 0)
        return -1;
    if (out->is_closed || out->has_limit || (is_offset && out->has_offset))
        if (weir__plan_query_wrap(c, out, NULL) < 0)
            return -1;
    if (is_offset) {
        out->has_offset = true;
        out->offset = n;
    } else {
        out->has_limit = true;
        out->limit = n;
    }
    out->stage = PLAN_ST_LIMIT;
    return 0;
}

/* distinct() / dropDuplicates(): SELECT DISTINCT * FROM (input) AS _pN.
 * The input is always a named derived table, so that on a stream the
 * analysis tells a DataFrame's deduplication of every column (Spark's
 * dropDuplicates, which keeps state) from SQL's SELECT DISTINCT (an
 * aggregation there): docs/streaming.md. */
static int distinct(plan_ctx *c, const Rel *input, plan_query *out)
{
    char alias[32];
    if (weir__plan_rel(c, input, out) < 0)
        return -1;
    /* A batch join's own level (after drop and withColumn too): SELECT
     * DISTINCT * keeps both sides' same-named columns, as Spark names them
     * (a derived table would rename them name_1), and the sides' plan ids
     * keep naming their columns (a later select wraps it with the sides
     * apart when the sides' rows add nothing to what is distinct: nothing
     * dropped or defined; weir__plan_query_wrap_sides). */
    if (over_join(out) && !strstr(weir__buf_cstr(&out->from), "STREAM ")) {
        if (!out->select.len)
            weir__buf_putc(&out->select, '*');
        out->join_star = false;
        out->distinct = true;
        out->stage = PLAN_ST_DISTINCT;
        return 0;
    }
    weir__plan_next_alias(c, alias, sizeof alias);
    if (weir__plan_query_wrap(c, out, alias) < 0)
        return -1;
    out->distinct = true;
    out->stage = PLAN_ST_DISTINCT;
    return 0;
}

/* dropDuplicates(cols): the first row of each key (rows of a key are in no
 * particular order, as in Spark). dropDuplicatesWithinWatermark(cols)
 * differs on a stream only (keys expire with the watermark): it is marked
 * by the window's frame, which does not change row_number(). */
int weir__plan_dedup(plan_ctx *c, const Spark__Connect__Deduplicate *d, plan_query *out)
{
    if (!d)
        return weir__plan_fail(c, PLAN_E_INVALID, "A deduplication is empty.");
    bool within = d->_within_watermark_case && d->within_watermark;
    bool all = (d->_all_columns_as_keys_case && d->all_columns_as_keys) ||
               d->n_column_names == 0;
    if (all && within)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "dropDuplicatesWithinWatermark() without columns "
                               "is not supported: name the key columns.");
    if (all)
        return distinct(c, d->input, out);
    if (weir__plan_rel(c, d->input, out) < 0)
        return -1;
    /* A batch join's own level keeps both sides' same-named columns and
     * the sides' plan ids (as distinct() above). */
    bool on_join = over_join(out) && !out->select.len &&
                   !strstr(weir__buf_cstr(&out->from), "STREAM ");
    if (!on_join && weir__plan_query_wrap(c, out, NULL) < 0)
        return -1;
    weir_buf keys = WEIR_BUF_INIT;
    for (size_t i = 0; i < d->n_column_names; i++) {
        if (i)
            weir__buf_puts(&keys, ", ");
        weir__plan_put_ident(&keys, d->column_names[i]);
    }
    weir__buf_printf(&out->qualify, "row_number() OVER (PARTITION BY %s ORDER BY %s%s) = 1",
                     weir__buf_cstr(&keys), weir__buf_cstr(&keys),
                     within ? " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" : "");
    weir__buf_free(&keys);
    if (on_join) {
        weir__buf_putc(&out->select, '*');
        out->stage = PLAN_ST_DISTINCT;
        return 0;
    }
    weir_buf *t = &out->closed;
    weir__buf_printf(t, "SELECT * FROM %s QUALIFY %s", weir__buf_cstr(&out->from),
                     weir__buf_cstr(&out->qualify));
    weir__buf_clear(&out->qualify);
    out->is_closed = true;
    return 0;
}

/* withWatermark(col, delay): Spark SQL's WATERMARK clause on the input as
 * a FROM item, `(...) WATERMARK col DELAY OF INTERVAL 'delay' AS _pN`
 * (docs/streaming.md). */
int weir__plan_watermark(plan_ctx *c, const Spark__Connect__WithWatermark *w,
                         plan_query *out)
{
    if (!w || !w->event_time || !w->event_time[0] || !w->delay_threshold ||
        !w->delay_threshold[0])
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "withWatermark needs an event-time column and a "
                               "delay.");
    if (weir__plan_rel(c, w->input, out) < 0)
        return -1;
    weir_buf clause = WEIR_BUF_INIT;
    weir__buf_puts(&clause, "WATERMARK ");
    weir__plan_put_ident(&clause, w->event_time);
    weir__buf_puts(&clause, " DELAY OF INTERVAL ");
    weir__plan_put_string(&clause, w->delay_threshold);
    int rc = weir__buf_failed(&clause)
                 ? weir__plan_oom(c)
                 : weir__plan_query_wrap_clause(c, out, weir__buf_cstr(&clause));
    weir__buf_free(&clause);
    return rc;
}

/* `* EXCEPT (names...)` over x crossed with a one-row table that has every
 * name, so that names x lacks are no error (drop). The dummy columns are excluded with the others. */
static int except_over(plan_ctx *c, plan_query *x, const weir_buf *names_sql,
                       const weir_buf *dummy_cols)
{
    if (weir__plan_query_wrap(c, x, NULL) < 0)
        return -1;
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(&x->from, " CROSS JOIN (SELECT %s) AS %s", weir__buf_cstr(dummy_cols),
                     alias);
    weir__buf_printf(&x->select, "* EXCEPT (%s)", weir__buf_cstr(names_sql));
    x->bare_table = false;
    x->is_join = true;
    x->stage = PLAN_ST_SELECT;
    free(x->qual);
    x->qual = NULL;
    return 0;
}

static void name_lists(weir_buf *names, weir_buf *dummy, const char *name)
{
    if (names->len) {
        weir__buf_puts(names, ", ");
        weir__buf_puts(dummy, ", ");
    }
    weir__plan_put_ident(names, name);
    weir__buf_puts(dummy, "NULL AS ");
    weir__plan_put_ident(dummy, name);
}

/* withColumns on a join's level: each value rendered over the join's sides
 * (and the columns defined before it), then join_with_column. */
static int join_with_columns(plan_ctx *c, const Spark__Connect__WithColumns *w,
                             plan_query *out)
{
    weir_buf dummy = WEIR_BUF_INIT, v = WEIR_BUF_INIT;
    int rc = 0;
    c->scope = &out->scope;
    for (size_t i = 0; i < w->n_aliases && rc == 0; i++) {
        const Spark__Connect__Expression__Alias *a = w->aliases[i];
        if (!a || !a->expr || a->n_name != 1 || !a->name[0]) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "withColumns needs one name per column.");
            break;
        }
        weir__buf_clear(&v);
        c->defs = &out->defs;
        rc = weir__plan_expr(c, &v, a->expr);
        c->defs = NULL;
        if (rc == 0 && weir__buf_failed(&v))
            rc = weir__plan_oom(c);
        if (rc == 0)
            rc = join_with_column(c, out, &dummy, a->name[0], weir__buf_cstr(&v));
    }
    if (rc == 0) {
        add_dummy(c, out, &dummy);
        join_select(out);
    }
    weir__buf_free(&dummy);
    weir__buf_free(&v);
    return rc;
}

/* Make out one aliased FROM item (a table or a derived table) for a star
 * form of weir's SQL (withColumns, withColumnsRenamed). */
static int wrap_aliased(plan_ctx *c, plan_query *out)
{
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    return weir__plan_query_wrap(c, out, alias);
}

/* The pairs of a star form, `v AS name` (values rendered in out's scope)
 * or `old AS new`, as `* __weir_replace (...)` / `* __weir_rename (...)`:
 * each column keeps its position, as in Spark (src/sql's star_form). */
static int with_columns_list(plan_ctx *c, const Spark__Connect__WithColumns *w,
                             plan_query *out)
{
    weir__buf_puts(&out->select, "* __weir_replace (");
    c->scope = &out->scope;
    for (size_t i = 0; i < w->n_aliases; i++) {
        const Spark__Connect__Expression__Alias *a = w->aliases[i];
        if (!a || !a->expr || a->n_name != 1 || !a->name[0])
            return weir__plan_fail(c, PLAN_E_INVALID, "withColumns needs one name per column.");
        if (i)
            weir__buf_puts(&out->select, ", ");
        if (weir__plan_expr(c, &out->select, a->expr) < 0)
            return -1;
        weir__buf_puts(&out->select, " AS ");
        weir__plan_put_ident(&out->select, a->name[0]);
    }
    weir__buf_putc(&out->select, ')');
    return 0;
}

/* withColumn(s): each value replaces the column of its name in place, or
 * is appended when there is none (Spark's withColumns). */
int weir__plan_with_columns(plan_ctx *c, const Spark__Connect__WithColumns *w, plan_query *out)
{
    if (!w || w->n_aliases == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "withColumns has no columns.");
    if (weir__plan_rel(c, w->input, out) < 0)
        return -1;
    if (over_join(out))
        return join_with_columns(c, w, out);
    if (wrap_aliased(c, out) < 0 || with_columns_list(c, w, out) < 0)
        return -1;
    out->stage = PLAN_ST_SELECT;
    return 0;
}

/* A drop() column's last name part, allocated in *last (the caller frees
 * it); only column names are taken. */
static int drop_column(plan_ctx *c, const Spark__Connect__Expression *e, char **last)
{
    *last = NULL;
    if (!e || e->expr_type_case != SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE ||
        !e->unresolved_attribute || !e->unresolved_attribute->unparsed_identifier)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED, "drop() takes column names only.");
    const char *id = e->unresolved_attribute->unparsed_identifier;
    *last = malloc(strlen(id) + 1);
    if (!*last)
        return weir__plan_oom(c);
    if (weir__plan_last_part(id, *last, NULL) < 0)
        return weir__plan_fail(c, PLAN_E_SYNTAX, "Invalid column name '%.200s'.", id);
    return 0;
}

/* drop on a join's level: df2.c (a side's plan id) drops that side's c
 * only; names drop every column so named, as in Spark. */
static int join_drop(plan_ctx *c, const Spark__Connect__Drop *d, plan_query *out)
{
    weir_buf dummy = WEIR_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < d->n_column_names; i++)
        if (d->column_names[i])
            join_drop_name(out, &dummy, d->column_names[i]);
    for (size_t i = 0; i < d->n_columns && rc == 0; i++) {
        const Spark__Connect__Expression *e = d->columns[i];
        char *last = NULL;
        rc = drop_column(c, e, &last);
        if (rc == 0) {
            const char *qual = side_qual(out, e);
            if (qual)
                add_except(out, qual, last);
            else
                join_drop_name(out, &dummy, last);
        }
        free(last);
    }
    if (rc == 0) {
        add_dummy(c, out, &dummy);
        join_select(out);
    }
    weir__buf_free(&dummy);
    return rc;
}

int weir__plan_drop(plan_ctx *c, const Spark__Connect__Drop *d, plan_query *out)
{
    if (!d)
        return weir__plan_fail(c, PLAN_E_INVALID, "A drop is empty.");
    if (weir__plan_rel(c, d->input, out) < 0)
        return -1;
    if (over_join(out) && !out->defs_replace)
        return join_drop(c, d, out);
    weir_buf names = WEIR_BUF_INIT, dummy = WEIR_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < d->n_column_names; i++)
        if (d->column_names[i])
            name_lists(&names, &dummy, d->column_names[i]);
    for (size_t i = 0; i < d->n_columns && rc == 0; i++) {
        char *last = NULL;
        rc = drop_column(c, d->columns[i], &last);
        if (rc == 0)
            name_lists(&names, &dummy, last);
        free(last);
    }
    if (rc == 0 && names.len)
        rc = except_over(c, out, &names, &dummy);
    weir__buf_free(&names);
    weir__buf_free(&dummy);
    return rc;
}

/* withColumnsRenamed: `* __weir_rename (old AS new, ...)`, in place; a
 * name the DataFrame lacks is ignored, as in Spark. */
int weir__plan_rename(plan_ctx *c, const Spark__Connect__WithColumnsRenamed *w, plan_query *out)
{
    if (!w)
        return weir__plan_fail(c, PLAN_E_INVALID, "A rename is empty.");
    if (weir__plan_rel(c, w->input, out) < 0)
        return -1;
    /* On a join's own level (nothing selected yet) the rename keeps both
     * sides' same-named columns and the sides' plan ids; a later select
     * list reads the sides apart (weir__plan_query_wrap_sides). */
    bool on_join = over_join(out) && !out->select.len;
    if (!on_join && wrap_aliased(c, out) < 0)
        return -1;
    size_t n = w->n_renames ? w->n_renames : w->n_rename_columns_map;
    for (size_t i = 0; i < n; i++) {
        const char *from, *to;
        if (w->n_renames) {
            from = w->renames[i] ? w->renames[i]->col_name : NULL;
            to = w->renames[i] ? w->renames[i]->new_col_name : NULL;
        } else {
            from = w->rename_columns_map[i]->key;
            to = w->rename_columns_map[i]->value;
        }
        if (!from || !to || !*from || !*to)
            return weir__plan_fail(c, PLAN_E_INVALID, "A rename has no column name.");
        weir__buf_puts(&out->select, i ? ", " : "* __weir_rename (");
        weir__plan_put_ident(&out->select, from);
        weir__buf_puts(&out->select, " AS ");
        weir__plan_put_ident(&out->select, to);
        if (on_join)
            weir__buf_printf(&out->renamed, "%s%s\n", out->renamed.len ? "" : "\n", to);
    }
    if (n)
        weir__buf_putc(&out->select, ')');
    out->stage = PLAN_ST_SELECT;
    return 0;
}

int weir__plan_to_df(plan_ctx *c, const Spark__Connect__ToDF *t, plan_query *out)
{
    if (!t || t->n_column_names == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "toDF has no column names.");
    if (weir__plan_rel(c, t->input, out) < 0)
        return -1;
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    if (weir__plan_query_wrap(c, out, alias) < 0)
        return -1;
    weir__buf_putc(&out->from, '(');
    for (size_t i = 0; i < t->n_column_names; i++) {
        if (i)
            weir__buf_puts(&out->from, ", ");
        weir__plan_put_ident(&out->from, t->column_names[i]);
    }
    weir__buf_putc(&out->from, ')');
    return 0;
}

int weir__plan_alias(plan_ctx *c, const Spark__Connect__SubqueryAlias *s, plan_query *out)
{
    if (!s || !s->alias || !*s->alias)
        return weir__plan_fail(c, PLAN_E_INVALID, "alias() has no name.");
    if (weir__plan_rel(c, s->input, out) < 0)
        return -1;
    weir_buf a = WEIR_BUF_INIT;
    weir__plan_put_ident(&a, s->alias);
    int rc = weir__buf_failed(&a) ? weir__plan_oom(c)
                                   : weir__plan_query_wrap(c, out, weir__buf_cstr(&a));
    weir__buf_free(&a);
    return rc;
}
