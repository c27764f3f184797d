/*
 * AUTO CDC flows in SQL (docs/auto-cdc.md): FROM source and the clauses
 * after it (KEYS, IGNORE NULL UPDATES, APPLY AS DELETE|TRUNCATE WHEN,
 * SEQUENCE BY, COLUMNS, STORED AS SCD TYPE, TRACK HISTORY ON), for CREATE
 * FLOW .. AS AUTO CDC INTO, CREATE STREAMING TABLE .. FLOW AUTO CDC and
 * APPLY CHANGES INTO (parse_ddl.c), and for other front ends
 * (weir__sql_parse_cdc).
 */
#include "internal.h"

#include <string.h>

#include "parse_ddl.h"
#include "util/str.h"

/* ( name, ... ) or name, ... : column names, each as written (parts). */
static int cdc_names(sql_ddl *d, weir_sql_name **out, size_t *n, bool allow_empty)
{
    sql_parser *p = &d->p;
    bool paren = weir__sql_accept_op(p, "(");
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    if (paren && allow_empty && weir__sql_accept_op(p, ")"))
        return 0;
    do {
        *out = weir__sql_grow(p->arena, *out, &cap, *n, sizeof(**out));
        if (!*out)
            return weir__sql_ddl_oom(d);
        int rc = weir__sql_parse_name(&(*out)[(*n)++], p);
        if (rc)
            return rc;
    } while (weir__sql_accept_op(p, ","));
    return paren ? weir__sql_expect_op(p, ")") : 0;
}

/* COLUMNS / TRACK HISTORY ON: ( list ) | list | * [EXCEPT ( list )] */
static int cdc_columns(sql_ddl *d, weir_sql_cdc_columns *c, const sql_token *at,
                       bool star_alone)
{
    sql_parser *p = &d->p;
    if (c->set)
        return weir__sql_syntax_error(p);
    c->set = true;
    c->pos = weir__sql_tok_pos(at);
    if (weir__sql_accept_op(p, "*")) {
        if (!weir__sql_accept_kw(p, "EXCEPT"))
            return star_alone ? 0 : weir__sql_syntax_error(p);
        c->except = true;
    }
    return cdc_names(d, &c->cols, &c->n, false);
}

static int cdc_expr(sql_ddl *d, const weir_sql_expr **out)
{
    if (*out)
        return weir__sql_syntax_error(&d->p);
    *out = weir__sql_expr(&d->p);
    return *out ? 0 : WEIR_ESQL;
}

/* The clauses after FROM source, in any order (Spark 4.2 and Databricks):
 * KEYS, IGNORE NULL UPDATES, APPLY AS DELETE|TRUNCATE WHEN, SEQUENCE BY,
 * COLUMNS, STORED AS SCD TYPE, TRACK HISTORY ON. What is missing or wrong
 * in them (no SEQUENCE BY, empty keys, ...) is the graph's to report. */
