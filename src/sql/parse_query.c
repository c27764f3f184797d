/*
 * The Spark SQL query parser: WITH, set operations (INTERSECT binds tighter
 * than UNION/EXCEPT/MINUS), SELECT with its clauses, VALUES, ORDER/SORT/
 * CLUSTER/DISTRIBUTE BY, LIMIT/OFFSET, and the FROM
 * clause: tables (with STREAM and WATERMARK), table-valued functions,
 * subqueries, LATERAL, joins and LATERAL VIEW generators.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

static void *oomn(sql_parser *p)
{
    WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    return NULL;
}
#define OOMN(p) oomn(p)
#define OOMI(p) WEIR_ERR((p)->err, WEIR_ENOMEM, NULL, "out of memory")

static weir_sql_query *query_body(sql_parser *p);

static weir_sql_query *new_query(sql_parser *p, sql_query_kind k,
                                 const sql_token *at)
{
    weir_sql_query *q = weir__arena_alloc(p->arena, sizeof(*q));
    if (!q)
        return OOMN(p);
    q->kind = k;
    q->pos = weir__sql_tok_pos(at);
    q->src = p->src;
    return q;
}

static sql_rel *new_rel(sql_parser *p, sql_rel_kind k, const sql_token *at)
{
    sql_rel *r = weir__arena_alloc(p->arena, sizeof(*r));
    if (!r)
        return OOMN(p);
    r->kind = k;
    r->pos = weir__sql_tok_pos(at);
    return r;
}

/* The token at k closes a list item: EOF, ',', ')' or ';'. */
static bool at_item_close(const sql_parser *p, size_t k)
{
    return weir__sql_peek(p, k)->kind == TK_EOF || weir__sql_is_op(p, k, ",") ||
           weir__sql_is_op(p, k, ")") || weir__sql_is_op(p, k, ";");
}

/* An alias without AS: a name, or a clause word when the item ends right
 * after it (SELECT 1 limit, FROM t where: Spark's reading). */
static bool implicit_alias(const sql_parser *p)
{
    return weir__sql_at_ident(p, 0) ||
           (weir__sql_at_name(p, 0) && at_item_close(p, 1));
}

/* AS, unless it is the alias itself (SELECT 1 as). */
static bool accept_as(sql_parser *p)
{
    return !at_item_close(p, 1) && weir__sql_accept_kw(p, "AS");
}

/* [AS] alias [(c1, c2)] */
static int rel_alias(sql_rel *r, sql_parser *p)
{
    bool as = accept_as(p);
    /* Without AS a clause word starts the next clause. */
    if (!weir__sql_at_table_alias(p, 0) || (!as && !implicit_alias(p))) {
        if (as)
            return weir__sql_syntax_error(p);
        return 0;
    }
    r->alias = p->t[p->i++].text;
    if (weir__sql_is_op(p, 0, "(") &&
        (weir__sql_at_ident(p, 1) && (weir__sql_is_op(p, 2, ",") ||
                                      weir__sql_is_op(p, 2, ")"))))
        return weir__sql_ident_list(&r->col_aliases, &r->n_col_aliases, p);
    return 0;
}

/* The weir_sql_arg view of a TVF argument. */
static int tvf_arg(weir_sql_arg *a, sql_parser *p, const weir_sql_expr *e,
                   const char *name, int depth)
{
    memset(a, 0, sizeof(*a));
    a->name = name;
    a->pos = e->pos;
    if (e->kind == EX_LIT) {
        switch (e->lit) {
        case LIT_STRING: a->kind = WEIR_SQL_ARG_STRING; break;
        case LIT_BOOL: a->kind = WEIR_SQL_ARG_BOOL; break;
        case LIT_NULL: a->kind = WEIR_SQL_ARG_NULL; break;
        case LIT_INT: case LIT_BIGINT: case LIT_SMALLINT: case LIT_TINYINT:
        case LIT_DECIMAL: case LIT_DOUBLE: case LIT_FLOAT: case LIT_BIGDECIMAL:
            a->kind = WEIR_SQL_ARG_NUMBER;
            break;
        default: a->kind = WEIR_SQL_ARG_OTHER; break;
        }
        if (a->kind != WEIR_SQL_ARG_OTHER) {
            a->text = e->text;
            return 0;
        }
    }
    if (e->kind == EX_FUNC && weir__str_ieq(e->name, "map") && e->n % 2 == 0 &&
        depth < 4) {
        a->kind = WEIR_SQL_ARG_MAP;
        a->n_items = e->n;
        a->items = weir__arena_array(p->arena, e->n ? e->n : 1, sizeof(*a->items));
        if (!a->items)
            return OOMI(p);
        for (size_t i = 0; i < e->n; i++) {
            int rc = tvf_arg(&a->items[i], p, e->list[i], NULL, depth + 1);
            if (rc)
                return rc;
        }
        a->text = weir__arena_strndup(p->arena, p->src->text + e->pos.offset,
                                      e->end - e->pos.offset);
        return a->text ? 0 : OOMI(p);
    }
    a->kind = WEIR_SQL_ARG_OTHER;
    a->text = weir__arena_strndup(p->arena, p->src->text + e->pos.offset,
                                  e->end > e->pos.offset ? e->end - e->pos.offset
                                                         : 0);
    return a->text ? 0 : OOMI(p);
}

