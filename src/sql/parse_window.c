/*
 * Window specifications (OVER (PARTITION BY .. ORDER BY .. frame)) and
 * ORDER BY lists, shared by queries and window functions.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

#define OOMI(p) WEIR_ERR((p)->err, WEIR_ENOMEM, NULL, "out of memory")

int weir__sql_order_list(sql_order **out, size_t *n, sql_parser *p)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    do {
        weir_sql_expr *e = weir__sql_expr(p);
        if (!e)
            return WEIR_ESQL;
        *out = weir__sql_grow(p->arena, *out, &cap, *n, sizeof(**out));
        if (!*out)
            return OOMI(p);
        sql_order *o = &(*out)[(*n)++];
        memset(o, 0, sizeof(*o));
        o->e = e;
        if (weir__sql_accept_kw(p, "ASC"))
            o->dir = 1;
        else if (weir__sql_accept_kw(p, "DESC"))
            o->dir = 2;
        if (weir__sql_accept_kw(p, "NULLS")) {
            if (weir__sql_accept_kw(p, "FIRST"))
                o->nulls = 1;
            else if (weir__sql_accept_kw(p, "LAST"))
                o->nulls = 2;
            else
                return weir__sql_syntax_error(p);
        }
    } while (weir__sql_accept_op(p, ","));
    return 0;
}

static int frame_bound(sql_bound *b, sql_parser *p)
{
    if (weir__sql_accept_kw(p, "UNBOUNDED")) {
        if (weir__sql_accept_kw(p, "PRECEDING"))
            b->kind = 1;
        else if (weir__sql_accept_kw(p, "FOLLOWING"))
            b->kind = 5;
        else
            return weir__sql_syntax_error(p);
        return 0;
    }
    if (weir__sql_is_kw(p, 0, "CURRENT") && weir__sql_is_kw(p, 1, "ROW")) {
        p->i += 2;
        b->kind = 3;
        return 0;
    }
    b->n = weir__sql_expr(p);
    if (!b->n)
        return WEIR_ESQL;
    if (weir__sql_accept_kw(p, "PRECEDING"))
        b->kind = 2;
    else if (weir__sql_accept_kw(p, "FOLLOWING"))
        b->kind = 4;
    else
        return weir__sql_syntax_error(p);
    return 0;
}

int weir__sql_window_spec(sql_window **out, sql_parser *p)
{
    sql_window *w = weir__arena_alloc(p->arena, sizeof(*w));
    if (!w)
        return OOMI(p);
    w->pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
    int rc = weir__sql_expect_op(p, "(");
    if (rc)
        return rc;
    if (weir__sql_at_ident(p, 0) && !weir__sql_is_kw(p, 0, "PARTITION") &&
        !weir__sql_is_kw(p, 0, "DISTRIBUTE") && !weir__sql_is_kw(p, 0, "ROWS") &&
        !weir__sql_is_kw(p, 0, "RANGE"))
        w->ref = p->t[p->i++].text;
    if ((weir__sql_is_kw(p, 0, "PARTITION") ||
         weir__sql_is_kw(p, 0, "DISTRIBUTE")) &&
        weir__sql_is_kw(p, 1, "BY")) {
        p->i += 2;
        if ((rc = weir__sql_expr_list(&w->partition, &w->n_partition, p)))
            return rc;
    }
    if ((weir__sql_is_kw(p, 0, "ORDER") || weir__sql_is_kw(p, 0, "SORT")) &&
        weir__sql_is_kw(p, 1, "BY")) {
        p->i += 2;
        if ((rc = weir__sql_order_list(&w->order, &w->n_order, p)))
            return rc;
    }
    if (weir__sql_is_kw(p, 0, "ROWS") || weir__sql_is_kw(p, 0, "RANGE")) {
        w->frame = weir__sql_is_kw(p, 0, "ROWS") ? 1 : 2;
        p->i++;
        if (weir__sql_accept_kw(p, "BETWEEN")) {
            if ((rc = frame_bound(&w->start, p)) ||
                (rc = weir__sql_expect_kw(p, "AND")) ||
                (rc = frame_bound(&w->end, p)))
                return rc;
        } else if ((rc = frame_bound(&w->start, p))) {
            return rc;
        }
    }
    if ((rc = weir__sql_expect_op(p, ")")))
        return rc;
    *out = w;
    return 0;
}
