/*
 * The operators of a streaming query that Structured Streaming treats
 * apart (docs/streaming.md): those that keep state across micro-batches
 * (aggregations, SELECT DISTINCT, deduplication, joins of two streams,
 * LIMIT) and those Spark refuses on a stream at all (sorting, window
 * functions, OFFSET, INTERSECT, outer joins with the stream on the
 * preserved side of a static relation, ...). The analysis follows which
 * relations are streams (STREAM reads, the views they name, CTEs and
 * subqueries over them) and which columns carry a watermark (WATERMARK
 * clauses, passed through projections and time windows), and lists every
 * such operator with where it is written; the graph decides what to make
 * of each (graph/validate.c).
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "util/vec.h"

/* A column that carries a watermark, in a list (arena). */
typedef struct wm_name {
    const char *name;
    const struct wm_name *next;
} wm_name;

/* What a relation or query yields: a stream or not, and its columns that
 * carry a watermark. */
typedef struct facts {
    bool streaming;
    const wm_name *wm;
} facts;

/* A CTE in scope, with the facts of its query. */
typedef struct cte_frame {
    const char *name;
    facts f;
    const struct cte_frame *up;
} cte_frame;

typedef struct an {
    WEIR_VEC(weir_sql_sop) ops;
    weir_arena *arena;
    const weir_sql_stream_resolver *res;
    const void *ctx;            /* the resolver's context of the query */
    const weir_sql_source *src; /* the text being analysed */
    int depth;
    int rc;
} an;

static void add(an *a, weir_sql_sop_kind kind, weir_sql_pos pos,
                const char *fmt, ...) WEIR_PRINTF(4, 5);
static void add(an *a, weir_sql_sop_kind kind, weir_sql_pos pos,
                const char *fmt, ...)
{
    if (a->rc)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    weir_sql_sop op;
    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.pos = pos;
    op.src = a->src;
    op.what = weir__arena_strdup(a->arena, text);
    if (!op.what || WEIR_VEC_PUSH(&a->ops, op))
        a->rc = WEIR_ENOMEM;
}

/* The last operator added, for its details. */
static weir_sql_sop *last(an *a)
{
    return a->rc || !a->ops.len ? NULL : &a->ops.items[a->ops.len - 1];
}

/* ---- watermarked columns ------------------------------------------------ */

static bool wm_has(const wm_name *l, const char *name)
{
    for (; l; l = l->next)
        if (weir__str_ieq(l->name, name))
            return true;
    return false;
}

static const wm_name *wm_add(an *a, const wm_name *l, const char *name)
{
    if (!name || wm_has(l, name))
        return l;
    wm_name *n = weir__arena_alloc(a->arena, sizeof(*n));
    if (!n) {
        a->rc = WEIR_ENOMEM;
        return l;
    }
    n->name = name;
    n->next = l;
    return n;
}

static const wm_name *wm_union(an *a, const wm_name *x, const wm_name *y)
{
    for (; y; y = y->next)
        x = wm_add(a, x, y->name);
    return x;
}

static bool is_time_window(const weir_sql_expr *e)
{
    return e && e->kind == EX_FUNC && e->name &&
           (weir__str_ieq(e->name, "window") ||
            weir__str_ieq(e->name, "session_window"));
}

/* e is a column that carries a watermark in wm, or a time window of one
 * (Spark's window column carries its time column's watermark). */
static bool wm_expr(const wm_name *wm, const weir_sql_expr *e)
{
    if (!e)
        return false;
    if (e->kind == EX_COLUMN && e->n_names)
        return wm_has(wm, e->names[e->n_names - 1]);
    if (is_time_window(e) && e->n)
        return wm_expr(wm, e->list[0]);
    return false;
}

/* The name a select item's column gets when it passes a watermark on. */
static const char *item_name(const sql_item *it)
{
    if (it->alias)
        return it->alias;
    const weir_sql_expr *e = it->e;
    if (e->kind == EX_COLUMN && e->n_names)
        return e->names[e->n_names - 1];
    if (is_time_window(e))
        return weir__str_ieq(e->name, "window") ? "window" : "session_window";
    return NULL;
}

/* ---- expressions ---------------------------------------------------------- */