/* name(args) in FROM; at points at the name's first token. */
static sql_rel *tvf_rel(sql_parser *p, const sql_token *at,
                        const weir_sql_name *name, bool streaming)
{
    sql_rel *r = new_rel(p, R_TVF, at);
    if (!r)
        return NULL;
    r->name = *name;
    r->streaming = streaming;
    if (weir__sql_expect_op(p, "("))
        return NULL;
    size_t cap = 0, ncap = 0;
    if (!weir__sql_accept_op(p, ")")) {
        do {
            const char *an = NULL;
            if (weir__sql_at_name(p, 0) && weir__sql_is_op(p, 1, "=>")) {
                an = p->t[p->i].text;
                p->i += 2;
            }
            weir_sql_expr *e = weir__sql_expr(p);
            if (!e)
                return NULL;
            r->args = weir__sql_grow(p->arena, r->args, &cap, r->n_args,
                                     sizeof(*r->args));
            r->arg_names = weir__sql_grow(p->arena, r->arg_names, &ncap,
                                          r->n_args, sizeof(*r->arg_names));
            if (!r->args || !r->arg_names)
                return OOMN(p);
            r->args[r->n_args] = e;
            r->arg_names[r->n_args++] = an;
        } while (weir__sql_accept_op(p, ","));
        if (weir__sql_expect_op(p, ")"))
            return NULL;
    }
    weir_sql_tvf *c = weir__arena_alloc(p->arena, sizeof(*c));
    if (!c)
        return OOMN(p);
    char *lname = weir__arena_strdup(p->arena, name->parts[name->n - 1]);
    if (!lname)
        return OOMN(p);
    weir__str_lower(lname);
    c->name = lname;
    c->streaming = streaming;
    c->pos = r->pos;
    c->node = r;
    c->n_args = r->n_args;
    c->args = weir__arena_array(p->arena, r->n_args ? r->n_args : 1,
                                sizeof(*c->args));
    if (!c->args)
        return OOMN(p);
    for (size_t i = 0; i < r->n_args; i++)
        if (tvf_arg(&c->args[i], p, r->args[i], r->arg_names[i], 0))
            return NULL;
    r->call = c;
    return r;
}

static int check_name(sql_parser *p, const weir_sql_name *n, const sql_token *at)
{
    if (n->n >= 4) {
        weir_buf b = WEIR_BUF_INIT;
        for (size_t i = 0; i < n->n; i++) {
            if (i)
                weir__buf_putc(&b, '.');
            weir__buf_puts(&b, n->parts[i]);
        }
        int rc = weir__sql_error_tok(
            p, at, WEIR_ESQL, "REQUIRES_SINGLE_PART_NAMESPACE",
            "4+ part table identifier %s is not supported.", weir__buf_cstr(&b));
        weir__buf_free(&b);
        return rc;
    }
    return 0;
}

static int watermark(sql_rel *r, sql_parser *p)
{
    if (!weir__sql_is_kw(p, 0, "WATERMARK") || weir__sql_at_end_of_item(p, 1))
        return 0;
    p->i++;
    if (!(r->wm_col = weir__sql_expr(p)))
        return WEIR_ESQL;
    if (weir__sql_accept_kw(p, "AS") && !weir__sql_ident(p))
        return WEIR_ESQL;
    int rc;
    if ((rc = weir__sql_expect_kw(p, "DELAY")) ||
        (rc = weir__sql_expect_kw(p, "OF")))
        return rc;
    if (!(r->wm_delay = weir__sql_expr(p)))
        return WEIR_ESQL;
    return 0;
}

static sql_rel *relation(sql_parser *p);

static sql_rel *stream_rel(sql_parser *p, const sql_token *at)
{
    bool paren = weir__sql_accept_op(p, "(");
    if (paren && (weir__sql_is_kw(p, 0, "SELECT") || weir__sql_is_kw(p, 0, "WITH"))) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    weir_sql_name name;
    const sql_token *nt = weir__sql_peek(p, 0);
    if (weir__sql_parse_name(&name, p) || check_name(p, &name, nt))
        return NULL;
    weir__sql_strip_live(&name);
    sql_rel *r;
    if (weir__sql_is_op(p, 0, "(")) {
        r = tvf_rel(p, nt, &name, true);
        if (!r)
            return NULL;
    } else {
        r = new_rel(p, R_TABLE, nt);
        if (!r)
            return NULL;
        r->name = name;
        r->streaming = true;
    }
    r->pos = weir__sql_tok_pos(at);
    if (paren && weir__sql_expect_op(p, ")"))
        return NULL;
    if (weir__sql_is_kw(p, 0, "WITH") && weir__sql_is_op(p, 1, "(")) {
        /* STREAM t WITH ('k' = 'v'): read options are not supported. */
        weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                            "UNSUPPORTED_SPARK_SQL",
                            "Read options on STREAM (WITH (...)) are not "
                            "supported");
        return NULL;
    }
    if (watermark(r, p) || rel_alias(r, p))
        return NULL;
    return r;
}

