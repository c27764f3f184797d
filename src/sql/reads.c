/*
 * Facts about a parsed query for the graph: what it reads (table references
 * outside the CTE names in scope, and table-valued calls, in source order,
 * subqueries included), whether an expression holds a subquery and the
 * columns it references.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "util/vec.h"

typedef sql_cte_scope scope;

typedef WEIR_VEC(weir_sql_relref) ref_vec;
typedef WEIR_VEC(weir_sql_tvf) tvf_vec;

/* Collects reads, or (count) counts the references to the CTEs of one
 * WITH. */
typedef struct walker {
    ref_vec refs;
    tvf_vec tvfs;
    int rc;
    const weir_sql_query *count; /* the WITH whose CTEs are counted */
    unsigned *n_refs;
    bool *keep;
    int open; /* as sql_tx's: outer columns in reach of a reference */
} walker;

const sql_cte_scope *weir__sql_cte_enter(sql_cte_scope *f, const weir_sql_query *q,
                                         size_t i, const sql_cte_scope *up)
{
    memset(f, 0, sizeof(*f));
    f->name = q->ctes[i].name;
    f->up = up;
    f->with = q;
    f->cte = &q->ctes[i];
    return q->recursive ? f : up;
}

const sql_cte_scope *weir__sql_cte_lookup(const sql_cte_scope *s,
                                          const char *name, bool *crossed)
{
    const weir_sql_query *first = s ? s->with : NULL;
    if (crossed)
        *crossed = false;
    for (; s; s = s->up) {
        if (crossed && s->with != first)
            *crossed = true;
        if (weir__str_ieq(s->name, name))
            return s;
    }
    return NULL;
}

/* A one-part table reference: a CTE in scope, or a read. */
static bool cte_ref(walker *w, const sql_rel *r, const scope *sc)
{
    if (r->name.n != 1)
        return false;
    bool crossed;
    const scope *f = weir__sql_cte_lookup(sc, r->name.parts[0], &crossed);
    if (!f)
        return false;
    if (w->count && f->with == w->count) {
        size_t i = (size_t)(f->cte - w->count->ctes);
        w->n_refs[i]++;
        if (crossed || w->open || (f->cte->n_cols && r->n_col_aliases))
            w->keep[i] = true;
    }
    return true;
}

static void walk_query(walker *w, const weir_sql_query *q, const scope *sc);
static void walk_rel(walker *w, const sql_rel *r, const scope *sc);

static void walk_expr(walker *w, const weir_sql_expr *e, const scope *sc)
{
    if (!e || w->rc)
        return;
    walk_expr(w, e->a, sc);
    walk_expr(w, e->b, sc);
    walk_expr(w, e->c, sc);
    for (size_t i = 0; i < e->n; i++)
        walk_expr(w, e->list[i], sc);
    walk_expr(w, e->filter, sc);
    if (e->query) {
        w->open++;
        walk_query(w, e->query, sc);
        w->open--;
    }
    if (e->over) {
        for (size_t i = 0; i < e->over->n_partition; i++)
            walk_expr(w, e->over->partition[i], sc);
        for (size_t i = 0; i < e->over->n_order; i++)
            walk_expr(w, e->over->order[i].e, sc);
    }
}

static void walk_select(walker *w, const sql_select *s, const scope *sc)
{
    /* FROM first: source order of reads is what users see first. */
    walk_rel(w, s->from, sc);
    for (size_t i = 0; i < s->n_items; i++)
        walk_expr(w, s->items[i].e, sc);
    walk_expr(w, s->where, sc);
    for (size_t i = 0; i < s->n_group_by; i++)
        walk_expr(w, s->group_by[i], sc);
    for (size_t i = 0; i < s->n_sets; i++)
        for (size_t k = 0; k < s->sets[i].n; k++)
            walk_expr(w, s->sets[i].e[k], sc);
    walk_expr(w, s->having, sc);
    walk_expr(w, s->qualify, sc);
}