typedef struct expr_facts {
    const weir_sql_expr *agg;       /* the first aggregate call */
    const weir_sql_expr *agg_distinct;
    const weir_sql_expr *window;    /* the first window function */
    const weir_sql_expr *mono;      /* monotonically_increasing_id() */
} expr_facts;

/* Aggregate and window calls of e outside subqueries. */
static void scan_expr(expr_facts *x, const weir_sql_expr *e, int depth)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH || e->kind == EX_SUBQUERY ||
        e->kind == EX_EXISTS)
        return;
    if (e->kind == EX_FUNC && e->name) {
        if (e->over) {
            if (!x->window)
                x->window = e;
        } else if (weir__sql_is_aggregate(e->name)) {
            if (!x->agg)
                x->agg = e;
            if (e->distinct && !x->agg_distinct)
                x->agg_distinct = e;
        }
        if (weir__str_ieq(e->name, "monotonically_increasing_id") && !x->mono)
            x->mono = e;
    }
    scan_expr(x, e->a, depth + 1);
    scan_expr(x, e->b, depth + 1);
    scan_expr(x, e->c, depth + 1);
    for (size_t i = 0; i < e->n; i++)
        scan_expr(x, e->list[i], depth + 1);
    scan_expr(x, e->filter, depth + 1);
}

/* ---- relations and queries ----------------------------------------------- */

static facts query_facts(an *a, const weir_sql_query *q, const cte_frame *sc);

static const char *join_name(sql_join_kind k)
{
    switch (k) {
    case J_LEFT: return "LEFT OUTER JOIN";
    case J_RIGHT: return "RIGHT OUTER JOIN";
    case J_FULL: return "FULL OUTER JOIN";
    case J_CROSS: return "CROSS JOIN";
    case J_SEMI: return "LEFT SEMI JOIN";
    case J_ANTI: return "LEFT ANTI JOIN";
    case J_COMMA: return "join (a comma in FROM)";
    default: return "INNER JOIN";
    }
}

/* Spark's checks of a join with a stream on one side or both. */
static void check_join(an *a, const sql_rel *r, bool l, bool rr)
{
    if (l && rr) {
        if (r->join == J_ANTI)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, r->pos,
                "LeftAnti joins with a streaming DataFrame/Dataset on the "
                "right are not supported");
        else
            add(a, WEIR_SQL_SOP_JOIN, r->pos, "%s", join_name(r->join));
        return;
    }
    if (!l && !rr)
        return;
    switch (r->join) {
    case J_FULL:
        add(a, WEIR_SQL_SOP_UNSUPPORTED, r->pos,
            "FullOuter joins with streaming DataFrames/Datasets on the %s "
            "and a static DataFrame/Dataset on the %s is not supported",
            l ? "left" : "right", l ? "right" : "left");
        break;
    case J_LEFT:
    case J_SEMI:
        if (rr)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, r->pos,
                "%s join with a streaming DataFrame/Dataset on the right and "
                "a static DataFrame/Dataset on the left is not supported",
                r->join == J_LEFT ? "LeftOuter" : "LeftSemi");
        break;
    case J_ANTI:
        if (rr)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, r->pos,
                "LeftAnti joins with a streaming DataFrame/Dataset on the "
                "right are not supported");
        break;
    case J_RIGHT:
        if (l)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, r->pos,
                "RightOuter join with a streaming DataFrame/Dataset on the "
                "left and a static DataFrame/DataSet on the right not "
                "supported");
        break;
    default:
        break;
    }
}

/* A table reference: a CTE in scope, a STREAM read (of a view, whose
 * query is looked into), or a batch read. */
static facts table_facts(an *a, const sql_rel *r, const cte_frame *sc)
{
    facts f = { r->streaming, NULL };
    if (r->name.n == 1)
        for (const cte_frame *c = sc; c; c = c->up)
            if (weir__str_ieq(c->name, r->name.parts[0]))
                return c->f;
    if (r->streaming && a->res && a->res->view && a->depth < 64) {
        weir_sql_relref ref = { r->name, r->streaming, r };
        const void *view_ctx = NULL;
        const weir_sql_query *v = a->res->view(a->res->payload, a->ctx, &ref,
                                               &view_ctx);
        if (v) {
            const void *ctx = a->ctx;
            const weir_sql_source *src = a->src;
            a->ctx = view_ctx;
            a->src = v->src;
            a->depth++;
            facts vf = query_facts(a, v, NULL);
            a->depth--;
            a->ctx = ctx;
            a->src = src;
            f.wm = vf.wm;
        }
    }
    return f;
}