static sql_rel *values_rel(sql_parser *p, const sql_token *at)
{
    weir_sql_query *q = query_body(p);
    if (!q)
        return NULL;
    sql_rel *r = new_rel(p, R_SUBQUERY, at);
    if (!r)
        return NULL;
    r->query = q;
    /* Spark also takes column aliases alone: VALUES (1, 'a') AS (id, name). */
    if (weir__sql_is_kw(p, 0, "AS") && weir__sql_is_op(p, 1, "(")) {
        p->i++;
        if (weir__sql_ident_list(&r->col_aliases, &r->n_col_aliases, p))
            return NULL;
        return r;
    }
    if (rel_alias(r, p))
        return NULL;
    return r;
}

static sql_rel *relation_primary(sql_parser *p)
{
    const sql_token *at = weir__sql_peek(p, 0);
    if (++p->depth > SQL_MAX_DEPTH) {
        weir__sql_error_tok(p, at, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                            "Query nested too deeply");
        return NULL;
    }
    sql_rel *r = NULL;
    if (weir__sql_is_kw(p, 0, "STREAM") &&
        (weir__sql_is_op(p, 1, "(") || weir__sql_at_ident(p, 1))) {
        p->i++;
        r = stream_rel(p, at);
    } else if (weir__sql_is_kw(p, 0, "LATERAL") && weir__sql_is_op(p, 1, "(")) {
        p->i += 2;
        r = new_rel(p, R_SUBQUERY, at);
        if (r) {
            r->lateral = true;
            if (!(r->query = weir__sql_query(p)) || weir__sql_expect_op(p, ")") ||
                rel_alias(r, p))
                r = NULL;
        }
    } else if (weir__sql_is_kw(p, 0, "VALUES") && !weir__sql_at_end_of_item(p, 1)) {
        r = values_rel(p, at);
    } else if (weir__sql_is_op(p, 0, "(")) {
        size_t k = 1;
        while (weir__sql_is_op(p, k, "("))
            k++;
        bool is_query = weir__sql_is_kw(p, k, "SELECT") ||
                        weir__sql_is_kw(p, k, "WITH") ||
                        weir__sql_is_kw(p, k, "VALUES") ||
                        weir__sql_is_kw(p, k, "TABLE");
        p->i++;
        if (is_query) {
            r = new_rel(p, R_SUBQUERY, at);
            if (r && (!(r->query = weir__sql_query(p)) ||
                      weir__sql_expect_op(p, ")") || watermark(r, p) ||
                      rel_alias(r, p)))
                r = NULL;
        } else {
            r = relation(p);
            if (r && weir__sql_expect_op(p, ")"))
                r = NULL;
            if (r && r->kind != R_JOIN && r->kind != R_LATERAL_VIEW &&
                !r->alias && rel_alias(r, p))
                r = NULL;
        }
    } else {
        weir_sql_name name;
        if (weir__sql_parse_name(&name, p) || check_name(p, &name, at)) {
            r = NULL;
        } else {
            weir__sql_strip_live(&name);
            if (weir__sql_is_op(p, 0, "(")) {
                r = tvf_rel(p, at, &name, false);
            } else {
                r = new_rel(p, R_TABLE, at);
                if (r)
                    r->name = name;
            }
            if (r && weir__sql_is_kw(p, 0, "TABLESAMPLE") &&
                !weir__sql_at_end_of_item(p, 1)) {
                weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                                    "UNSUPPORTED_SPARK_SQL",
                                    "TABLESAMPLE is not supported");
                r = NULL;
            }
            if (r && (watermark(r, p) || rel_alias(r, p)))
                r = NULL;
        }
    }
    p->depth--;
    return r;
}

static bool join_kind(sql_parser *p, sql_join_kind *kind, bool *natural)
{
    size_t k = 0;
    *natural = false;
    if (weir__sql_is_kw(p, 0, "NATURAL")) {
        *natural = true;
        k = 1;
    }
    sql_join_kind j = 0;
    size_t used = 0;
    if (weir__sql_is_kw(p, k, "JOIN")) {
        j = J_INNER;
    } else if (weir__sql_is_kw(p, k, "INNER") && weir__sql_is_kw(p, k + 1, "JOIN")) {
        j = J_INNER;
        used = 1;
    } else if (weir__sql_is_kw(p, k, "CROSS") && weir__sql_is_kw(p, k + 1, "JOIN")) {
        j = J_CROSS;
        used = 1;
    } else if (weir__sql_is_kw(p, k, "LEFT") || weir__sql_is_kw(p, k, "RIGHT") ||
               weir__sql_is_kw(p, k, "FULL")) {
        j = weir__sql_is_kw(p, k, "LEFT")    ? J_LEFT
            : weir__sql_is_kw(p, k, "RIGHT") ? J_RIGHT
                                             : J_FULL;
        used = 1;
        if (weir__sql_is_kw(p, k + 1, "OUTER")) {
            used = 2;
        } else if (j == J_LEFT && weir__sql_is_kw(p, k + 1, "SEMI")) {
            j = J_SEMI;
            used = 2;
        } else if (j == J_LEFT && weir__sql_is_kw(p, k + 1, "ANTI")) {
            j = J_ANTI;
            used = 2;
        }
        if (!weir__sql_is_kw(p, k + used, "JOIN"))
            return false;
    } else if ((weir__sql_is_kw(p, k, "SEMI") || weir__sql_is_kw(p, k, "ANTI")) &&
               weir__sql_is_kw(p, k + 1, "JOIN")) {
        j = weir__sql_is_kw(p, k, "SEMI") ? J_SEMI : J_ANTI;
        used = 1;
    } else {
        return false;
    }
    p->i += k + used + 1; /* + JOIN */
    *kind = j;
    return true;
}

