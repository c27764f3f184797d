/*
 * Keyword-led Spark expressions, split from parse_expr.c: NULL/TRUE/FALSE,
 * typed literals (DATE '..', TIMESTAMP '..'), INTERVAL literals, CASE,
 * CAST/TRY_CAST, EXISTS, CURRENT_DATE-style niladic calls, EXTRACT,
 * POSITION(a IN b), TRIM(BOTH x FROM s), SUBSTRING(s FROM a FOR b) and
 * OVERLAY(s PLACING r FROM a FOR b).
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

#define OOM(p) weir__sql_oom(p)
#define new_expr weir__sql_new_expr
#define fin weir__sql_fin
#define push_expr weir__sql_push_expr
#define push_name weir__sql_push_name
#define paren_query weir__sql_paren_query
#define string_lit weir__sql_string_lit
#define postfix weir__sql_postfix
#define parse_value(p, prec) weir__sql_value(p)

static const char *interval_unit(const sql_parser *p)
{
    static const struct {
        const char *w, *u;
    } U[] = {
        { "YEAR", "YEAR" },          { "YEARS", "YEAR" },
        { "MONTH", "MONTH" },        { "MONTHS", "MONTH" },
        { "WEEK", "WEEK" },          { "WEEKS", "WEEK" },
        { "DAY", "DAY" },            { "DAYS", "DAY" },
        { "HOUR", "HOUR" },          { "HOURS", "HOUR" },
        { "MINUTE", "MINUTE" },      { "MINUTES", "MINUTE" },
        { "SECOND", "SECOND" },      { "SECONDS", "SECOND" },
        { "MILLISECOND", "MILLISECOND" }, { "MILLISECONDS", "MILLISECOND" },
        { "MICROSECOND", "MICROSECOND" }, { "MICROSECONDS", "MICROSECOND" },
        { NULL, NULL }
    };
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind != TK_IDENT)
        return NULL;
    for (int i = 0; U[i].w; i++)
        if (weir__str_ieq(t->text, U[i].w))
            return U[i].u;
    return NULL;
}

static weir_sql_expr *parse_interval(sql_parser *p, const sql_token *start)
{
    weir_sql_expr *e = new_expr(p, EX_INTERVAL, start);
    if (!e)
        return NULL;
    size_t cap = 0, ncap = 0;
    for (;;) {
        const sql_token *t = weir__sql_peek(p, 0);
        bool neg = false;
        if (weir__sql_is_op(p, 0, "-") || weir__sql_is_op(p, 0, "+")) {
            neg = t->text[0] == '-';
            p->i++;
            t = weir__sql_peek(p, 0);
        }
        if (t->kind != TK_NUMBER && t->kind != TK_STRING)
            break;
        weir_sql_expr *v = new_expr(p, EX_LIT, t);
        if (!v)
            return NULL;
        v->lit = t->kind == TK_STRING ? LIT_STRING : LIT_DECIMAL;
        v->text = neg ? weir__arena_printf(p->arena, "-%s", t->text) : t->text;
        if (!v->text)
            return OOM(p);
        p->i++;
        fin(p, v);
        const char *unit = interval_unit(p);
        if (unit)
            p->i++;
        if (!push_expr(p, &e->list, &e->n, &cap, v) ||
            !push_name(p, &e->names, &e->n_names, &ncap, unit))
            return NULL;
        if (!unit) {
            if (t->kind != TK_STRING || e->n > 1) {
                weir__sql_syntax_error(p);
                return NULL;
            }
            break; /* INTERVAL '1 day 2 hours' */
        }
        if (weir__sql_accept_kw(p, "TO")) {
            const char *to = interval_unit(p);
            if (!to || e->n > 1 || t->kind != TK_STRING) {
                weir__sql_syntax_error(p);
                return NULL;
            }
            p->i++;
            e->op = weir__arena_printf(p->arena, "%s TO %s", unit, to);
            if (!e->op)
                return OOM(p);
            break;
        }
    }
    if (e->n == 0) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    return fin(p, e);
}

static weir_sql_expr *parse_case(sql_parser *p, const sql_token *t)
{
    weir_sql_expr *e = new_expr(p, EX_CASE, t);
    if (!e)
        return NULL;
    if (!weir__sql_is_kw(p, 0, "WHEN") && !(e->a = weir__sql_expr(p)))
        return NULL;
    size_t cap = 0;
    while (weir__sql_accept_kw(p, "WHEN")) {
        weir_sql_expr *w = weir__sql_expr(p);
        if (!w || weir__sql_expect_kw(p, "THEN"))
            return NULL;
        weir_sql_expr *th = weir__sql_expr(p);
        if (!th || !push_expr(p, &e->list, &e->n, &cap, w) ||
            !push_expr(p, &e->list, &e->n, &cap, th))
            return NULL;
    }
    if (e->n == 0) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    if (weir__sql_accept_kw(p, "ELSE") && !(e->b = weir__sql_expr(p)))
        return NULL;
    if (weir__sql_expect_kw(p, "END"))
        return NULL;
    return fin(p, e);
}

