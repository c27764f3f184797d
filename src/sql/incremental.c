/*
 * Shape analysis for incremental refresh of materialized views: can a
 * query's result be brought up to date from the rows appended to its
 * inputs alone (docs/engine.md, "Incremental refresh")? Two shapes are
 * maintainable:
 *
 *   - append: projections and filters over one relation (a table, a
 *     subquery of this shape, or an inner join of such relations; a left
 *     or right join whose outer side does not change, a left semi or anti
 *     join whose right side does not change), and UNION ALL of
 *     such queries. Each input row (each combination of joined rows)
 *     yields its output rows on its own, so the rows of the appended
 *     input rows are the rows to append.
 *   - aggregate: GROUP BY keys (or SELECT DISTINCT) with sum, count, min,
 *     max and avg, each a whole output column, over such a relation. The
 *     query over the appended rows gives partial results per group, which
 *     merge into the stored row of the group by key (an avg through its
 *     sum and count, which the view's refresh keeps beside it: see
 *     weir__sql_incr_state_query).
 *
 * Anything else, and anything that is not a function of the input rows
 * alone (non-deterministic or time-dependent functions, subqueries that
 * read other tables, window functions, ORDER BY / LIMIT), is refused with
 * the reason and where it is.
 */
#include "internal.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

typedef struct incr {
    weir_sql_incr *out;
    weir_arena *arena;
    size_t cap_fixed;
} incr;

/* Refuse with a reason (the first one found wins). */
static bool refuse(incr *s, weir_sql_pos pos, const char *fmt, ...)
    WEIR_PRINTF(3, 4);
static bool refuse(incr *s, weir_sql_pos pos, const char *fmt, ...)
{
    if (s->out->kind != WEIR_SQL_INCR_NONE || s->out->reason[0])
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->out->reason, sizeof(s->out->reason), fmt, ap);
    va_end(ap);
    s->out->pos = pos;
    return false;
}

/* Functions whose value is not a function of their arguments: a
 * recomputation would give other values than the rows kept. */
static const char *const VOLATILE[] = {
    "rand", "random", "randn", "randstr", "uniform", "uuid", "shuffle",
    "now", "current_timestamp", "current_date", "curdate", "current_time",
    "localtimestamp", "unix_timestamp", "monotonically_increasing_id",
    "spark_partition_id", "input_file_name", "input_file_block_start",
    "input_file_block_length", "reflect", "java_method", "try_reflect",
    "current_user", "user", "session_user", NULL
};

static bool is_volatile(const char *name)
{
    for (size_t i = 0; VOLATILE[i]; i++)
        if (weir__str_ieq(VOLATILE[i], name))
            return true;
    return false;
}

static bool aggregate_call(const weir_sql_expr *e)
{
    return e && e->kind == EX_FUNC && !e->over && e->name &&
           weir__sql_is_aggregate(e->name);
}

/* A row-level expression: deterministic, no subquery, no window; with
 * allow_agg, aggregate calls are counted in *aggs (their arguments are
 * row-level). */
static bool row_expr(incr *s, const weir_sql_expr *e, bool allow_agg,
                     size_t *aggs, int depth)
{
    if (!e)
        return true;
    if (depth > 4 * SQL_MAX_DEPTH)
        return refuse(s, e->pos, "the expression nests too deeply");
    switch (e->kind) {
    case EX_EXISTS:
    case EX_SUBQUERY:
        return refuse(s, e->pos, "a subquery (its result may change for "
                                 "rows already refreshed)");
    case EX_IN:
        if (e->query)
            return refuse(s, e->pos, "a subquery (its result may change "
                                     "for rows already refreshed)");
        break;
    case EX_FUNC:
        if (e->over)
            return refuse(s, e->pos, "the window function %s()", e->name);
        if (e->name && is_volatile(e->name))
            return refuse(s, e->pos, "the non-deterministic function %s()",
                          e->name);
        if (aggregate_call(e)) {
            if (!allow_agg)
                return refuse(s, e->pos, "the aggregate %s() in this "
                                         "position", e->name);
            (*aggs)++;
            allow_agg = false; /* nested aggregates are refused */
        }
        break;
    case EX_COLUMN:
        /* CURRENT_DATE and friends parse as functions; a bare name that
         * Spark would read as one is refused too. */
        if (e->n_names == 1 && is_volatile(e->names[0]))
            return refuse(s, e->pos, "the non-deterministic function %s",
                          e->names[0]);
        return true;
    default:
        break;
    }
    if (e->within || (e->filter && !row_expr(s, e->filter, false, aggs,
                                            depth + 1)))
        return e->within ? refuse(s, e->pos, "WITHIN GROUP") : false;
    if (!row_expr(s, e->a, allow_agg, aggs, depth + 1) ||
        !row_expr(s, e->b, allow_agg, aggs, depth + 1) ||
        !row_expr(s, e->c, allow_agg, aggs, depth + 1))
        return false;
    for (size_t i = 0; i < e->n; i++)
        if (!row_expr(s, e->list[i], allow_agg, aggs, depth + 1))
            return false;
    return true;
}