static sql_rel *relation(sql_parser *p)
{
    sql_rel *l = relation_primary(p);
    while (l) {
        const sql_token *at = weir__sql_peek(p, 0);
        sql_join_kind kind;
        bool natural;
        if (!join_kind(p, &kind, &natural))
            break;
        sql_rel *j = new_rel(p, R_JOIN, at);
        if (!j)
            return NULL;
        j->join = kind;
        j->natural = natural;
        j->left = l;
        j->right = relation_primary(p);
        if (!j->right)
            return NULL;
        if (weir__sql_accept_kw(p, "ON")) {
            if (!(j->on = weir__sql_expr(p)))
                return NULL;
        } else if (weir__sql_is_kw(p, 0, "USING")) {
            p->i++;
            if (weir__sql_ident_list(&j->using_cols, &j->n_using, p))
                return NULL;
        }
        l = j;
    }
    return l;
}

static sql_rel *from_clause(sql_parser *p)
{
    sql_rel *l = relation(p);
    while (l && weir__sql_is_op(p, 0, ",")) {
        const sql_token *at = &p->t[p->i++];
        sql_rel *j = new_rel(p, R_JOIN, at);
        if (!j)
            return NULL;
        j->join = J_COMMA;
        j->left = l;
        if (!(j->right = relation(p)))
            return NULL;
        l = j;
    }
    while (l && weir__sql_is_kw(p, 0, "LATERAL") && weir__sql_is_kw(p, 1, "VIEW")) {
        const sql_token *at = weir__sql_peek(p, 0);
        p->i += 2;
        sql_rel *v = new_rel(p, R_LATERAL_VIEW, at);
        if (!v)
            return NULL;
        v->left = l;
        v->outer = weir__sql_accept_kw(p, "OUTER");
        if (!(v->gen = weir__sql_expr(p)))
            return NULL;
        if (v->gen->kind != EX_FUNC) {
            weir__sql_error_tok(p, at, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                                "LATERAL VIEW needs a generator function call");
            return NULL;
        }
        /* tblName [AS] col (, col)* ; the table name may be omitted when AS
         * follows directly. */
        if (weir__sql_at_ident(p, 0))
            v->alias = p->t[p->i++].text;
        if (weir__sql_accept_kw(p, "AS") || (weir__sql_at_ident(p, 0))) {
            size_t cap = 0;
            do {
                const char *c = weir__sql_ident(p);
                if (!c)
                    return NULL;
                v->col_aliases = weir__sql_grow(p->arena, v->col_aliases, &cap,
                                                v->n_col_aliases,
                                                sizeof(*v->col_aliases));
                if (!v->col_aliases)
                    return OOMN(p);
                v->col_aliases[v->n_col_aliases++] = c;
            } while (weir__sql_accept_op(p, ","));
        }
        l = v;
    }
    if (l && (weir__sql_is_kw(p, 0, "PIVOT") || weir__sql_is_kw(p, 0, "UNPIVOT"))) {
        weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                            "UNSUPPORTED_SPARK_SQL", "%s is not supported",
                            weir__sql_is_kw(p, 0, "PIVOT") ? "PIVOT" : "UNPIVOT");
        return NULL;
    }
    return l;
}

/* Append a select item for e, written at token at; NULL when out of
 * memory. */
static sql_item *push_item(sql_select *s, sql_parser *p, size_t *cap,
                           weir_sql_expr *e, const sql_token *at)
{
    s->items = weir__sql_grow(p->arena, s->items, cap, s->n_items,
                              sizeof(*s->items));
    if (!s->items)
        return NULL;
    sql_item *it = &s->items[s->n_items++];
    memset(it, 0, sizeof(*it));
    it->e = e;
    it->pos = weir__sql_tok_pos(at);
    return it;
}

/* The DataFrame translation's own star forms (connect/plan_ops.c), which
 * Spark SQL lacks: `* __weir_replace (v AS c, ...)` (withColumns: c keeps
 * its position, or is appended when the relation has none) and `*
 * __weir_rename (a AS b, ...)` (withColumnsRenamed: in place; a missing
 * column is no error). The pairs become the select's next items, last in
 * the list, so that analyses see each value under its name; star->op says
 * which form it is. */