static facts rel_facts(an *a, const sql_rel *r, const cte_frame *sc)
{
    facts f = { false, NULL };
    if (!r || a->rc)
        return f;
    switch (r->kind) {
    case R_TABLE:
        f = table_facts(a, r, sc);
        break;
    case R_TVF:
        f.streaming = r->call && r->call->streaming;
        break;
    case R_SUBQUERY:
        f = query_facts(a, r->query, sc);
        break;
    case R_JOIN: {
        facts l = rel_facts(a, r->left, sc);
        facts rr = rel_facts(a, r->right, sc);
        check_join(a, r, l.streaming, rr.streaming);
        f.streaming = l.streaming || rr.streaming;
        f.wm = wm_union(a, l.wm, rr.wm);
        break;
    }
    case R_LATERAL_VIEW:
        f = rel_facts(a, r->left, sc);
        break;
    }
    if (f.streaming && r->wm_col && r->wm_col->kind == EX_COLUMN &&
        r->wm_col->n_names)
        f.wm = wm_add(a, f.wm, r->wm_col->names[r->wm_col->n_names - 1]);
    return f;
}

/* dropDuplicates(keys) as the Connect translator writes it: SELECT * FROM
 * x QUALIFY row_number() OVER (PARTITION BY keys ORDER BY keys) = 1. */
static bool is_dedup(const sql_select *s)
{
    const weir_sql_expr *q = s->qualify;
    if (!q || s->n_items != 1 || s->items[0].e->kind != EX_STAR ||
        s->items[0].e->n_names || s->items[0].e->n || s->group != GB_NONE ||
        s->distinct || q->kind != EX_BINARY || strcmp(q->op, "=") ||
        !q->b || q->b->kind != EX_LIT || !q->b->text || strcmp(q->b->text, "1"))
        return false;
    const weir_sql_expr *rn = q->a;
    if (!rn || rn->kind != EX_FUNC || !rn->over || rn->n ||
        !weir__str_ieq(rn->name, "row_number"))
        return false;
    const sql_window *w = rn->over;
    if (w->ref || w->frame || !w->n_partition || w->n_partition != w->n_order)
        return false;
    for (size_t i = 0; i < w->n_partition; i++) {
        const weir_sql_expr *p = w->partition[i], *o = w->order[i].e;
        if (p->kind != EX_COLUMN || o->kind != EX_COLUMN || p->n_names != 1 ||
            o->n_names != 1 || strcmp(p->names[0], o->names[0]))
            return false;
    }
    return true;
}

static void dedup_op(an *a, const sql_select *s, const facts *from)
{
    const sql_window *w = s->qualify->a->over;
    weir_buf keys = WEIR_BUF_INIT;
    bool wm = false;
    for (size_t i = 0; i < w->n_partition; i++) {
        weir__buf_printf(&keys, "%s%s", i ? ", " : "", w->partition[i]->names[0]);
        wm |= wm_expr(from->wm, w->partition[i]);
    }
    add(a, WEIR_SQL_SOP_DEDUPLICATE, s->pos, "dropDuplicates(%s)",
        weir__buf_cstr(&keys));
    weir__buf_free(&keys);
    weir_sql_sop *op = last(a);
    if (op)
        op->watermarked = wm;
}

/* The GROUP BY key at i resolved through ordinals and select aliases. */
static const weir_sql_expr *group_key(const sql_select *s, const weir_sql_expr *k)
{
    if (k->kind == EX_LIT && k->lit == LIT_INT && k->text) {
        long n = strtol(k->text, NULL, 10);
        if (n >= 1 && (size_t)n <= s->n_items)
            return s->items[n - 1].e;
    }
    if (k->kind == EX_COLUMN && k->n_names == 1)
        for (size_t i = 0; i < s->n_items; i++)
            if (s->items[i].alias && weir__str_ieq(s->items[i].alias, k->names[0]))
                return s->items[i].e;
    return k;
}