static void walk_rel(walker *w, const sql_rel *r, const scope *sc)
{
    if (!r || w->rc)
        return;
    switch (r->kind) {
    case R_TABLE:
        if (cte_ref(w, r, sc) || w->count)
            break;
        {
            weir_sql_relref ref = { r->name, r->streaming, r };
            if (WEIR_VEC_PUSH(&w->refs, ref))
                w->rc = WEIR_ENOMEM;
        }
        break;
    case R_TVF:
        if (!w->count && WEIR_VEC_PUSH(&w->tvfs, *r->call))
            w->rc = WEIR_ENOMEM;
        for (size_t i = 0; i < r->n_args; i++)
            walk_expr(w, r->args[i], sc);
        break;
    case R_SUBQUERY:
        w->open += r->lateral;
        walk_query(w, r->query, sc);
        w->open -= r->lateral;
        break;
    case R_JOIN:
        walk_rel(w, r->left, sc);
        w->open++;
        walk_rel(w, r->right, sc);
        walk_expr(w, r->on, sc);
        w->open--;
        break;
    case R_LATERAL_VIEW:
        walk_rel(w, r->left, sc);
        walk_expr(w, r->gen, sc);
        break;
    }
}

static void walk_body(walker *w, const weir_sql_query *q, const scope *sc)
{
    switch (q->kind) {
    case Q_SELECT:
        walk_select(w, q->sel, sc);
        break;
    case Q_SETOP:
        walk_query(w, q->left, sc);
        if (q->right)
            walk_query(w, q->right, sc);
        break;
    case Q_VALUES:
        for (size_t i = 0; i < q->n_rows; i++)
            for (size_t k = 0; k < q->rows[i].n; k++)
                walk_expr(w, q->rows[i].v[k], sc);
        break;
    }
    for (size_t i = 0; i < q->n_order; i++)
        walk_expr(w, q->order[i].e, sc);
    walk_expr(w, q->limit, sc);
    walk_expr(w, q->offset, sc);
}

static void walk_query(walker *w, const weir_sql_query *q, const scope *sc)
{
    if (!q || w->rc)
        return;
    if (q->n_ctes == 0) {
        walk_body(w, q, sc);
        return;
    }
    /* Each CTE sees the ones before it (and itself when RECURSIVE). */
    scope *frames = calloc(q->n_ctes, sizeof(*frames));
    if (!frames) {
        w->rc = WEIR_ENOMEM;
        return;
    }
    const scope *cur = sc;
    for (size_t i = 0; i < q->n_ctes; i++) {
        walk_query(w, q->ctes[i].q, weir__sql_cte_enter(&frames[i], q, i, cur));
        cur = &frames[i];
    }
    walk_body(w, q, cur);
    free(frames);
}

int weir__sql_cte_refs(const weir_sql_query *q, unsigned *refs, bool *keep)
{
    walker w;
    memset(&w, 0, sizeof(w));
    w.count = q;
    w.n_refs = refs;
    w.keep = keep;
    memset(refs, 0, q->n_ctes * sizeof(*refs));
    memset(keep, 0, q->n_ctes * sizeof(*keep));
    walk_query(&w, q, NULL);
    return w.rc;
}