static int star_form(sql_select *s, sql_parser *p, weir_sql_expr *star, size_t *cap)
{
    bool replace = weir__sql_is_kw(p, 0, "__weir_replace");
    star->op = replace ? "REPLACE" : "RENAME";
    p->i += 2;
    do {
        const sql_token *at = weir__sql_peek(p, 0);
        weir_sql_expr *e = weir__sql_expr(p);
        if (!e)
            return WEIR_ESQL;
        if ((!replace && e->kind != EX_COLUMN) || !weir__sql_accept_kw(p, "AS") ||
            !weir__sql_at_name(p, 0))
            return weir__sql_syntax_error(p);
        sql_item *it = push_item(s, p, cap, e, at);
        if (!it)
            return OOMI(p);
        it->alias = p->t[p->i++].text;
    } while (weir__sql_accept_op(p, ","));
    if (weir__sql_expect_op(p, ")"))
        return WEIR_ESQL;
    return weir__sql_is_op(p, 0, ",") ? weir__sql_syntax_error(p) : 0;
}

static int select_items(sql_select *s, sql_parser *p)
{
    size_t cap = 0;
    do {
        const sql_token *at = weir__sql_peek(p, 0);
        weir_sql_expr *e = weir__sql_expr(p);
        if (!e)
            return WEIR_ESQL;
        sql_item *it = push_item(s, p, &cap, e, at);
        if (!it)
            return OOMI(p);
        if (e->kind == EX_STAR && !e->n_names && weir__sql_is_op(p, 1, "(") &&
            (weir__sql_is_kw(p, 0, "__weir_replace") || weir__sql_is_kw(p, 0, "__weir_rename")))
            return star_form(s, p, e, &cap);
        bool as = accept_as(p);
        if (as && weir__sql_is_op(p, 0, "(")) {
            int rc = weir__sql_ident_list(&it->aliases, &it->n_aliases, p);
            if (rc)
                return rc;
        } else if (as ? weir__sql_at_name(p, 0) : implicit_alias(p)) {
            it->alias = p->t[p->i++].text;
        } else if (as && weir__sql_peek(p, 0)->kind == TK_STRING) {
            it->alias = p->t[p->i++].text;
        } else if (as) {
            return weir__sql_syntax_error(p);
        }
    } while (weir__sql_accept_op(p, ","));
    return 0;
}

static int group_by(sql_select *s, sql_parser *p)
{
    int rc;
    if (weir__sql_is_kw(p, 0, "ALL") && !weir__sql_is_op(p, 1, ".") &&
        !weir__sql_is_op(p, 1, "(")) {
        p->i++;
        s->group = GB_ALL;
        return 0;
    }
    if ((weir__sql_is_kw(p, 0, "ROLLUP") || weir__sql_is_kw(p, 0, "CUBE")) &&
        weir__sql_is_op(p, 1, "(")) {
        s->group = weir__sql_is_kw(p, 0, "ROLLUP") ? GB_ROLLUP : GB_CUBE;
        p->i += 2;
        if ((rc = weir__sql_expr_list(&s->group_by, &s->n_group_by, p)))
            return rc;
        return weir__sql_expect_op(p, ")");
    }
    if (weir__sql_is_kw(p, 0, "GROUPING") && weir__sql_is_kw(p, 1, "SETS")) {
        s->group = GB_SETS;
    } else {
        s->group = GB_EXPRS;
        if ((rc = weir__sql_expr_list(&s->group_by, &s->n_group_by, p)))
            return rc;
        if (weir__sql_is_kw(p, 0, "WITH") &&
            (weir__sql_is_kw(p, 1, "ROLLUP") || weir__sql_is_kw(p, 1, "CUBE"))) {
            s->group = weir__sql_is_kw(p, 1, "ROLLUP") ? GB_ROLLUP : GB_CUBE;
            p->i += 2;
            return 0;
        }
        if (!(weir__sql_is_kw(p, 0, "GROUPING") && weir__sql_is_kw(p, 1, "SETS")))
            return 0;
        s->group = GB_SETS;
    }
    p->i += 2;
    if ((rc = weir__sql_expect_op(p, "(")))
        return rc;
    size_t cap = 0;
    do {
        s->sets = weir__sql_grow(p->arena, s->sets, &cap, s->n_sets,
                                 sizeof(*s->sets));
        if (!s->sets)
            return OOMI(p);
        sql_group_set *gs = &s->sets[s->n_sets++];
        memset(gs, 0, sizeof(*gs));
        if (weir__sql_is_op(p, 0, "(")) {
            p->i++;
            if (!weir__sql_accept_op(p, ")")) {
                if ((rc = weir__sql_expr_list(&gs->e, &gs->n, p)) ||
                    (rc = weir__sql_expect_op(p, ")")))
                    return rc;
            }
        } else {
            weir_sql_expr *e = weir__sql_expr(p);
            if (!e)
                return WEIR_ESQL;
            gs->e = weir__arena_array(p->arena, 1, sizeof(*gs->e));
            if (!gs->e)
                return OOMI(p);
            gs->e[0] = e;
            gs->n = 1;
        }
    } while (weir__sql_accept_op(p, ","));
    return weir__sql_expect_op(p, ")");
}