static bool append_query(incr *s, const weir_sql_query *q, int depth);
static bool from_rel(incr *s, const sql_rel *r, int depth);

/* The table references of r (its subqueries' too) may not change. */
static bool fix_tables(incr *s, const sql_rel *r, const weir_sql_query *q,
                       int depth)
{
    if (depth > SQL_MAX_DEPTH)
        return refuse(s, r ? r->pos : q->pos, "the query nests too deeply");
    if (q)
        return q->kind == Q_SETOP
                   ? fix_tables(s, NULL, q->left, depth + 1) &&
                         fix_tables(s, NULL, q->right, depth + 1)
                   : fix_tables(s, q->sel->from, NULL, depth + 1);
    if (!r)
        return true;
    switch (r->kind) {
    case R_TABLE: {
        const void **v = weir__sql_grow(s->arena, (void *)s->out->fixed, &s->cap_fixed,
                                        s->out->n_fixed, sizeof(*v));
        if (!v)
            return refuse(s, r->pos, "out of memory");
        v[s->out->n_fixed++] = r;
        s->out->fixed = v;
        return true;
    }
    case R_SUBQUERY:
        return fix_tables(s, NULL, r->query, depth + 1);
    case R_JOIN:
        return fix_tables(s, r->left, NULL, depth + 1) &&
               fix_tables(s, r->right, NULL, depth + 1);
    default:
        return true;
    }
}

/* Joins whose result changes only by the combinations with new rows:
 * inner and cross joins; left and right joins, with their outer side
 * fixed (new rows there could match rows that were NULL-extended); left
 * semi and anti joins, with their right side fixed (each left row is kept
 * or not by the rows there). */
static bool join_rel(incr *s, const sql_rel *r, int depth)
{
    if (r->natural)
        return refuse(s, r->pos, "a NATURAL join");
    size_t none = 0;
    if (!row_expr(s, r->on, false, &none, 0))
        return false;
    switch (r->join) {
    case J_INNER:
    case J_CROSS:
    case J_COMMA:
        break;
    case J_LEFT:
        if (!fix_tables(s, r->right, NULL, depth + 1))
            return false;
        break;
    case J_RIGHT:
        if (!fix_tables(s, r->left, NULL, depth + 1))
            return false;
        break;
    case J_SEMI:
    case J_ANTI:
        if (!fix_tables(s, r->right, NULL, depth + 1))
            return false;
        break;
    default:
        return refuse(s, r->pos, "a FULL join");
    }
    s->out->join = true;
    return from_rel(s, r->left, depth + 1) && from_rel(s, r->right, depth + 1);
}

/* The FROM of a maintainable SELECT: one table, or a subquery of the
 * append shape. */
static bool from_rel(incr *s, const sql_rel *r, int depth)
{
    if (!r)
        return refuse(s, (weir_sql_pos){ 0, 0, 0 },
                      "a SELECT without FROM");
    switch (r->kind) {
    case R_TABLE:
        return true;
    case R_SUBQUERY:
        if (r->lateral)
            return refuse(s, r->pos, "a LATERAL subquery");
        return append_query(s, r->query, depth + 1);
    case R_JOIN:
        return join_rel(s, r, depth);
    case R_LATERAL_VIEW:
        return refuse(s, r->pos, "LATERAL VIEW");
    default:
        return refuse(s, r->pos, "a table-valued function");
    }
}