static weir_sql_expr *parse_cast(sql_parser *p, const sql_token *t, bool try_)
{
    weir_sql_expr *e = new_expr(p, EX_CAST, t);
    if (!e)
        return NULL;
    e->flag = try_;
    if (weir__sql_expect_op(p, "(") || !(e->a = weir__sql_expr(p)) ||
        weir__sql_expect_kw(p, "AS"))
        return NULL;
    unsigned ts = weir__sql_peek(p, 0)->off;
    if (weir__sql_type(&e->type, p))
        return NULL;
    e->type_text = weir__arena_strndup(p->arena, p->src->text + ts,
                                       weir__sql_prev_end(p) - ts);
    if (!e->type_text || weir__sql_expect_op(p, ")"))
        return NULL;
    return fin(p, e);
}

/* The rest of a plain call name(first, ...) after its first argument, so
 * special forms never parse their first argument twice. */
static weir_sql_expr *call_rest(sql_parser *p, const sql_token *t,
                                weir_sql_expr *first)
{
    weir_sql_expr *e = new_expr(p, EX_FUNC, t);
    if (!e)
        return NULL;
    e->name = t->text;
    size_t cap = 0;
    if (first && !push_expr(p, &e->list, &e->n, &cap, first))
        return NULL;
    while (first && weir__sql_accept_op(p, ",")) {
        weir_sql_expr *a = weir__sql_expr(p);
        if (!a || !push_expr(p, &e->list, &e->n, &cap, a))
            return NULL;
    }
    if (weir__sql_expect_op(p, ")"))
        return NULL;
    return postfix(p, fin(p, e));
}