static weir_sql_query *select_query(sql_parser *p)
{
    const sql_token *at = &p->t[p->i++]; /* SELECT */
    weir_sql_query *q = new_query(p, Q_SELECT, at);
    if (!q)
        return NULL;
    sql_select *s = weir__arena_alloc(p->arena, sizeof(*s));
    if (!s)
        return OOMN(p);
    q->sel = s;
    s->pos = q->pos;
    /* SELECT distinct FROM t reads a column named distinct. */
    if (!weir__sql_at_end_of_item(p, 1)) {
        if (weir__sql_accept_kw(p, "DISTINCT"))
            s->distinct = true;
        else
            weir__sql_accept_kw(p, "ALL");
    }
    if (select_items(s, p))
        return NULL;
    if (weir__sql_accept_kw(p, "FROM") && !(s->from = from_clause(p)))
        return NULL;
    if (weir__sql_accept_kw(p, "WHERE") && !(s->where = weir__sql_expr(p)))
        return NULL;
    if (weir__sql_is_kw(p, 0, "GROUP") && weir__sql_is_kw(p, 1, "BY")) {
        p->i += 2;
        if (group_by(s, p))
            return NULL;
    }
    if (weir__sql_accept_kw(p, "HAVING") && !(s->having = weir__sql_expr(p)))
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (weir__sql_accept_kw(p, "WINDOW")) {
            size_t cap = 0;
            do {
                const char *name = weir__sql_ident(p);
                if (!name || weir__sql_expect_kw(p, "AS"))
                    return NULL;
                s->windows = weir__sql_grow(p->arena, s->windows, &cap,
                                            s->n_windows, sizeof(*s->windows));
                if (!s->windows)
                    return OOMN(p);
                sql_named_window *nw = &s->windows[s->n_windows++];
                nw->name = name;
                if (weir__sql_window_spec(&nw->w, p))
                    return NULL;
            } while (weir__sql_accept_op(p, ","));
        }
        if (weir__sql_accept_kw(p, "QUALIFY") && !(s->qualify = weir__sql_expr(p)))
            return NULL;
    }
    q->end = weir__sql_prev_end(p);
    return q;
}

static weir_sql_query *values_query(sql_parser *p)
{
    const sql_token *at = &p->t[p->i++]; /* VALUES */
    weir_sql_query *q = new_query(p, Q_VALUES, at);
    if (!q)
        return NULL;
    size_t cap = 0;
    do {
        q->rows = weir__sql_grow(p->arena, q->rows, &cap, q->n_rows,
                                 sizeof(*q->rows));
        if (!q->rows)
            return OOMN(p);
        sql_row *row = &q->rows[q->n_rows++];
        memset(row, 0, sizeof(*row));
        weir_sql_expr *e = weir__sql_expr(p);
        if (!e)
            return NULL;
        if (e->kind == EX_TUPLE) {
            row->v = e->list;
            row->n = e->n;
        } else {
            row->v = weir__arena_array(p->arena, 1, sizeof(*row->v));
            if (!row->v)
                return OOMN(p);
            row->v[0] = e;
            row->n = 1;
        }
        if (q->n_rows > 1 && row->n != q->rows[0].n) {
            weir__sql_error_tok(p, at, WEIR_ESQL, "INVALID_INLINE_TABLE",
                                "Invalid inline table: the number of columns "
                                "must be the same in every row");
            return NULL;
        }
    } while (weir__sql_accept_op(p, ","));
    q->end = weir__sql_prev_end(p);
    return q;
}

weir_sql_query *weir__sql_relation_query(sql_parser *p, const sql_token *at)
{
    if (!at)
        at = weir__sql_peek(p, 0);
    weir_sql_query *q = new_query(p, Q_SELECT, at);
    sql_select *s = weir__arena_alloc(p->arena, sizeof(*s));
    sql_item *it = weir__arena_alloc(p->arena, sizeof(*it));
    weir_sql_expr *star = weir__arena_alloc(p->arena, sizeof(*star));
    if (!q || !s || !it || !star)
        return OOMN(p);
    star->kind = EX_STAR;
    star->pos = q->pos;
    star->src = p->src;
    it->e = star;
    s->items = it;
    s->n_items = 1;
    q->sel = s;
    if (!(s->from = relation_primary(p)))
        return NULL;
    q->end = weir__sql_prev_end(p);
    return q;
}

