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
    const sql_rel *rel; /* the relation whose WATERMARK clause it comes from */
    const void *ctx;    /* the resolver context rel is read in */
    const weir_sql_source *src;
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
    /* The last join of two streams found: the facts of its sides and the
     * operator it added, for the SELECT over it to plan. */
    const struct sql_rel *join;
    struct facts *join_sides;
    size_t join_op;
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

/* l with name added, a column of the watermark of like (or, like NULL,
 * of relation rel read here). */
static const wm_name *wm_add(an *a, const wm_name *l, const char *name,
                             const wm_name *like, const sql_rel *rel)
{
    const sql_rel *from = like ? like->rel : rel;
    for (const wm_name *n = l; n; n = n->next)
        if (n->rel == from && weir__str_ieq(n->name, name ? name : ""))
            return l;
    if (!name)
        return l;
    wm_name *n = weir__arena_alloc(a->arena, sizeof(*n));
    if (!n) {
        a->rc = WEIR_ENOMEM;
        return l;
    }
    n->name = name;
    n->rel = like ? like->rel : rel;
    n->ctx = like ? like->ctx : a->ctx;
    n->src = like ? like->src : a->src;
    n->next = l;
    return n;
}

static const wm_name *wm_union(an *a, const wm_name *x, const wm_name *y)
{
    for (; y; y = y->next)
        x = wm_add(a, x, y->name, y, NULL);
    return x;
}

static bool is_time_window(const weir_sql_expr *e)
{
    return e && e->kind == EX_FUNC && e->name &&
           (weir__str_ieq(e->name, "window") ||
            weir__str_ieq(e->name, "session_window"));
}

/* The watermarked column e is, or whose time window it is (Spark's window
 * column carries its time column's watermark); NULL for other
 * expressions. */
static const wm_name *wm_of(const wm_name *l, const weir_sql_expr *e)
{
    if (!e)
        return NULL;
    if (is_time_window(e) && e->n)
        return wm_of(l, e->list[0]);
    /* window_time(w) of a time window w: the time of its last instant */
    if (e->kind == EX_FUNC && e->name && e->n == 1 &&
        weir__str_ieq(e->name, "window_time"))
        return wm_of(l, e->list[0]);
    if (e->kind != EX_COLUMN || !e->n_names)
        return NULL;
    for (; l; l = l->next)
        if (weir__str_ieq(l->name, e->names[e->n_names - 1]))
            return l;
    return NULL;
}

static bool wm_expr(const wm_name *wm, const weir_sql_expr *e)
{
    return wm_of(wm, e) != NULL;
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
        if (l.streaming && rr.streaming && last(a) && last(a)->kind == WEIR_SQL_SOP_JOIN) {
            facts *sides = weir__arena_array(a->arena, 2, sizeof(*sides));
            if (!sides) {
                a->rc = WEIR_ENOMEM;
                break;
            }
            sides[0] = l;
            sides[1] = rr;
            a->join = r;
            a->join_sides = sides;
            a->join_op = a->ops.len - 1;
        }
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
        f.wm = wm_add(a, f.wm, r->wm_col->names[r->wm_col->n_names - 1],
                      NULL, r);
    return f;
}

/* What a DataFrame deduplication is, as the Connect translator writes it
 * (connect/plan_ops.c), in text generated from a DataFrame (in a SQL file
 * these are the window function and the aggregation Spark refuses or
 * keeps apart on a stream). */
typedef enum dedup_kind {
    NOT_DEDUP = 0,
    DEDUP_KEYS,   /* dropDuplicates(keys): SELECT * FROM x QUALIFY
                     row_number() OVER (PARTITION BY keys ORDER BY keys) = 1 */
    DEDUP_WITHIN, /* dropDuplicatesWithinWatermark(keys): the same with
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW */
    DEDUP_ALL     /* distinct(), dropDuplicates(): SELECT DISTINCT * FROM
                     x AS _pN */
} dedup_kind;

static bool star_only(const sql_select *s)
{
    return s->n_items == 1 && s->items[0].e->kind == EX_STAR &&
           !s->items[0].e->n_names && !s->items[0].e->n && s->group == GB_NONE;
}