/* Keyword-led primaries. *handled is false when t is just an identifier. */
weir_sql_expr *weir__sql_parse_special(sql_parser *p, const sql_token *t,
                                      bool *handled)
{
    const char *w = t->text;
    *handled = true;
    if (weir__str_ieq(w, "NULL")) {
        weir_sql_expr *e = new_expr(p, EX_LIT, t);
        if (!e)
            return NULL;
        e->lit = LIT_NULL;
        e->text = "NULL";
        p->i++;
        return fin(p, e);
    }
    if (weir__str_ieq(w, "TRUE") || weir__str_ieq(w, "FALSE")) {
        weir_sql_expr *e = new_expr(p, EX_LIT, t);
        if (!e)
            return NULL;
        e->lit = LIT_BOOL;
        e->text = weir__str_ieq(w, "TRUE") ? "true" : "false";
        p->i++;
        return fin(p, e);
    }
    if (weir__sql_peek(p, 1)->kind == TK_STRING) {
        sql_lit_kind k = 0;
        if (weir__str_ieq(w, "DATE"))
            k = LIT_DATE;
        else if (weir__str_ieq(w, "TIMESTAMP") ||
                 weir__str_ieq(w, "TIMESTAMP_LTZ"))
            k = LIT_TIMESTAMP;
        else if (weir__str_ieq(w, "TIMESTAMP_NTZ"))
            k = LIT_TIMESTAMP_NTZ;
        if (k) {
            p->i++;
            weir_sql_expr *e = string_lit(p, weir__sql_peek(p, 0), k);
            if (e)
                e->pos = weir__sql_tok_pos(t);
            return e;
        }
    }
    if (weir__str_ieq(w, "INTERVAL") &&
        (weir__sql_peek(p, 1)->kind == TK_STRING ||
         weir__sql_peek(p, 1)->kind == TK_NUMBER || weir__sql_is_op(p, 1, "-") ||
         weir__sql_is_op(p, 1, "+"))) {
        p->i++;
        return parse_interval(p, t);
    }
    if (weir__str_ieq(w, "CASE")) {
        p->i++;
        return parse_case(p, t);
    }
    if ((weir__str_ieq(w, "CAST") || weir__str_ieq(w, "TRY_CAST")) &&
        weir__sql_is_op(p, 1, "(")) {
        p->i++;
        return parse_cast(p, t, weir__str_ieq(w, "TRY_CAST"));
    }
    if (weir__str_ieq(w, "EXISTS") && weir__sql_is_op(p, 1, "(") &&
        paren_query(p, 2)) {
        p->i += 2;
        weir_sql_expr *e = new_expr(p, EX_EXISTS, t);
        if (!e || !(e->query = weir__sql_query(p)) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
        return fin(p, e);
    }
    if ((weir__str_ieq(w, "CURRENT_DATE") ||
         weir__str_ieq(w, "CURRENT_TIMESTAMP") ||
         weir__str_ieq(w, "CURRENT_USER") ||
         weir__str_ieq(w, "CURRENT_TIMEZONE")) &&
        !weir__sql_is_op(p, 1, "(")) {
        weir_sql_expr *e = new_expr(p, EX_FUNC, t);
        if (!e)
            return NULL;
        e->name = t->text;
        p->i++;
        return fin(p, e);
    }
    if (weir__str_ieq(w, "EXTRACT") && weir__sql_is_op(p, 1, "(")) {
        p->i += 2;
        weir_sql_expr *e = new_expr(p, EX_EXTRACT, t);
        if (!e)
            return NULL;
        const sql_token *f = weir__sql_peek(p, 0);
        if (f->kind != TK_IDENT && f->kind != TK_STRING) {
            weir__sql_syntax_error(p);
            return NULL;
        }
        e->name = f->text;
        p->i++;
        if (weir__sql_expect_kw(p, "FROM") || !(e->a = weir__sql_expr(p)) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
        return fin(p, e);
    }
    if (weir__str_ieq(w, "POSITION") && weir__sql_is_op(p, 1, "(")) {
        /* POSITION(a IN b) or position(a, b[, pos]). */
        p->i += 2;
        weir_sql_expr *a = parse_value(p, 0);
        if (a && weir__sql_accept_kw(p, "IN")) {
            weir_sql_expr *e = new_expr(p, EX_POSITION, t);
            if (!e || !(e->b = parse_value(p, 0)) ||
                weir__sql_expect_op(p, ")"))
                return NULL;
            e->a = a;
            return fin(p, e);
        }
        return a ? call_rest(p, t, a) : NULL;
    }
    if (weir__str_ieq(w, "TRIM") && weir__sql_is_op(p, 1, "(")) {
        p->i += 2;
        const char *mode = NULL;
        if (weir__sql_accept_kw(p, "BOTH"))
            mode = "BOTH";
        else if (weir__sql_accept_kw(p, "LEADING"))
            mode = "LEADING";
        else if (weir__sql_accept_kw(p, "TRAILING"))
            mode = "TRAILING";
        weir_sql_expr *chars = NULL;
        if (!weir__sql_is_kw(p, 0, "FROM")) {
            chars = weir__sql_expr(p);
            if (!chars)
                return NULL;
        }
        if (weir__sql_accept_kw(p, "FROM")) {
            weir_sql_expr *e = new_expr(p, EX_TRIM, t);
            if (!e || !(e->a = weir__sql_expr(p)) ||
                weir__sql_expect_op(p, ")"))
                return NULL;
            e->op = mode ? mode : "BOTH";
            e->b = chars;
            return fin(p, e);
        }
        if (mode || !chars) {
            weir__sql_syntax_error(p);
            return NULL;
        }
        return call_rest(p, t, chars);
    }
    if ((weir__str_ieq(w, "SUBSTRING") || weir__str_ieq(w, "SUBSTR")) &&
        weir__sql_is_op(p, 1, "(")) {
        p->i += 2;
        if (weir__sql_is_op(p, 0, ")"))
            return call_rest(p, t, NULL);
        weir_sql_expr *s = weir__sql_expr(p);
        if (s && weir__sql_accept_kw(p, "FROM")) {
            weir_sql_expr *e = new_expr(p, EX_FUNC, t);
            if (!e)
                return NULL;
            e->name = "substring"; /* either spelling: Spark's Substring */
            size_t cap = 0;
            weir_sql_expr *pos = weir__sql_expr(p);
            if (!pos || !push_expr(p, &e->list, &e->n, &cap, s) ||
                !push_expr(p, &e->list, &e->n, &cap, pos))
                return NULL;
            if (weir__sql_accept_kw(p, "FOR")) {
                weir_sql_expr *len = weir__sql_expr(p);
                if (!len || !push_expr(p, &e->list, &e->n, &cap, len))
                    return NULL;
            }
            if (weir__sql_expect_op(p, ")"))
                return NULL;
            return postfix(p, fin(p, e));
        }
        return s ? call_rest(p, t, s) : NULL;
    }
    if (weir__str_ieq(w, "OVERLAY") && weir__sql_is_op(p, 1, "(")) {
        /* OVERLAY(s PLACING r FROM pos [FOR len]) or overlay(s, r, pos[, len]). */
        p->i += 2;
        if (weir__sql_is_op(p, 0, ")"))
            return call_rest(p, t, NULL);
        weir_sql_expr *s = weir__sql_expr(p);
        if (s && weir__sql_accept_kw(p, "PLACING")) {
            weir_sql_expr *e = new_expr(p, EX_FUNC, t);
            if (!e)
                return NULL;
            e->name = t->text;
            size_t cap = 0;
            weir_sql_expr *r = weir__sql_expr(p);
            if (!r || !push_expr(p, &e->list, &e->n, &cap, s) ||
                !push_expr(p, &e->list, &e->n, &cap, r) ||
                weir__sql_expect_kw(p, "FROM"))
                return NULL;
            weir_sql_expr *pos = weir__sql_expr(p);
            if (!pos || !push_expr(p, &e->list, &e->n, &cap, pos))
                return NULL;
            if (weir__sql_accept_kw(p, "FOR")) {
                weir_sql_expr *len = weir__sql_expr(p);
                if (!len || !push_expr(p, &e->list, &e->n, &cap, len))
                    return NULL;
            }
            if (weir__sql_expect_op(p, ")"))
                return NULL;
            return postfix(p, fin(p, e));
        }
        return s ? call_rest(p, t, s) : NULL;
    }
    *handled = false;
    return NULL;
}