static weir_sql_query *query_primary(sql_parser *p)
{
    if (weir__sql_is_kw(p, 0, "SELECT"))
        return select_query(p);
    if (weir__sql_is_kw(p, 0, "VALUES"))
        return values_query(p);
    if (weir__sql_is_kw(p, 0, "TABLE") && weir__sql_at_ident(p, 1)) {
        /* TABLE t == SELECT * FROM t */
        const sql_token *at = &p->t[p->i++];
        return weir__sql_relation_query(p, at);
    }
    if (weir__sql_is_op(p, 0, "(")) {
        p->i++;
        weir_sql_query *q = weir__sql_query(p);
        if (!q || weir__sql_expect_op(p, ")"))
            return NULL;
        return q;
    }
    weir__sql_syntax_error(p);
    return NULL;
}

static weir_sql_query *setop(sql_parser *p, weir_sql_query *l,
                             const sql_token *at, const char *op,
                             weir_sql_query *(*next)(sql_parser *))
{
    weir_sql_query *q = new_query(p, Q_SETOP, at);
    if (!q)
        return NULL;
    q->setop = op;
    q->left = l;
    q->pos = l->pos;
    if (weir__sql_accept_kw(p, "ALL"))
        q->all = true;
    else
        weir__sql_accept_kw(p, "DISTINCT");
    if (weir__sql_is_kw(p, 0, "BY") && weir__sql_is_kw(p, 1, "NAME")) {
        p->i += 2;
        q->by_name = true;
    }
    if (!(q->right = next(p)))
        return NULL;
    q->end = weir__sql_prev_end(p);
    return q;
}

static weir_sql_query *intersect_chain(sql_parser *p)
{
    if (++p->depth > SQL_MAX_DEPTH) {
        weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                            "PARSE_SYNTAX_ERROR", "Query nested too deeply");
        return NULL;
    }
    weir_sql_query *l = query_primary(p);
    while (l && weir__sql_is_kw(p, 0, "INTERSECT")) {
        const sql_token *at = &p->t[p->i++];
        l = setop(p, l, at, "INTERSECT", query_primary);
    }
    p->depth--;
    return l;
}

static weir_sql_query *query_body(sql_parser *p)
{
    weir_sql_query *l = intersect_chain(p);
    while (l && (weir__sql_is_kw(p, 0, "UNION") || weir__sql_is_kw(p, 0, "EXCEPT") ||
                 weir__sql_is_kw(p, 0, "MINUS"))) {
        const sql_token *at = &p->t[p->i++];
        const char *op = weir__str_ieq(at->text, "UNION") ? "UNION" : "EXCEPT";
        l = setop(p, l, at, op, intersect_chain);
    }
    return l;
}

static int ctes(weir_sql_query *q, sql_parser *p)
{
    /* WITH recursive AS (..) names a CTE recursive. */
    q->recursive = !weir__sql_is_kw(p, 1, "AS") && weir__sql_accept_kw(p, "RECURSIVE");
    size_t cap = 0;
    do {
        const sql_token *at = weir__sql_peek(p, 0);
        const char *name = weir__sql_name_part(p);
        if (!name)
            return WEIR_ESQL;
        for (size_t i = 0; i < q->n_ctes; i++)
            if (weir__str_ieq(q->ctes[i].name, name)) {
                weir__sql_error_tok(p, at, WEIR_ESQL, "DUPLICATED_CTE_NAMES",
                                    "CTE definition can't have duplicate "
                                    "names: `%s`.",
                                    name);
                return WEIR_ESQL;
            }
        q->ctes = weir__sql_grow(p->arena, q->ctes, &cap, q->n_ctes,
                                 sizeof(*q->ctes));
        if (!q->ctes)
            return OOMI(p);
        sql_cte *c = &q->ctes[q->n_ctes++];
        memset(c, 0, sizeof(*c));
        c->name = name;
        c->pos = weir__sql_tok_pos(at);
        int rc;
        if (weir__sql_is_op(p, 0, "(") &&
            (rc = weir__sql_ident_list(&c->cols, &c->n_cols, p)))
            return rc;
        weir__sql_accept_kw(p, "AS");
        if ((rc = weir__sql_expect_op(p, "(")))
            return rc;
        if (!(c->q = weir__sql_query(p)))
            return WEIR_ESQL;
        if ((rc = weir__sql_expect_op(p, ")")))
            return rc;
    } while (weir__sql_accept_op(p, ","));
    return 0;
}