/* Whether an aggregation's groups are keyed by a watermarked event time
 * (Spark's condition for append mode). */
static bool grouped_by_event_time(const sql_select *s, const facts *from)
{
    if (s->group == GB_EXPRS)
        for (size_t i = 0; i < s->n_group_by; i++)
            if (wm_expr(from->wm, group_key(s, s->group_by[i])))
                return true;
    if (s->group == GB_ALL || s->distinct)
        for (size_t i = 0; i < s->n_items; i++) {
            const weir_sql_expr *e = s->items[i].e;
            if (wm_expr(from->wm, e) || (e->kind == EX_STAR && from->wm))
                return true;
        }
    return false;
}

static void select_ops(an *a, const sql_select *s, const facts *from)
{
    expr_facts x;
    memset(&x, 0, sizeof(x));
    for (size_t i = 0; i < s->n_items; i++)
        scan_expr(&x, s->items[i].e, 0);
    scan_expr(&x, s->having, 0);
    expr_facts qx;
    memset(&qx, 0, sizeof(qx));
    scan_expr(&qx, s->qualify, 0);
    scan_expr(&qx, s->where, 0);
    if (x.mono || qx.mono)
        add(a, WEIR_SQL_SOP_UNSUPPORTED, (x.mono ? x.mono : qx.mono)->pos,
            "Expression(s): monotonically_increasing_id() is not supported "
            "with streaming DataFrames/Datasets");
    if (is_dedup(s)) {
        dedup_op(a, s, from);
    } else if (x.window || qx.window) {
        const weir_sql_expr *w = x.window ? x.window : qx.window;
        const char *col = NULL;
        for (size_t i = 0; i < s->n_items && !col; i++)
            if (s->items[i].e == w)
                col = s->items[i].alias;
        add(a, WEIR_SQL_SOP_WINDOW_FUNCTION, w->pos, "%s()%s%s%s", w->name,
            col ? " (as column `" : "", col ? col : "", col ? "`)" : "");
    }
    bool grouping_sets = s->group == GB_ROLLUP || s->group == GB_CUBE ||
                         s->group == GB_SETS;
    if (grouping_sets)
        add(a, WEIR_SQL_SOP_UNSUPPORTED, s->pos,
            "Grouping Sets is not supported on streaming DataFrames/Datasets");
    else if (x.agg_distinct && s->group != GB_NONE)
        add(a, WEIR_SQL_SOP_UNSUPPORTED, x.agg_distinct->pos,
            "Distinct aggregations are not supported on streaming "
            "DataFrames/Datasets. Consider using approx_count_distinct() "
            "instead.");
    else if (s->group != GB_NONE || s->distinct || x.agg) {
        weir_sql_pos pos = s->group != GB_NONE || s->distinct || !x.agg
                               ? s->pos : x.agg->pos;
        add(a, WEIR_SQL_SOP_AGGREGATE, pos, "%s",
            s->group != GB_NONE ? "GROUP BY"
            : s->distinct       ? "SELECT DISTINCT"
                                : "an aggregate function");
        weir_sql_sop *op = last(a);
        if (op)
            op->watermarked = grouped_by_event_time(s, from);
    }
}

static facts select_facts(an *a, const sql_select *s, const cte_frame *sc)
{
    facts from = rel_facts(a, s->from, sc);
    facts f = { from.streaming, NULL };
    if (!from.streaming)
        return f;
    select_ops(a, s, &from);
    for (size_t i = 0; i < s->n_items; i++) {
        const sql_item *it = &s->items[i];
        if (it->e->kind == EX_STAR)
            f.wm = wm_union(a, f.wm, from.wm);
        else if (wm_expr(from.wm, it->e))
            f.wm = wm_add(a, f.wm, item_name(it));
    }
    return f;
}