/* The clauses no maintainable query has, and its FROM. */
static bool plain_query(incr *s, const weir_sql_query *q, int depth)
{
    if (depth > SQL_MAX_DEPTH)
        return refuse(s, q->pos, "the query nests too deeply");
    if (q->n_ctes)
        return refuse(s, q->pos, "WITH (common table expressions)");
    if (q->n_order || q->limit || q->offset)
        return refuse(s, q->pos, q->n_order ? "ORDER BY" : "LIMIT / OFFSET");
    if (q->n_distribute)
        return refuse(s, q->pos, "DISTRIBUTE BY / CLUSTER BY");
    if (q->kind == Q_VALUES)
        return refuse(s, q->pos, "VALUES");
    if (q->kind == Q_SETOP)
        return true;
    const sql_select *sel = q->sel;
    if (sel->qualify || sel->n_windows)
        return refuse(s, sel->pos, "a window (QUALIFY / WINDOW)");
    if (!from_rel(s, sel->from, depth))
        return false;
    size_t none = 0;
    return row_expr(s, sel->where, false, &none, 0);
}

static bool is_aggregating(const sql_select *sel)
{
    if (sel->group != GB_NONE || sel->having || sel->distinct)
        return true;
    for (size_t i = 0; i < sel->n_items; i++) {
        size_t n = 0;
        incr probe = { &(weir_sql_incr){ 0 }, NULL, 0 };
        row_expr(&probe, sel->items[i].e, true, &n, 0);
        if (n)
            return true;
    }
    return false;
}

/* Projections and filters (UNION ALL of them). */
static bool append_query(incr *s, const weir_sql_query *q, int depth)
{
    if (!plain_query(s, q, depth))
        return false;
    if (q->kind == Q_SETOP) {
        if (!weir__str_ieq(q->setop, "UNION") || !q->all || q->by_name)
            return refuse(s, q->pos, "%s (only UNION ALL is maintained)",
                          q->all ? "UNION ALL BY NAME" : q->setop);
        return append_query(s, q->left, depth + 1) &&
               append_query(s, q->right, depth + 1);
    }
    const sql_select *sel = q->sel;
    if (is_aggregating(sel))
        return refuse(s, sel->pos, "an aggregation inside the query");
    for (size_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *e = sel->items[i].e;
        size_t none = 0;
        if (e->kind == EX_FUNC && e->name && weir__sql_is_generator(e->name))
            return refuse(s, e->pos, "the generator %s()", e->name);
        if (!row_expr(s, e, false, &none, 0))
            return false;
    }
    return true;
}