weir_sql_query *weir__sql_query(sql_parser *p)
{
    const sql_token *at = weir__sql_peek(p, 0);
    if (++p->depth > SQL_MAX_DEPTH) {
        weir__sql_error_tok(p, at, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                            "Query nested too deeply");
        return NULL;
    }
    sql_cte *cs = NULL;
    size_t n_cs = 0;
    bool recursive = false;
    if (weir__sql_accept_kw(p, "WITH")) {
        weir_sql_query tmp;
        memset(&tmp, 0, sizeof(tmp));
        if (ctes(&tmp, p)) {
            p->depth--;
            return NULL;
        }
        cs = tmp.ctes;
        n_cs = tmp.n_ctes;
        recursive = tmp.recursive;
    }
    weir_sql_query *body = query_body(p);
    if (!body) {
        p->depth--;
        return NULL;
    }
    /* Modifiers that apply to the whole body. If the body already has its
     * own (a parenthesised query), wrap it. */
    bool has_mod = weir__sql_is_kw(p, 0, "ORDER") || weir__sql_is_kw(p, 0, "SORT") ||
                   weir__sql_is_kw(p, 0, "CLUSTER") ||
                   weir__sql_is_kw(p, 0, "DISTRIBUTE") ||
                   weir__sql_is_kw(p, 0, "LIMIT") || weir__sql_is_kw(p, 0, "OFFSET");
    weir_sql_query *q = body;
    if ((has_mod && (body->n_order || body->limit || body->offset ||
                     body->n_distribute)) ||
        (n_cs && body->n_ctes)) {
        q = new_query(p, Q_SETOP, at);
        if (!q) {
            p->depth--;
            return NULL;
        }
        /* A one-armed "set operation" is a plain wrapper: SELECT * FROM (body). */
        q->setop = NULL;
        q->left = body;
        q->pos = body->pos;
    }
    if (n_cs) {
        q->ctes = cs;
        q->n_ctes = n_cs;
        q->recursive = recursive;
        q->pos = weir__sql_tok_pos(at);
    }
    int rc = 0;
    if ((weir__sql_is_kw(p, 0, "ORDER") || weir__sql_is_kw(p, 0, "SORT")) &&
        weir__sql_is_kw(p, 1, "BY")) {
        p->i += 2;
        rc = weir__sql_order_list(&q->order, &q->n_order, p);
    }
    if (!rc && (weir__sql_is_kw(p, 0, "CLUSTER") ||
                weir__sql_is_kw(p, 0, "DISTRIBUTE")) &&
        weir__sql_is_kw(p, 1, "BY")) {
        bool cluster = weir__sql_is_kw(p, 0, "CLUSTER");
        p->i += 2;
        rc = weir__sql_expr_list(&q->distribute, &q->n_distribute, p);
        if (!rc && cluster && !q->n_order) {
            /* CLUSTER BY = DISTRIBUTE BY + SORT BY the same columns. */
            q->order = weir__arena_array(p->arena, q->n_distribute,
                                         sizeof(*q->order));
            if (!q->order)
                rc = OOMI(p);
            for (size_t i = 0; !rc && i < q->n_distribute; i++)
                q->order[i].e = q->distribute[i];
            if (!rc)
                q->n_order = q->n_distribute;
        }
        if (!rc && !cluster && (weir__sql_is_kw(p, 0, "SORT")) &&
            weir__sql_is_kw(p, 1, "BY")) {
            p->i += 2;
            rc = weir__sql_order_list(&q->order, &q->n_order, p);
        }
    }
    if (!rc && weir__sql_is_kw(p, 0, "LIMIT")) {
        q->limit_pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
        p->i++;
        if (!weir__sql_accept_kw(p, "ALL") && !(q->limit = weir__sql_expr(p)))
            rc = WEIR_ESQL;
    }
    if (!rc && weir__sql_accept_kw(p, "OFFSET") && !(q->offset = weir__sql_expr(p)))
        rc = WEIR_ESQL;
    if (!rc && !q->limit && weir__sql_is_kw(p, 0, "LIMIT")) {
        q->limit_pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
        p->i++;
        if (!weir__sql_accept_kw(p, "ALL") && !(q->limit = weir__sql_expr(p)))
            rc = WEIR_ESQL;
    }
    p->depth--;
    if (rc)
        return NULL;
    q->pos = weir__sql_tok_pos(at);
    q->end = weir__sql_prev_end(p);
    return q;
}

int weir__sql_parse_query(weir_sql_query **out, weir_arena *arena,
                          const weir_sql_source *src, size_t offset, size_t len,
                          weir_error *err)
{
    sql_parser p;
    int rc = weir__sql_parser_init(&p, arena, src, offset, len, err);
    if (rc)
        return rc;
    weir_sql_query *q = weir__sql_query(&p);
    if (!q)
        return err && err->code ? err->code : WEIR_ESQL;
    if (weir__sql_peek(&p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(&p);
    if ((rc = weir__sql_raise_deferred(&p)))
        return rc;
    *out = q;
    return 0;
}

int weir__sql_parse_table_name(weir_sql_name *out, weir_arena *arena,
                               const weir_sql_source *src, weir_error *err)
{
    sql_parser p;
    int rc = weir__sql_parser_init(&p, arena, src, 0, src->len, err);
    if (rc)
        return rc;
    const sql_token *at = weir__sql_peek(&p, 0);
    weir_sql_name name;
    if ((rc = weir__sql_parse_name(&name, &p)) ||
        (rc = check_name(&p, &name, at)))
        return rc;
    if (weir__sql_peek(&p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(&p);
    weir__sql_strip_live(&name);
    *out = name;
    return 0;
}

const char *weir__sql_query_text(const weir_sql_query *q, size_t *len)
{
    if (len)
        *len = q->end > q->pos.offset ? q->end - q->pos.offset : 0;
    return q->src->text + q->pos.offset;
}

const weir_sql_source *weir__sql_query_source(const weir_sql_query *q)
{
    return q->src;
}