static facts setop_facts(an *a, const weir_sql_query *q, const cte_frame *sc)
{
    facts l = query_facts(a, q->left, sc);
    facts r = query_facts(a, q->right, sc);
    facts f = { l.streaming || r.streaming, wm_union(a, l.wm, r.wm) };
    const char *op = q->setop ? q->setop : "UNION";
    if (weir__str_ieq(op, "UNION")) {
        if (l.streaming != r.streaming)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, q->pos,
                "Union between streaming and batch DataFrames/Datasets is "
                "not supported");
        else if (f.streaming && !q->all) {
            add(a, WEIR_SQL_SOP_AGGREGATE, q->pos, "UNION (DISTINCT)");
            weir_sql_sop *o = last(a);
            if (o)
                o->watermarked = f.wm != NULL;
        }
    } else if (weir__str_ieq(op, "INTERSECT")) {
        if (f.streaming)
            add(a, WEIR_SQL_SOP_UNSUPPORTED, q->pos,
                "Intersect of streaming DataFrames/Datasets is not supported");
    } else if (r.streaming) {
        add(a, WEIR_SQL_SOP_UNSUPPORTED, q->pos,
            "Except on a streaming DataFrame/Dataset on the right is not "
            "supported");
    } else if (l.streaming) {
        add(a, WEIR_SQL_SOP_EXCEPT, q->pos, "EXCEPT%s", q->all ? " ALL" : "");
    }
    return f;
}

static facts body_facts(an *a, const weir_sql_query *q, const cte_frame *sc)
{
    facts f = { false, NULL };
    switch (q->kind) {
    case Q_SELECT: f = select_facts(a, q->sel, sc); break;
    case Q_SETOP: f = setop_facts(a, q, sc); break;
    case Q_VALUES: break;
    }
    if (!f.streaming)
        return f;
    if (q->n_order)
        add(a, WEIR_SQL_SOP_UNSUPPORTED, weir__sql_expr_pos(q->order[0].e),
            "Sorting is not supported on streaming DataFrames/Datasets, "
            "unless it is on aggregated DataFrame/Dataset in Complete "
            "output mode");
    if (q->offset)
        add(a, WEIR_SQL_SOP_UNSUPPORTED, weir__sql_expr_pos(q->offset),
            "Offset is not supported on streaming DataFrames/Datasets");
    if (q->limit)
        add(a, WEIR_SQL_SOP_LIMIT, q->limit_pos, "LIMIT");
    return f;
}

static facts query_facts(an *a, const weir_sql_query *q, const cte_frame *sc)
{
    facts f = { false, NULL };
    if (!q || a->rc || a->depth > SQL_MAX_DEPTH)
        return f;
    a->depth++;
    cte_frame *frames = q->n_ctes
                            ? weir__arena_array(a->arena, q->n_ctes, sizeof(*frames))
                            : NULL;
    if (q->n_ctes && !frames) {
        a->rc = WEIR_ENOMEM;
        a->depth--;
        return f;
    }
    const cte_frame *cur = sc;
    for (size_t i = 0; i < q->n_ctes; i++) {
        frames[i].name = q->ctes[i].name;
        frames[i].up = cur;
        frames[i].f.streaming = false;
        frames[i].f.wm = NULL;
        /* A RECURSIVE CTE reads itself as a batch relation here. */
        facts cf = query_facts(a, q->ctes[i].q, q->recursive ? &frames[i] : cur);
        frames[i].f = cf;
        cur = &frames[i];
    }
    f = body_facts(a, q, cur);
    a->depth--;
    return f;
}

int weir__sql_stream_ops(weir_sql_sop **out, size_t *n_out, weir_arena *arena,
                         const weir_sql_query *q,
                         const weir_sql_stream_resolver *res)
{
    an a;
    memset(&a, 0, sizeof(a));
    a.arena = arena;
    a.res = res;
    a.ctx = res ? res->ctx : NULL;
    a.src = q ? q->src : NULL;
    *out = NULL;
    *n_out = 0;
    query_facts(&a, q, NULL);
    if (!a.rc && a.ops.len) {
        *out = weir__arena_array(arena, a.ops.len, sizeof(**out));
        if (!*out)
            a.rc = WEIR_ENOMEM;
        else
            memcpy(*out, a.ops.items, a.ops.len * sizeof(**out));
        *n_out = *out ? a.ops.len : 0;
    }
    WEIR_VEC_FREE(&a.ops);
    return a.rc;
}