/* The same expression text (blanks and case aside)? */
static bool same_text(const weir_sql_expr *a, const weir_sql_expr *b)
{
    if (!a->src || !b->src || !a->src->text || !b->src->text)
        return false;
    const char *p = a->src->text + a->pos.offset, *pe = a->src->text + a->end;
    const char *q = b->src->text + b->pos.offset, *qe = b->src->text + b->end;
    for (;;) {
        while (p < pe && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        while (q < qe && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
            q++;
        if (p == pe || q == qe)
            return p == pe && q == qe;
        char x = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
        char y = *q >= 'A' && *q <= 'Z' ? (char)(*q + 32) : *q;
        if (x != y)
            return false;
        p++;
        q++;
    }
}

/* Item i's merge rule: a bare sum/count/min/max/avg call, or 0. */
static weir_sql_incr_col merge_of(const weir_sql_expr *e)
{
    if (!aggregate_call(e) || e->ignore_nulls)
        return 0;
    if (e->distinct && !weir__str_ieq(e->name, "count"))
        return 0;
    if (weir__str_ieq(e->name, "count") && e->distinct)
        return e->n == 1 ? WEIR_SQL_INCR_COUNT_DISTINCT : 0;
    if (weir__str_ieq(e->name, "count"))
        return WEIR_SQL_INCR_COUNT;
    if (e->n != 1)
        return 0;
    if (weir__str_ieq(e->name, "sum"))
        return WEIR_SQL_INCR_SUM;
    if (weir__str_ieq(e->name, "min"))
        return WEIR_SQL_INCR_MIN;
    if (weir__str_ieq(e->name, "max"))
        return WEIR_SQL_INCR_MAX;
    if (weir__str_ieq(e->name, "avg") || weir__str_ieq(e->name, "mean"))
        return WEIR_SQL_INCR_AVG;
    return 0;
}

/* Which select item a GROUP BY expression names: an ordinal, an item's
 * alias, or the same expression; -1 when none. */
static long group_item(const sql_select *sel, const weir_sql_expr *g)
{
    if (g->kind == EX_LIT && g->lit == LIT_INT && g->text) {
        long n = strtol(g->text, NULL, 10);
        return n >= 1 && (size_t)n <= sel->n_items ? n - 1 : -1;
    }
    for (size_t i = 0; i < sel->n_items; i++)
        if (same_text(sel->items[i].e, g))
            return (long)i;
    if (g->kind == EX_COLUMN && g->n_names == 1)
        for (size_t i = 0; i < sel->n_items; i++)
            if (sel->items[i].alias &&
                weir__str_ieq(sel->items[i].alias, g->names[0]))
                return (long)i;
    return -1;
}

static bool aggregate_query(incr *s, const weir_sql_query *q)
{
    const sql_select *sel = q->sel;
    if (sel->group == GB_ROLLUP || sel->group == GB_CUBE ||
        sel->group == GB_SETS)
        return refuse(s, sel->pos, "ROLLUP / CUBE / GROUPING SETS");
    if (sel->having)
        return refuse(s, sel->having->pos, "HAVING (a group's rows may "
                                           "start or stop passing it)");
    if (sel->distinct && sel->group != GB_NONE)
        return refuse(s, sel->pos, "SELECT DISTINCT with GROUP BY");
    weir_sql_incr_col *cols =
        weir__arena_array(s->arena, sel->n_items + 1, sizeof(*cols));
    if (!cols)
        return refuse(s, sel->pos, "out of memory");
    for (size_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *e = sel->items[i].e;
        if (e->kind == EX_STAR)
            return refuse(s, e->pos, "* in an aggregation");
        size_t aggs = 0;
        if (!row_expr(s, e, true, &aggs, 0))
            return false;
        if (!aggs) {
            cols[i] = WEIR_SQL_INCR_KEY;
            continue;
        }
        if (sel->distinct)
            return refuse(s, e->pos, "SELECT DISTINCT with aggregates");
        cols[i] = merge_of(e);
        if (!cols[i])
            return refuse(s, e->pos,
                          aggregate_call(e)
                              ? "the aggregate %s() (only sum, count, min, "
                                "max, avg and count(DISTINCT x) are "
                                "maintained)"
                              : "an aggregate inside an expression%s",
                          aggregate_call(e) ? e->name : "");
    }
    /* Every key must be an output column and every key column a key. */
    bool *named = weir__arena_array(s->arena, sel->n_items + 1, sizeof(bool));
    if (!named)
        return refuse(s, sel->pos, "out of memory");
    for (size_t k = 0; sel->group == GB_EXPRS && k < sel->n_group_by; k++) {
        long i = group_item(sel, sel->group_by[k]);
        if (i < 0 || cols[i] != WEIR_SQL_INCR_KEY)
            return refuse(s, sel->group_by[k]->pos,
                          "a GROUP BY expression that is not a column of "
                          "the result");
        size_t none = 0;
        if (!row_expr(s, sel->group_by[k], false, &none, 0))
            return false;
        named[i] = true;
    }
    for (size_t i = 0; sel->group == GB_EXPRS && i < sel->n_items; i++)
        if (cols[i] == WEIR_SQL_INCR_KEY && !named[i])
            return refuse(s, sel->items[i].e->pos,
                          "a column that is neither a GROUP BY key nor an "
                          "aggregate");
    s->out->kind = WEIR_SQL_INCR_AGGREGATE;
    s->out->cols = cols;
    s->out->n_cols = sel->n_items;
    return true;
}

int weir__sql_query_incremental(weir_sql_incr *out, weir_arena *arena,
                                const weir_sql_query *q)
{
    memset(out, 0, sizeof(*out));
    incr s = { out, arena, 0 };
    if (!q)
        return refuse(&s, (weir_sql_pos){ 0, 0, 0 }, "no query"), 0;
    if (q->kind == Q_SELECT && is_aggregating(q->sel)) {
        if (plain_query(&s, q, 0))
            aggregate_query(&s, q);
    } else if (append_query(&s, q, 0)) {
        out->kind = WEIR_SQL_INCR_APPEND;
    }
    if (out->kind == WEIR_SQL_INCR_NONE && !strcmp(out->reason, "out of memory"))
        return WEIR_ENOMEM;
    return 0;
}

/* A copy of aggregate call e named name (its argument, DISTINCT and FILTER
 * kept). */
static weir_sql_expr *renamed_call(weir_arena *arena, const weir_sql_expr *e,
                                   const char *name)
{
    weir_sql_expr *c = weir__arena_alloc(arena, sizeof(*c));
    if (c) {
        *c = *e;
        c->name = name;
    }
    return c;
}

/* A copy of SELECT q with room for n_items items (none set), sharing
 * the rest of q; NULL when out of memory. */
static weir_sql_query *copy_select(weir_arena *arena, const weir_sql_query *q,
                                   size_t n_items)
{
    weir_sql_query *c = weir__arena_alloc(arena, sizeof(*c));
    sql_select *sel = weir__arena_alloc(arena, sizeof(*sel));
    sql_item *items = weir__arena_array(arena, n_items, sizeof(*items));
    if (!c || !sel || !items)
        return NULL;
    *c = *q;
    *sel = *q->sel;
    c->sel = sel;
    sel->items = items;
    return c;
}

int weir__sql_incr_state_query(const weir_sql_query **out, weir_arena *arena,
                               const weir_sql_query *q,
                               const weir_sql_incr *shape)
{
    *out = q;
    assert(q->kind == Q_SELECT && shape->n_cols == q->sel->n_items);
    size_t n_avg = 0;
    for (size_t i = 0; i < shape->n_cols; i++)
        n_avg += shape->cols[i] == WEIR_SQL_INCR_AVG;
    if (!n_avg)
        return 0;
    weir_sql_query *c = copy_select(arena, q, shape->n_cols + n_avg);
    if (!c)
        return WEIR_ENOMEM;
    sql_item *items = c->sel->items;
    size_t n = shape->n_cols;
    for (size_t i = 0; i < shape->n_cols; i++) {
        items[i] = q->sel->items[i];
        if (shape->cols[i] != WEIR_SQL_INCR_AVG)
            continue;
        sql_item count = items[i];
        items[i].e = renamed_call(arena, q->sel->items[i].e, "sum");
        items[i].alias = weir__arena_printf(arena, "__weir_sum_%zu", i);
        count.e = renamed_call(arena, q->sel->items[i].e, "count");
        count.alias = weir__arena_printf(arena, "__weir_count_%zu", i);
        if (!items[i].e || !items[i].alias || !count.e || !count.alias)
            return WEIR_ENOMEM;
        items[n++] = count;
    }
    c->sel->n_items = n;
    *out = c;
    return 0;
}

int weir__sql_incr_distinct_query(const weir_sql_query **out,
                                  weir_arena *arena, const weir_sql_query *q,
                                  const weir_sql_incr *shape, size_t col)
{
    *out = NULL;
    assert(q->kind == Q_SELECT && shape->n_cols == q->sel->n_items &&
           shape->cols[col] == WEIR_SQL_INCR_COUNT_DISTINCT);
    const weir_sql_expr *call = q->sel->items[col].e;
    weir_sql_query *c = copy_select(arena, q, shape->n_cols + 2);
    if (!c)
        return WEIR_ENOMEM;
    sql_select *sel = c->sel;
    sql_item *items = sel->items;
    sel->distinct = false;
    sel->group = GB_NONE;
    sel->group_by = NULL;
    sel->n_group_by = 0;
    size_t n = 0;
    for (size_t i = 0; i < shape->n_cols; i++)
        if (shape->cols[i] == WEIR_SQL_INCR_KEY)
            items[n++] = q->sel->items[i];
    sql_item value = q->sel->items[col];
    value.e = call->list[0];
    value.alias = "__weir_value";
    items[n++] = value;
    if (call->filter) {
        sql_item keep = value;
        keep.e = call->filter;
        keep.alias = "__weir_keep";
        items[n++] = keep;
    }
    sel->n_items = n;
    *out = c;
    return 0;
}