/* A name the translator gives a derived table: _p<digits>. */
static bool generated_alias(const char *alias)
{
    if (!alias || alias[0] != '_' || alias[1] != 'p' || !alias[2])
        return false;
    for (const char *c = alias + 2; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    return true;
}

static dedup_kind dedup_of(const an *a, const sql_select *s)
{
    if (!a->src || !a->src->at_path || !star_only(s))
        return NOT_DEDUP;
    if (s->distinct)
        return !s->qualify && !s->where && s->from &&
                       s->from->kind != R_JOIN && generated_alias(s->from->alias)
                   ? DEDUP_ALL
                   : NOT_DEDUP;
    const weir_sql_expr *q = s->qualify;
    if (!q || q->kind != EX_BINARY || strcmp(q->op, "=") || !q->b ||
        q->b->kind != EX_LIT || !q->b->text || strcmp(q->b->text, "1"))
        return NOT_DEDUP;
    const weir_sql_expr *rn = q->a;
    if (!rn || rn->kind != EX_FUNC || !rn->over || rn->n ||
        !weir__str_ieq(rn->name, "row_number"))
        return NOT_DEDUP;
    const sql_window *w = rn->over;
    if (w->ref || !w->n_partition || w->n_partition != w->n_order)
        return NOT_DEDUP;
    for (size_t i = 0; i < w->n_partition; i++) {
        const weir_sql_expr *p = w->partition[i], *o = w->order[i].e;
        if (p->kind != EX_COLUMN || o->kind != EX_COLUMN || p->n_names != 1 ||
            o->n_names != 1 || strcmp(p->names[0], o->names[0]))
            return NOT_DEDUP;
    }
    if (!w->frame)
        return DEDUP_KEYS;
    return w->frame == 1 && w->start.kind == 1 && w->end.kind == 3
               ? DEDUP_WITHIN
               : NOT_DEDUP;
}

/* ---- how weir runs an operator ------------------------------------------ */

static void *alloc(an *a, size_t size)
{
    void *p = weir__arena_alloc(a->arena, size);
    if (!p)
        a->rc = WEIR_ENOMEM;
    return p;
}

/* A SELECT query of sel in the analysed text. */
static weir_sql_query *select_query(an *a, sql_select *sel, weir_sql_pos pos,
                                    const weir_sql_source *src)
{
    weir_sql_query *q = alloc(a, sizeof(*q));
    if (!q)
        return NULL;
    q->kind = Q_SELECT;
    q->pos = pos;
    q->src = src;
    q->sel = sel;
    return q;
}

/* The rows an operator takes: q's SELECT with its FROM and WHERE only
 * (and q's CTEs, which they may read). */
static const weir_sql_query *input_query(an *a, const weir_sql_query *q)
{
    sql_select *in = alloc(a, sizeof(*in));
    sql_item *star = alloc(a, sizeof(*star));
    weir_sql_expr *e = alloc(a, sizeof(*e));
    if (a->rc)
        return NULL;
    e->kind = EX_STAR;
    e->pos = q->sel->pos;
    e->src = q->src;
    star->e = e;
    star->pos = q->sel->pos;
    in->items = star;
    in->n_items = 1;
    in->from = q->sel->from;
    in->where = q->sel->where;
    in->pos = q->sel->pos;
    weir_sql_query *r = select_query(a, in, q->pos, q->src);
    if (r) {
        r->ctes = q->ctes;
        r->n_ctes = q->n_ctes;
        r->recursive = q->recursive;
    }
    return r;
}

/* SELECT max(col) FROM rel: the latest event time of a batch of rel. */
static const weir_sql_query *max_query(an *a, const wm_name *w)
{
    weir_sql_expr *col = alloc(a, sizeof(*col));
    weir_sql_expr *fn = alloc(a, sizeof(*fn));
    weir_sql_expr **args = alloc(a, sizeof(*args));
    const char **names = alloc(a, sizeof(*names));
    sql_item *item = alloc(a, sizeof(*item));
    sql_select *sel = alloc(a, sizeof(*sel));
    if (a->rc)
        return NULL;
    col->kind = EX_COLUMN;
    col->pos = w->rel->pos;
    col->src = w->src;
    names[0] = w->rel->wm_col->names[w->rel->wm_col->n_names - 1];
    col->names = names;
    col->n_names = 1;
    fn->kind = EX_FUNC;
    fn->pos = w->rel->pos;
    fn->src = w->src;
    fn->name = "max";
    args[0] = col;
    fn->list = args;
    fn->n = 1;
    item->e = fn;
    item->alias = "m";
    item->pos = w->rel->pos;
    sel->items = item;
    sel->n_items = 1;
    sel->from = (sql_rel *)w->rel;
    sel->pos = w->rel->pos;
    return select_query(a, sel, w->rel->pos, w->src);
}

/* The watermarks of the relations below an operator (each once). */
static void plan_watermarks(an *a, weir_sql_state_plan *p, const wm_name *wm)
{
    size_t n = 0;
    for (const wm_name *w = wm; w; w = w->next)
        n++;
    p->wms = n ? alloc(a, n * sizeof(*p->wms)) : NULL;
    for (const wm_name *w = wm; w && !a->rc; w = w->next) {
        bool seen = false;
        for (size_t i = 0; i < p->n_wms && !seen; i++)
            seen = p->wms[i].column == w->rel->wm_col->names[w->rel->wm_col->n_names - 1] &&
                   p->wms[i].delay == w->rel->wm_delay;
        if (seen)
            continue;
        weir_sql_watermark *m = &p->wms[p->n_wms];
        m->max = max_query(a, w);
        m->ctx = w->ctx;
        m->delay = w->rel->wm_delay;
        m->column = w->rel->wm_col->names[w->rel->wm_col->n_names - 1];
        p->n_wms += m->max != NULL;
    }
}

/* The plan of a deduplication: its input is the SELECT without QUALIFY
 * or DISTINCT; keys are the partition columns (none: every column). */
static const weir_sql_state_plan *dedup_plan(an *a, const weir_sql_query *q,
                                             const facts *from, dedup_kind kind)
{
    const sql_select *s = q->sel;
    const sql_window *w = kind == DEDUP_ALL ? NULL : s->qualify->a->over;
    size_t n_keys = w ? w->n_partition : 0;
    weir_sql_state_plan *p = alloc(a, sizeof(*p));
    const char **keys = n_keys ? alloc(a, n_keys * sizeof(*keys)) : NULL;
    if (a->rc)
        return NULL;
    p->kind = WEIR_SQL_SOP_DEDUPLICATE;
    p->node = q;
    p->ctx = a->ctx;
    p->input = input_query(a, q);
    p->within_watermark = kind == DEDUP_WITHIN;
    for (size_t i = 0; i < n_keys; i++) {
        keys[i] = w->partition[i]->names[0];
        if (!p->event_time && wm_expr(from->wm, w->partition[i]))
            p->event_time = keys[i];
    }
    p->keys = keys;
    p->n_keys = n_keys;
    /* Every column is a key, a watermarked one too; within the watermark,
     * the event time is the input's watermarked column. */
    if (from->wm && (kind == DEDUP_ALL || kind == DEDUP_WITHIN)) {
        const wm_name *first = from->wm;
        while (first->next)
            first = first->next;
        p->event_time = first->name;
    }
    plan_watermarks(a, p, from->wm);
    p->event_wm = -1;
    const wm_name *et = NULL;
    for (const wm_name *n = from->wm; p->event_time && n && !et; n = n->next)
        if (weir__str_ieq(n->name, p->event_time))
            et = n;
    for (size_t i = 0; et && i < p->n_wms; i++)
        if (p->wms[i].delay == et->rel->wm_delay)
            p->event_wm = (long)i;
    return a->rc ? NULL : p;
}

static void dedup_op(an *a, const weir_sql_query *q, const facts *from,
                     dedup_kind kind)
{
    const sql_select *s = q->sel;
    if (kind == DEDUP_WITHIN && !from->wm) {
        add(a, WEIR_SQL_SOP_UNSUPPORTED, s->pos,
            "dropDuplicatesWithinWatermark is not supported on streaming "
            "DataFrames/DataSets without watermark");
        return;
    }
    weir_buf keys = WEIR_BUF_INIT;
    bool wm = kind == DEDUP_ALL && from->wm;
    if (kind != DEDUP_ALL) {
        const sql_window *w = s->qualify->a->over;
        for (size_t i = 0; i < w->n_partition; i++) {
            weir__buf_printf(&keys, "%s%s", i ? ", " : "",
                             w->partition[i]->names[0]);
            wm |= wm_expr(from->wm, w->partition[i]);
        }
    }
    add(a, WEIR_SQL_SOP_DEDUPLICATE, s->pos, "%s(%s)",
        kind == DEDUP_WITHIN ? "dropDuplicatesWithinWatermark"
        : kind == DEDUP_ALL  ? "distinct"
                             : "dropDuplicates",
        weir__buf_cstr(&keys));
    weir__buf_free(&keys);
    weir_sql_sop *op = last(a);
    if (op) {
        op->watermarked = wm || kind == DEDUP_WITHIN;
        op->plan = dedup_plan(a, q, from, kind);
    }
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

/* The group key that carries the watermark: a time window of the event
 * time, or the event time itself. */
static const weir_sql_expr *event_key(const sql_select *s, const facts *from)
{
    if (s->group == GB_EXPRS)
        for (size_t i = 0; i < s->n_group_by; i++) {
            const weir_sql_expr *k = group_key(s, s->group_by[i]);
            if (wm_expr(from->wm, k))
                return k;
        }
    if (s->group == GB_ALL || s->distinct)
        for (size_t i = 0; i < s->n_items; i++)
            if (wm_expr(from->wm, s->items[i].e))
                return s->items[i].e;
    return NULL;
}

/* The end of the last sliding window(ts, dur, slide) holding a row:
 * window(ts, slide).start + INTERVAL dur. */
static weir_sql_expr *sliding_last_end(an *a, const weir_sql_expr *k)
{
    weir_sql_expr *tumble = alloc(a, sizeof(*tumble));
    weir_sql_expr **args = alloc(a, 2 * sizeof(*args));
    weir_sql_expr *start = alloc(a, sizeof(*start));
    weir_sql_expr *dur = alloc(a, sizeof(*dur));
    weir_sql_expr **vals = alloc(a, sizeof(*vals));
    const char **units = alloc(a, sizeof(*units));
    weir_sql_expr *sum = alloc(a, sizeof(*sum));
    if (a->rc)
        return NULL;
    *tumble = *k;
    args[0] = k->list[0];
    args[1] = k->list[2];
    tumble->list = args;
    tumble->n = 2;
    start->kind = EX_FIELD;
    start->pos = k->pos;
    start->src = k->src;
    start->a = tumble;
    start->name = "start";
    dur->kind = EX_INTERVAL;
    dur->pos = k->pos;
    dur->src = k->src;
    vals[0] = k->list[1];
    units[0] = NULL;
    dur->list = vals;
    dur->n = 1;
    dur->names = units;
    dur->n_names = 1;
    sum->kind = EX_BINARY;
    sum->pos = k->pos;
    sum->src = k->src;
    sum->op = "+";
    sum->a = start;
    sum->b = dur;
    return sum;
}

static weir_sql_expr *id_column(an *a, const char *alias, weir_sql_pos pos,
                                const weir_sql_source *src, const char *col);

/* The plan of an aggregation keyed by a watermarked event time, over one
 * relation (a join below it is not planned): its input rows are kept until
 * the watermark passes the end of their group (a time window's end, a
 * session's end, or the event time), and the aggregation runs over the
 * rows of the groups it closed. A session's end is known only from all
 * its rows: a row is late when its own end (time + gap) is at or before
 * the watermark, and leaves the state with its session. */

static const weir_sql_state_plan *agg_plan(an *a, const weir_sql_query *q,
                                           const facts *from)
{
    const sql_select *s = q->sel;
    const weir_sql_expr *k = event_key(s, from);
    if (!k || !s->from || s->from->kind == R_JOIN ||
        s->from->kind == R_LATERAL_VIEW || s->qualify)
        return NULL;
    bool session = k->kind == EX_FUNC && weir__str_ieq(k->name, "session_window");
    if (k->kind == EX_FUNC && !session &&
        (!weir__str_ieq(k->name, "window") || k->n > 3))
        return NULL; /* window start offsets */
    weir_sql_state_plan *p = alloc(a, sizeof(*p));
    weir_sql_query *rows = alloc(a, sizeof(*rows));
    sql_rel *rel = alloc(a, sizeof(*rel));
    sql_select *closes = alloc(a, sizeof(*closes));
    sql_item *items = alloc(a, 2 * sizeof(*items));
    weir_sql_expr *star = alloc(a, sizeof(*star));
    weir_sql_expr *end = alloc(a, sizeof(*end));
    weir_sql_expr *last_end = NULL;
    sql_select *emit = alloc(a, sizeof(*emit));
    sql_item *emit_items = alloc(a, (s->n_items + 2) * sizeof(*emit_items));
    weir_sql_expr *rids = session ? alloc(a, sizeof(*rids)) : NULL;
    weir_sql_expr **rid = session ? alloc(a, sizeof(*rid)) : NULL;
    if (a->rc)
        return NULL;
    p->kind = WEIR_SQL_SOP_AGGREGATE;
    p->node = q;
    p->ctx = a->ctx;
    p->input = input_query(a, q);
    p->event_wm = -1;
    rows->kind = Q_SELECT;
    rows->pos = q->pos;
    rows->src = q->src;
    rel->kind = R_SUBQUERY;
    rel->pos = s->from->pos;
    rel->query = rows;
    rel->alias = weir__sql_rel_name(s->from, "__weir_rows");
    star->kind = EX_STAR;
    star->pos = s->pos;
    star->src = q->src;
    /* A group ends at its window's end (the event time itself when it is
     * the key); a row is kept until its last group ends: with a sliding
     * window, the end of the one starting in its slide's time bucket. */
    if (k->kind == EX_FUNC) {
        end->kind = EX_FIELD;
        end->pos = k->pos;
        end->src = k->src;
        end->a = (weir_sql_expr *)k;
        end->name = "end";
        last_end = k->n == 3 ? sliding_last_end(a, k) : end;
    } else {
        *end = *k;
        last_end = end;
    }
    items[0].e = star;
    items[0].pos = s->pos;
    items[1].e = last_end;
    items[1].alias = "__weir_end";
    items[1].pos = k->pos;
    closes->items = items;
    closes->n_items = 2;
    closes->from = rel;
    closes->pos = s->pos;
    *emit = *s;
    emit->from = rel;
    emit->where = NULL;
    /* ... and the end of each group, which the engine writes once. */
    memcpy(emit_items, s->items, s->n_items * sizeof(*emit_items));
    emit_items[s->n_items].e = end;
    emit_items[s->n_items].alias = "__weir_end";
    emit_items[s->n_items].pos = k->pos;
    emit->items = emit_items;
    emit->n_items = s->n_items + 1;
    /* A session's rows leave the state with it: it names them by the
     * state's row ids (their own ends say nothing of their session's). */
    if (session) {
        rid[0] = id_column(a, rel->alias, k->pos, q->src, "__weir_rid");
        rids->kind = EX_FUNC;
        rids->pos = k->pos;
        rids->src = k->src;
        rids->name = "collect_list";
        rids->list = rid;
        rids->n = 1;
        emit_items[emit->n_items].e = rids;
        emit_items[emit->n_items].alias = "__weir_rids";
        emit_items[emit->n_items++].pos = k->pos;
        p->sessions = true;
    }
    p->rows = rows;
    p->closes = select_query(a, closes, q->pos, q->src);
    p->emit = select_query(a, emit, q->pos, q->src);
    plan_watermarks(a, p, from->wm);
    return a->rc ? NULL : p;
}

/* ---- joins of two streams ------------------------------------------------ */

/* A side's event time in a join condition: col, col + INTERVAL, col -
 * INTERVAL, where col is the watermarked event time of side 0 or 1. */
typedef struct time_term {
    int side; /* -1: not one */
    const weir_sql_expr *interval;
    bool minus;
} time_term;

static bool is_interval(const weir_sql_expr *e)
{
    return e && e->kind == EX_INTERVAL;
}

static int side_of_column(const weir_sql_expr *e, const char *const *alias,
                          const facts *sides, const char **name)
{
    if (!e || e->kind != EX_COLUMN || !e->n_names || e->n_names > 2)
        return -1;
    const char *col = e->names[e->n_names - 1];
    for (int i = 0; i < 2; i++) {
        if (e->n_names == 2 && !weir__str_ieq(e->names[0], alias[i]))
            continue;
        for (const wm_name *w = sides[i].wm; w; w = w->next)
            if (weir__str_ieq(w->name, col)) {
                *name = w->name;
                return i;
            }
    }
    return -1;
}

static time_term term_of(const weir_sql_expr *e, const char *const *alias,
                         const facts *sides, const char **name)
{
    time_term t = { -1, NULL, false };
    if (e && e->kind == EX_BINARY && (!strcmp(e->op, "+") || !strcmp(e->op, "-")) &&
        is_interval(e->b)) {
        t.side = side_of_column(e->a, alias, sides, name);
        t.interval = e->b;
        t.minus = !strcmp(e->op, "-");
        return t;
    }
    t.side = side_of_column(e, alias, sides, name);
    return t;
}

/* Add the bound "side s's time <= (>=) the other's + terms" that
 * a op b states, when it is one. A bound of side s below the other's
 * (s >= other + lo) lets s's rows go once s.time is at or before W + lo
 * (less 1 ms when not strict: stateful_join.c side_bound); one above it
 * (s <= other + hi) lets the other's rows go once other.time is at or
 * before W - hi (idem). */
static void bound_of(weir_sql_state_plan *p, const weir_sql_expr *a_,
                     const char *op, const weir_sql_expr *b_,
                     const char *const *alias, const facts *sides,
                     const char **event)
{
    const char *na = NULL, *nb = NULL;
    time_term ta = term_of(a_, alias, sides, &na);
    time_term tb = term_of(b_, alias, sides, &nb);
    if (ta.side < 0 || tb.side < 0 || ta.side == tb.side)
        return;
    bool ge = !strcmp(op, ">=") || !strcmp(op, ">");
    bool le = !strcmp(op, "<=") || !strcmp(op, "<");
    bool eq = !strcmp(op, "=");
    if (!ge && !le && !eq)
        return;
    event[ta.side] = na;
    event[tb.side] = nb;
    /* a.time + ia op b.time + ib  <=>  a.time op b.time + ib - ia. The side
     * whose rows can go: a's when a >= b + lo (evict a below W + lo), b's
     * when a <= b + hi (evict b below W - hi). */
    struct weir_sql_join_side *evicted[2] = { NULL, NULL };
    bool minus_terms[2] = { false, false }; /* negate ib - ia */
    if (ge || eq) {
        evicted[0] = &p->side[ta.side];
        minus_terms[0] = false;
    }
    if (le || eq) {
        evicted[1] = &p->side[tb.side];
        minus_terms[1] = true;
    }
    for (int k = 0; k < 2; k++) {
        struct weir_sql_join_side *sd = evicted[k];
        if (!sd || sd->can_evict)
            continue;
        sd->can_evict = true;
        sd->by_key = eq;
        sd->strict = !strcmp(op, ">") || !strcmp(op, "<");
        sd->n_evict = 0;
        if (tb.interval) {
            sd->evict[sd->n_evict].interval = tb.interval;
            sd->evict[sd->n_evict++].minus = tb.minus != minus_terms[k];
        }
        if (ta.interval) {
            sd->evict[sd->n_evict].interval = ta.interval;
            sd->evict[sd->n_evict++].minus = !ta.minus != minus_terms[k];
        }
    }
}

static void bounds_of(weir_sql_state_plan *p, const weir_sql_expr *e,
                      const char *const *alias, const facts *sides,
                      const char **event, int depth)
{
    if (!e || depth > SQL_MAX_DEPTH)
        return;
    if (e->kind == EX_BINARY && weir__str_ieq(e->op, "AND")) {
        bounds_of(p, e->a, alias, sides, event, depth + 1);
        bounds_of(p, e->b, alias, sides, event, depth + 1);
    } else if (e->kind == EX_BINARY) {
        bound_of(p, e->a, e->op, e->b, alias, sides, event);
    } else if (e->kind == EX_BETWEEN && !e->negated) {
        bound_of(p, e->a, ">=", e->b, alias, sides, event);
        bound_of(p, e->a, "<=", e->c, alias, sides, event);
    }
}

/* The watermarked columns j joins on by name: its USING columns, or for a
 * NATURAL join every column watermarked on both sides (such a column is
 * one both sides have). Each is an equality of the two sides' event
 * times, Spark's "watermark in the join keys": both sides' rows leave the
 * state once that time is at or before the watermark. */
static void key_bounds(weir_sql_state_plan *p, const sql_rel *j,
                       const facts *sides, const char **event)
{
    for (const wm_name *w = sides[0].wm; w; w = w->next) {
        bool key = j->natural;
        for (size_t i = 0; i < j->n_using && !key; i++)
            key = weir__str_ieq(j->using_cols[i], w->name);
        const wm_name *r = sides[1].wm;
        while (r && !weir__str_ieq(r->name, w->name))
            r = r->next;
        if (!key || !r)
            continue;
        for (int i = 0; i < 2; i++) {
            struct weir_sql_join_side *sd = &p->side[i];
            event[i] = i ? r->name : w->name;
            sd->can_evict = true;
            sd->by_key = true;
            sd->n_evict = 0;
        }
        return;
    }
}

/* A placeholder relation named alias over a fresh rows node. */
static sql_rel *placeholder(an *a, const weir_sql_query *q, const sql_rel *like,
                            const char *alias, weir_sql_query **rows)
{
    sql_rel *rel = alloc(a, sizeof(*rel));
    *rows = alloc(a, sizeof(**rows));
    if (a->rc)
        return NULL;
    (*rows)->kind = Q_SELECT;
    (*rows)->pos = q->pos;
    (*rows)->src = q->src;
    rel->kind = R_SUBQUERY;
    rel->pos = like->pos;
    rel->query = *rows;
    rel->alias = alias;
    return rel;
}

/* q's SELECT over the two placeholders joined by kind. */
static const weir_sql_query *join_select(an *a, const weir_sql_query *q,
                                         sql_rel *l, sql_rel *r,
                                         sql_join_kind kind)
{
    const sql_rel *j = q->sel->from;
    sql_rel *nj = alloc(a, sizeof(*nj));
    sql_select *sel = alloc(a, sizeof(*sel));
    if (a->rc)
        return NULL;
    *nj = *j;
    nj->left = l;
    nj->right = r;
    nj->join = kind;
    *sel = *q->sel;
    sel->from = nj;
    return select_query(a, sel, q->pos, q->src);
}

/* The column `alias.col`, or `col` when alias is NULL. */
static weir_sql_expr *id_column(an *a, const char *alias, weir_sql_pos pos,
                                const weir_sql_source *src, const char *col)
{
    weir_sql_expr *e = alloc(a, sizeof(*e));
    const char **names = alloc(a, 2 * sizeof(*names));
    if (a->rc)
        return NULL;
    size_t n = 0;
    if (alias)
        names[n++] = alias;
    names[n++] = col;
    e->kind = EX_COLUMN;
    e->pos = pos;
    e->src = src;
    e->names = names;
    e->n_names = n;
    return e;
}

/* The plan of a join of two streams: each side's rows are kept (with an
 * id, its event time and whether it matched) until no row to come can
 * match them; a batch writes the pairs its new rows make with the rows
 * kept and each other, and outer rows with NULLs when their side's rows
 * go unmatched. Only a SELECT straight over the join of two relations. */
static const weir_sql_state_plan *join_plan(an *a, const weir_sql_query *q,
                                            const facts *sides)
{
    const sql_select *s = q->sel;
    const sql_rel *j = s->from;
    int kind = j->join == J_LEFT    ? WEIR_SQL_JOIN_LEFT
               : j->join == J_RIGHT ? WEIR_SQL_JOIN_RIGHT
               : j->join == J_FULL  ? WEIR_SQL_JOIN_FULL
               : j->join == J_SEMI  ? WEIR_SQL_JOIN_SEMI
               : j->join == J_ANTI  ? 0
                                    : WEIR_SQL_JOIN_INNER;
    const sql_rel *rel[2] = { j->left, j->right };
    for (int i = 0; i < 2; i++)
        if (rel[i]->kind == R_JOIN || rel[i]->kind == R_LATERAL_VIEW)
            kind = 0;
    /* USING joins: the placeholders keep the clause; NATURAL ones become
     * USING joins on the sides' common columns when the engine knows them
     * (weir__sql_join_using): the sides' bookkeeping is common too. */
    if (!kind || s->group != GB_NONE || s->distinct || s->qualify)
        return NULL;
    weir_sql_state_plan *p = alloc(a, sizeof(*p));
    if (!p)
        return NULL;
    p->kind = WEIR_SQL_SOP_JOIN;
    p->join = kind;
    p->natural = j->natural;
    p->node = q;
    p->ctx = a->ctx;
    p->event_wm = -1;
    const char *alias[2] = { weir__sql_rel_name(rel[0], "__weir_rows"),
                             weir__sql_rel_name(rel[1], "__weir_rows") };
    const char *event[2] = { NULL, NULL };
    bounds_of(p, j->on, alias, sides, event, 0);
    key_bounds(p, j, sides, event);
    sql_rel *ph[2];
    weir_sql_query *rows[2];
    for (int i = 0; i < 2 && !a->rc; i++) {
        struct weir_sql_join_side *sd = &p->side[i];
        sql_select *in = alloc(a, sizeof(*in));
        sql_item *star = alloc(a, sizeof(*star));
        weir_sql_expr *e = alloc(a, sizeof(*e));
        if (a->rc)
            return NULL;
        e->kind = EX_STAR;
        e->pos = rel[i]->pos;
        e->src = q->src;
        star->e = e;
        in->items = star;
        in->n_items = 1;
        in->from = (sql_rel *)rel[i];
        in->pos = rel[i]->pos;
        sd->input = select_query(a, in, q->pos, q->src);
        sd->alias = alias[i];
        sd->event_time = event[i];
        if (!sd->event_time && sides[i].wm) {
            const wm_name *w = sides[i].wm;
            while (w->next)
                w = w->next;
            sd->event_time = w->name;
        }
        if (!sd->event_time)
            sd->can_evict = false;
        ph[i] = placeholder(a, q, rel[i], alias[i], &rows[i]);
        sd->rows = rows[i];
    }
    if (a->rc)
        return NULL;
    p->emit = join_select(a, q, ph[0], ph[1], kind == WEIR_SQL_JOIN_SEMI ? J_SEMI : J_INNER);
    if (kind == WEIR_SQL_JOIN_LEFT || kind == WEIR_SQL_JOIN_FULL)
        p->emit_left_nulls = join_select(a, q, ph[0], ph[1], J_LEFT);
    if (kind == WEIR_SQL_JOIN_RIGHT || kind == WEIR_SQL_JOIN_FULL)
        p->emit_right_nulls = join_select(a, q, ph[0], ph[1], J_RIGHT);
    /* SELECT l.__weir_id AS l, r.__weir_id AS r FROM l JOIN r ON ... */
    sql_select *pairs = alloc(a, sizeof(*pairs));
    sql_item *items = alloc(a, 2 * sizeof(*items));
    sql_rel *nj = alloc(a, sizeof(*nj));
    if (a->rc)
        return NULL;
    *nj = *j;
    nj->left = ph[0];
    nj->right = ph[1];
    nj->join = J_INNER;
    for (int i = 0; i < 2; i++) {
        items[i].e = id_column(a, alias[i], j->pos, q->src, "__weir_id");
        items[i].alias = i ? "r" : "l";
        items[i].pos = j->pos;
    }
    pairs->items = items;
    pairs->n_items = 2;
    pairs->from = nj;
    pairs->pos = s->pos;
    p->pairs = select_query(a, pairs, q->pos, q->src);
    plan_watermarks(a, p, wm_union(a, sides[0].wm, sides[1].wm));
    /* Spark's condition for outer and semi joins: the rows that may go
     * unmatched must leave the state some day. */
    bool ok = kind == WEIR_SQL_JOIN_INNER ||
              ((kind == WEIR_SQL_JOIN_LEFT || kind == WEIR_SQL_JOIN_SEMI) &&
               p->side[0].can_evict) ||
              (kind == WEIR_SQL_JOIN_RIGHT && p->side[1].can_evict) ||
              (kind == WEIR_SQL_JOIN_FULL &&
               (p->side[0].can_evict || p->side[1].can_evict));
    if (!ok && !a->rc) {
        weir_sql_sop *op = &a->ops.items[a->join_op];
        op->kind = WEIR_SQL_SOP_UNSUPPORTED;
        op->what = weir__arena_printf(
            a->arena,
            "Stream-stream %s join between two streaming DataFrame/Datasets "
            "is not supported without a watermark in the join keys, or a "
            "watermark on the nullable side and an appropriate range "
            "condition",
            kind == WEIR_SQL_JOIN_LEFT    ? "LeftOuter"
            : kind == WEIR_SQL_JOIN_RIGHT ? "RightOuter"
            : kind == WEIR_SQL_JOIN_FULL  ? "FullOuter"
                                          : "LeftSemi");
        if (!op->what)
            a->rc = WEIR_ENOMEM;
        return NULL;
    }
    return a->rc ? NULL : p;
}

static void select_ops(an *a, const weir_sql_query *q, const facts *from)
{
    const sql_select *s = q->sel;
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
    dedup_kind dedup = dedup_of(a, s);
    if (dedup) {
        dedup_op(a, q, from, dedup);
        return;
    }
    if (x.window || qx.window) {
        const weir_sql_expr *w = x.window ? x.window : qx.window;
        const char *col = NULL;
        for (size_t i = 0; i < s->n_items && !col; i++)
            if (s->items[i].e == w)
                col = s->items[i].alias;
        if (col && !strncmp(col, "__weir_", 7))
            col = NULL; /* a name of the Python translation's own */
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
        if (op && (op->watermarked = grouped_by_event_time(s, from)))
            op->plan = agg_plan(a, q, from);
    }
}

/* ---- an aggregation straight over a join of two streams ------------------ */

/* The columns the aggregation reads of the join, for the subquery that
 * does the join, each by its own name (side.col as col: the operators
 * find event times by name); two of one name are not planned. */
typedef struct join_cols {
    an *a;
    const char *alias[2];
    sql_item *items;
    size_t n, cap;
    bool other; /* an expression this does not rewrite (a subquery, a
                   window function): not planned here */
} join_cols;

static const char *join_col(join_cols *c, const char *side, const char *col,
                            weir_sql_pos pos, const weir_sql_source *src)
{
    an *a = c->a;
    for (size_t i = 0; i < c->n; i++) {
        const weir_sql_expr *e = c->items[i].e;
        if (!weir__str_ieq(e->names[e->n_names - 1], col))
            continue;
        bool same = side ? e->n_names == 2 && weir__str_ieq(e->names[0], side)
                         : e->n_names == 1;
        if (!same)
            c->other = true; /* two columns of one name: not planned */
        return col;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        sql_item *items = alloc(a, cap * sizeof(*items));
        if (!items)
            return NULL;
        if (c->n)
            memcpy(items, c->items, c->n * sizeof(*items));
        c->items = items;
        c->cap = cap;
    }
    weir_sql_expr *e = id_column(a, side, pos, src, col);
    if (a->rc)
        return NULL;
    sql_item *it = &c->items[c->n++];
    memset(it, 0, sizeof(*it));
    it->e = e;
    it->pos = pos;
    it->alias = col;
    return col;
}

/* A copy of e reading the join's columns from the subquery's names. */
static weir_sql_expr *over_join(join_cols *c, const weir_sql_expr *e, int depth)
{
    an *a = c->a;
    if (!e || a->rc)
        return (weir_sql_expr *)e;
    if (depth > 4 * SQL_MAX_DEPTH || e->over || e->n_within ||
        e->kind == EX_SUBQUERY || e->kind == EX_EXISTS || e->query) {
        c->other = true;
        return (weir_sql_expr *)e;
    }
    weir_sql_expr *x = alloc(a, sizeof(*x));
    if (!x)
        return NULL;
    *x = *e;
    if (e->kind == EX_COLUMN && e->n_names) {
        bool side = e->n_names >= 2 && (weir__str_ieq(e->names[0], c->alias[0]) ||
                                        weir__str_ieq(e->names[0], c->alias[1]));
        const char *name = side ? join_col(c, e->names[0], e->names[1], e->pos, e->src)
                                : join_col(c, NULL, e->names[0], e->pos, e->src);
        size_t drop = side ? 1 : 0;
        const char **names = alloc(a, e->n_names * sizeof(*names));
        if (!name || !names)
            return NULL;
        names[0] = name;
        for (size_t i = 1 + drop; i < e->n_names; i++)
            names[i - drop] = e->names[i];
        x->names = names;
        x->n_names = e->n_names - drop;
        return x;
    }
    x->a = over_join(c, e->a, depth + 1);
    x->b = over_join(c, e->b, depth + 1);
    x->c = over_join(c, e->c, depth + 1);
    x->filter = over_join(c, e->filter, depth + 1);
    if (e->n) {
        x->list = alloc(a, e->n * sizeof(*x->list));
        for (size_t i = 0; x->list && i < e->n; i++)
            x->list[i] = over_join(c, e->list[i], depth + 1);
    }
    return x;
}

static void select_ops(an *a, const weir_sql_query *q, const facts *from);
static const wm_name *items_wm(an *a, const sql_select *s, const facts *from);

/* SELECT ... FROM <join of two streams> [WHERE] GROUP BY ... [HAVING], which
 * Spark plans as the join under the aggregation: planned as the same query
 * with the join in a subquery (sql-join-window), whose SELECT lists the
 * join's columns the rest reads. Unaliased items keep the names they had
 * (Spark's). Adds the aggregation's operator; false when q is not such a
 * query (it is then analysed as before). */
static bool join_aggregate(an *a, const weir_sql_query *q, const facts *sides)
{
    const sql_select *s = q->sel;
    const sql_rel *j = s->from;
    if (s->group != GB_EXPRS || s->distinct || s->qualify || s->n_windows ||
        j->natural || j->n_using)
        return false;
    join_cols c;
    memset(&c, 0, sizeof(c));
    c.a = a;
    c.alias[0] = weir__sql_rel_name(j->left, "");
    c.alias[1] = weir__sql_rel_name(j->right, "");
    sql_select *out = alloc(a, sizeof(*out));
    sql_item *items = alloc(a, s->n_items * sizeof(*items));
    weir_sql_expr **group = s->n_group_by ? alloc(a, s->n_group_by * sizeof(*group)) : NULL;
    if (a->rc)
        return false;
    *out = *s;
    for (size_t i = 0; i < s->n_items && !a->rc; i++) {
        items[i] = s->items[i];
        items[i].e = over_join(&c, s->items[i].e, 0);
        const weir_sql_expr *e = s->items[i].e;
        if (s->items[i].alias || a->rc || e->kind == EX_STAR ||
            (e->kind == EX_FUNC && (weir__str_ieq(e->name, "window") ||
                                    weir__str_ieq(e->name, "session_window"))))
            continue;
        weir_buf name = WEIR_BUF_INIT;
        weir__sql_pretty(&name, e, j);
        items[i].alias = name.failed ? NULL
                                     : weir__arena_strdup(a->arena, weir__buf_cstr(&name));
        weir__buf_free(&name);
        if (!items[i].alias)
            a->rc = WEIR_ENOMEM;
    }
    for (size_t i = 0; i < s->n_group_by && !a->rc; i++)
        group[i] = over_join(&c, s->group_by[i], 0);
    out->having = over_join(&c, s->having, 0);
    if (a->rc || c.other || !c.n)
        return false;
    for (size_t i = 0; i < s->n_items; i++)
        if (s->items[i].e->kind == EX_STAR)
            return false;
    /* SELECT <columns> FROM <join> WHERE ... : the join's query. */
    sql_select *in = alloc(a, sizeof(*in));
    sql_rel *sub = alloc(a, sizeof(*sub));
    if (a->rc)
        return false;
    in->items = c.items;
    in->n_items = c.n;
    in->from = (sql_rel *)j;
    in->where = s->where;
    in->pos = s->pos;
    weir_sql_query *inq = select_query(a, in, q->pos, q->src);
    if (!inq)
        return false;
    sub->kind = R_SUBQUERY;
    sub->pos = j->pos;
    sub->query = inq;
    sub->alias = "__weir_j";
    out->items = items;
    out->group_by = group;
    out->from = sub;
    out->where = NULL;
    weir_sql_query *outq = select_query(a, out, q->pos, q->src);
    if (!outq)
        return false;
    a->ops.items[a->join_op].plan = join_plan(a, inq, sides);
    facts joined = { true, NULL };
    facts all = { true, wm_union(a, sides[0].wm, sides[1].wm) };
    joined.wm = items_wm(a, in, &all);
    size_t before = a->ops.len;
    select_ops(a, outq, &joined);
    /* The flow reads the aggregation's output in q's place. */
    if (!a->rc && a->ops.len > before && a->ops.items[before].plan)
        ((weir_sql_state_plan *)a->ops.items[before].plan)->node = q;
    return true;
}

static facts select_facts(an *a, const weir_sql_query *q, const cte_frame *sc)
{
    const sql_select *s = q->sel;
    size_t first = a->ops.len;
    facts from = rel_facts(a, s->from, sc);
    facts f = { from.streaming, NULL };
    if (!from.streaming)
        return f;
    size_t mine = a->ops.len;
    if (s->from && a->join == s->from && !a->rc &&
        join_aggregate(a, q, a->join_sides)) {
        /* planned: the join's operator and the aggregation's */
    } else {
        if (s->from && a->join == s->from && !a->rc)
            a->ops.items[a->join_op].plan = join_plan(a, q, a->join_sides);
        select_ops(a, q, &from);
    }
    /* A stateful operator over another's output: a chain. */
    weir_sql_state_plan *p =
        !a->rc && a->ops.len > mine
            ? (weir_sql_state_plan *)a->ops.items[a->ops.len - 1].plan
            : NULL;
    for (size_t i = mine; p && i-- > first;)
        if (a->ops.items[i].plan && a->ops.items[i].plan != p) {
            p->below = a->ops.items[i].plan;
            break;
        }
    f.wm = items_wm(a, s, &from);
    return f;
}

/* The columns of s's output that carry a watermark of from's. */
static const wm_name *items_wm(an *a, const sql_select *s, const facts *from)
{
    const wm_name *wm = NULL;
    for (size_t i = 0; i < s->n_items; i++) {
        const sql_item *it = &s->items[i];
        if (it->e->kind == EX_STAR)
            wm = wm_union(a, wm, from->wm);
        else if (wm_expr(from->wm, it->e))
            wm = wm_add(a, wm, item_name(it), wm_of(from->wm, it->e), NULL);
    }
    return wm;
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

/* The plan of LIMIT n on a stream (Spark's streaming limit in append
 * mode): the count of rows written so far is the state; a batch writes
 * the first rows of q without its LIMIT, up to n in all. A stateful
 * operator below it (from index below of the operators) makes a chain. */
static const weir_sql_state_plan *limit_plan(an *a, const weir_sql_query *q,
                                             size_t below)
{
    weir_sql_state_plan *p = alloc(a, sizeof(*p));
    weir_sql_query *in = alloc(a, sizeof(*in));
    if (a->rc)
        return NULL;
    *in = *q;
    in->limit = NULL;
    p->kind = WEIR_SQL_SOP_LIMIT;
    p->node = q;
    p->ctx = a->ctx;
    p->input = in;
    p->limit = q->limit;
    p->event_wm = -1;
    for (size_t i = below; i-- > 0;)
        if (a->ops.items[i].plan) {
            p->below = a->ops.items[i].plan;
            break;
        }
    return p;
}

static facts body_facts(an *a, const weir_sql_query *q, const cte_frame *sc)
{
    facts f = { false, NULL };
    switch (q->kind) {
    case Q_SELECT: f = select_facts(a, q, sc); break;
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
    if (q->limit) {
        size_t below = a->ops.len;
        add(a, WEIR_SQL_SOP_LIMIT, q->limit_pos, "LIMIT");
        weir_sql_sop *op = last(a);
        if (op && !q->n_order && !q->offset)
            op->plan = limit_plan(a, q, below);
    }
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

const weir_sql_query *weir__sql_join_using(weir_arena *arena,
                                           const weir_sql_query *q,
                                           const char **cols, size_t n)
{
    if (!q || q->kind != Q_SELECT || !q->sel->from ||
        q->sel->from->kind != R_JOIN)
        return q;
    weir_sql_query *nq = weir__arena_alloc(arena, sizeof(*nq));
    sql_select *sel = weir__arena_alloc(arena, sizeof(*sel));
    sql_rel *j = weir__arena_alloc(arena, sizeof(*j));
    if (!nq || !sel || !j)
        return NULL;
    *nq = *q;
    *sel = *q->sel;
    *j = *q->sel->from;
    j->natural = false;
    j->using_cols = cols;
    j->n_using = n;
    sel->from = j;
    nq->sel = sel;
    return nq;
}