int weir__sql_query_reads(weir_sql_reads *out, weir_arena *arena,
                          const weir_sql_query *q, weir_error *err)
{
    walker w;
    memset(&w, 0, sizeof(w));
    memset(out, 0, sizeof(*out));
    walk_query(&w, q, NULL);
    if (!w.rc && w.refs.len) {
        out->refs = weir__arena_array(arena, w.refs.len, sizeof(*out->refs));
        if (!out->refs)
            w.rc = WEIR_ENOMEM;
        else
            memcpy(out->refs, w.refs.items, w.refs.len * sizeof(*out->refs));
        out->n_refs = w.refs.len;
    }
    if (!w.rc && w.tvfs.len) {
        out->tvfs = weir__arena_array(arena, w.tvfs.len, sizeof(*out->tvfs));
        if (!out->tvfs)
            w.rc = WEIR_ENOMEM;
        else
            memcpy(out->tvfs, w.tvfs.items, w.tvfs.len * sizeof(*out->tvfs));
        out->n_tvfs = w.tvfs.len;
    }
    WEIR_VEC_FREE(&w.refs);
    WEIR_VEC_FREE(&w.tvfs);
    if (w.rc)
        return WEIR_ERR(err, w.rc, NULL, "out of memory");
    return 0;
}

/* ------------------------------------------------------------------------
 * Subqueries of an expression
 * ------------------------------------------------------------------------ */

static bool has_subquery(const weir_sql_expr *e, int depth)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH)
        return false;
    if (e->kind == EX_SUBQUERY || e->kind == EX_EXISTS || e->query)
        return true;
    if (has_subquery(e->a, depth + 1) || has_subquery(e->b, depth + 1) ||
        has_subquery(e->c, depth + 1) || has_subquery(e->filter, depth + 1))
        return true;
    for (size_t i = 0; i < e->n; i++)
        if (has_subquery(e->list[i], depth + 1))
            return true;
    return false;
}

bool weir__sql_expr_has_subquery(const weir_sql_expr *e)
{
    return has_subquery(e, 0);
}

/* ------------------------------------------------------------------------
 * Columns of an expression
 * ------------------------------------------------------------------------ */

typedef WEIR_VEC(const char *) name_vec;

static int collect_columns(name_vec *v, const weir_sql_expr *e,
                           const sql_lambda_scope *lam, int depth)
{
    if (!e || depth > 4 * SQL_MAX_DEPTH)
        return 0;
    int rc = 0;
    if (e->kind == EX_COLUMN && e->n_names) {
        bool is_param = false;
        for (const sql_lambda_scope *l = lam; l && !is_param; l = l->up)
            for (size_t i = 0; i < l->n; i++)
                if (weir__str_ieq(l->params[i], e->names[0]))
                    is_param = true;
        const char *last = e->names[e->n_names - 1];
        bool seen = is_param;
        for (size_t i = 0; i < v->len && !seen; i++)
            if (weir__str_ieq(v->items[i], last))
                seen = true;
        if (!seen && WEIR_VEC_PUSH(v, last))
            return WEIR_ENOMEM;
        return 0;
    }
    sql_lambda_scope inner;
    if (e->kind == EX_LAMBDA) {
        inner.params = e->names;
        inner.n = e->n_names;
        inner.indexed = false;
        inner.up = (sql_lambda_scope *)lam;
        lam = &inner;
    }
    if ((rc = collect_columns(v, e->a, lam, depth + 1)) ||
        (rc = collect_columns(v, e->b, lam, depth + 1)) ||
        (rc = collect_columns(v, e->c, lam, depth + 1)) ||
        (rc = collect_columns(v, e->filter, lam, depth + 1)))
        return rc;
    for (size_t i = 0; i < e->n; i++)
        if ((rc = collect_columns(v, e->list[i], lam, depth + 1)))
            return rc;
    return 0;
}

int weir__sql_expr_columns(const char ***out, size_t *n_out, weir_arena *arena,
                           const weir_sql_expr *e)
{
    name_vec v = WEIR_VEC_INIT;
    int rc = collect_columns(&v, e, NULL, 0);
    *out = NULL;
    *n_out = 0;
    if (!rc && v.len) {
        *out = weir__arena_array(arena, v.len, sizeof(**out));
        if (!*out)
            rc = WEIR_ENOMEM;
        else
            memcpy(*out, v.items, v.len * sizeof(**out));
        *n_out = v.len;
    }
    WEIR_VEC_FREE(&v);
    return rc;
}