static int cdc_clauses(sql_ddl *d, weir_sql_cdc *c)
{
    sql_parser *p = &d->p;
    bool keys = false;
    int rc = 0;
    while (!rc && weir__sql_peek(p, 0)->kind != TK_EOF) {
        const sql_token *at = weir__sql_peek(p, 0);
        if (!keys && weir__sql_accept_kw(p, "KEYS")) {
            keys = true;
            c->keys_pos = weir__sql_tok_pos(at);
            rc = cdc_names(d, &c->keys, &c->n_keys, true);
        } else if (!c->ignore_null_updates && weir__sql_is_kw(p, 0, "IGNORE") &&
                   weir__sql_is_kw(p, 1, "NULL") &&
                   weir__sql_is_kw(p, 2, "UPDATES")) {
            p->i += 3;
            c->ignore_null_updates = true;
        } else if (weir__sql_is_kw(p, 0, "APPLY") && weir__sql_is_kw(p, 1, "AS") &&
                   weir__sql_is_kw(p, 3, "WHEN") &&
                   (weir__sql_is_kw(p, 2, "DELETE") ||
                    weir__sql_is_kw(p, 2, "TRUNCATE"))) {
            bool del = weir__sql_is_kw(p, 2, "DELETE");
            p->i += 4;
            rc = cdc_expr(d, del ? &c->delete_when : &c->truncate_when);
        } else if (weir__sql_is_kw(p, 0, "SEQUENCE") && weir__sql_is_kw(p, 1, "BY")) {
            p->i += 2;
            rc = cdc_expr(d, &c->sequence_by);
        } else if (weir__sql_accept_kw(p, "COLUMNS")) {
            rc = cdc_columns(d, &c->columns, at, true);
        } else if (!c->scd_set && weir__sql_is_kw(p, 0, "STORED") &&
                   weir__sql_is_kw(p, 1, "AS") && weir__sql_is_kw(p, 2, "SCD") &&
                   weir__sql_is_kw(p, 3, "TYPE")) {
            p->i += 4;
            const sql_token *t = weir__sql_peek(p, 0);
            if (t->kind != TK_NUMBER ||
                (strcmp(t->text, "1") != 0 && strcmp(t->text, "2") != 0))
                return weir__sql_error_tok(p, t, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                                           "STORED AS SCD TYPE takes 1 or 2");
            p->i++;
            c->scd_type = t->text[0] - '0';
            c->scd_set = true;
        } else if (weir__sql_is_kw(p, 0, "TRACK") &&
                   weir__sql_is_kw(p, 1, "HISTORY") && weir__sql_is_kw(p, 2, "ON")) {
            p->i += 3;
            rc = cdc_columns(d, &c->track_history, at, false);
        } else {
            return weir__sql_syntax_error(p);
        }
    }
    return rc;
}

/* FROM source cdc clauses, to the end of the statement. The source is one
 * relation (STREAM(src), STREAM src, src); KEYS ends it, so that KEYS is
 * never taken for the source's alias. */
int weir__sql_ddl_cdc(sql_ddl *d, const sql_token *at)
{
    sql_parser *p = &d->p;
    weir_sql_stmt *s = d->s;
    weir_sql_cdc *c = weir__arena_alloc(p->arena, sizeof(*c));
    if (!c)
        return weir__sql_ddl_oom(d);
    memset(c, 0, sizeof(*c));
    c->scd_type = 1;
    c->pos = weir__sql_tok_pos(at);
    c->keys_pos = c->pos;
    int rc = weir__sql_expect_kw(p, "FROM");
    if (rc)
        return rc;
    size_t end = p->i, depth = 0;
    for (; end < p->n; end++) {
        const sql_token *t = &p->t[end];
        if (t->kind == TK_OP && !strcmp(t->text, "("))
            depth++;
        else if (t->kind == TK_OP && !strcmp(t->text, ")") && depth)
            depth--;
        else if (!depth && t->kind == TK_IDENT && end > p->i &&
                 weir__str_ieq(t->text, "KEYS"))
            break;
    }
    sql_token saved = p->t[end];
    p->t[end].kind = TK_EOF; /* the relation stops here */
    weir_sql_query *q = weir__sql_relation_query(p, NULL);
    bool at_end = q && p->i == end;
    p->t[end] = saved;
    if (!q)
        return WEIR_ESQL;
    if (!at_end)
        return weir__sql_syntax_error(p);
    s->query = q;
    if ((rc = cdc_clauses(d, c)))
        return rc;
    s->cdc = c;
    return 0;
}

int weir__sql_parse_cdc(const weir_sql_cdc **cdc, const weir_sql_query **query,
                        weir_arena *arena, const weir_sql_source *src,
                        size_t offset, size_t len, weir_error *err)
{
    sql_ddl d;
    memset(&d, 0, sizeof(d));
    weir_sql_stmt s;
    memset(&s, 0, sizeof(s));
    d.s = &s;
    weir__error_clear(err);
    int rc = weir__sql_parser_init(&d.p, arena, src, offset, len, err);
    if (!rc)
        rc = weir__sql_ddl_cdc(&d, weir__sql_peek(&d.p, 0));
    if (!rc && weir__arena_failed(arena))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc && !err->code)
        WEIR_ERR(err, WEIR_ESQL, "PARSE_SYNTAX_ERROR", "Syntax error");
    *cdc = rc ? NULL : s.cdc;
    *query = rc ? NULL : s.query;
    return rc;
}
