/*
 * The operands of Spark SQL expressions (parse_expr.c parses the operators
 * between them): numbers with Spark's typing, strings, column references,
 * function calls (DISTINCT, named arguments, FILTER, WITHIN GROUP, IGNORE
 * NULLS, OVER), lambdas, stars, parenthesised expressions and subqueries,
 * and the postfix [] . :: chains after them. Keyword-led forms go to
 * parse_special.c.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

static weir_sql_expr *number_literal(sql_parser *p, const sql_token *t)
{
    weir_sql_expr *e = weir__sql_new_expr(p, EX_LIT, t);
    if (!e)
        return NULL;
    const char *s = t->text;
    size_t n = strlen(s);
    bool frac = strchr(s, '.') != NULL;
    bool expo = strpbrk(s, "eE") != NULL;
    e->lit = expo ? LIT_DOUBLE : frac ? LIT_DECIMAL : LIT_INT;
    size_t cut = n;
    if (n >= 2 && weir__str_ieq(s + n - 2, "BD")) {
        e->lit = LIT_BIGDECIMAL;
        cut = n - 2;
    } else {
        switch (s[n - 1]) {
        case 'L': case 'l': e->lit = LIT_BIGINT; cut = n - 1; break;
        case 'S': case 's': e->lit = LIT_SMALLINT; cut = n - 1; break;
        case 'Y': case 'y': e->lit = LIT_TINYINT; cut = n - 1; break;
        case 'D': case 'd': e->lit = LIT_DOUBLE; cut = n - 1; break;
        case 'F': case 'f': e->lit = LIT_FLOAT; cut = n - 1; break;
        default: break;
        }
    }
    if ((e->lit == LIT_BIGINT || e->lit == LIT_SMALLINT ||
         e->lit == LIT_TINYINT) && (frac || expo)) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    if (e->lit == LIT_INT) {
        /* Spark: INT if it fits, else BIGINT, else DECIMAL. */
        size_t digits = cut;
        const char *d = s;
        while (digits > 1 && *d == '0') {
            d++;
            digits--;
        }
        if (digits > 19 ||
            (digits == 19 && strncmp(d, "9223372036854775807", 19) > 0))
            e->lit = LIT_DECIMAL;
        else if (digits > 10 ||
                 (digits == 10 && strncmp(d, "2147483647", 10) > 0))
            e->lit = LIT_BIGINT;
    }
    e->text = weir__arena_strndup(p->arena, s, cut);
    if (!e->text)
        return weir__sql_oom(p);
    p->i++;
    return weir__sql_fin(p, e);
}

/* Arguments of a function call after '(' up to and including ')'. */
static bool parse_args(sql_parser *p, weir_sql_expr *e)
{
    size_t cap = 0, ncap = 0;
    bool named = false;
    if (weir__sql_accept_op(p, ")"))
        return true;
    /* f(all) reads a column named all. */
    if (!weir__sql_at_end_of_item(p, 1)) {
        if (weir__sql_accept_kw(p, "DISTINCT"))
            e->distinct = true;
        else
            weir__sql_accept_kw(p, "ALL");
    }
    do {
        const char *name = NULL;
        if (weir__sql_at_name(p, 0) && weir__sql_is_op(p, 1, "=>")) {
            name = p->t[p->i].text;
            p->i += 2;
            named = true;
        }
        weir_sql_expr *a;
        if (weir__sql_is_op(p, 0, "*") &&
            (weir__sql_is_op(p, 1, ")") || weir__sql_is_op(p, 1, ","))) {
            a = weir__sql_new_expr(p, EX_STAR, weir__sql_peek(p, 0));
            if (!a)
                return false;
            p->i++;
            weir__sql_fin(p, a);
        } else {
            a = weir__sql_expr(p);
        }
        /* struct(x AS a, ...): the alias names the field. */
        if (a && !name && e->name && weir__str_ieq(e->name, "struct") &&
            weir__sql_accept_kw(p, "AS")) {
            const sql_token *id = weir__sql_peek(p, 0);
            if (id->kind != TK_IDENT && id->kind != TK_QIDENT) {
                weir__sql_syntax_error(p);
                return false;
            }
            name = id->text;
            named = true;
            p->i++;
        }
        if (!a || !weir__sql_push_expr(p, &e->list, &e->n, &cap, a) ||
            !weir__sql_push_name(p, &e->names, &e->n_names, &ncap, name))
            return false;
    } while (weir__sql_accept_op(p, ","));
    if (weir__sql_accept_kw(p, "IGNORE")) {
        if (weir__sql_expect_kw(p, "NULLS"))
            return false;
        e->ignore_nulls = 1;
    } else if (weir__sql_accept_kw(p, "RESPECT")) {
        if (weir__sql_expect_kw(p, "NULLS"))
            return false;
        e->ignore_nulls = 2;
    }
    if (weir__sql_expect_op(p, ")"))
        return false;
    if (!named)
        e->n_names = 0; /* all positional */
    return true;
}

static weir_sql_expr *parse_call(sql_parser *p, const sql_token *t,
                                 const char *name)
{
    weir_sql_expr *e = weir__sql_new_expr(p, EX_FUNC, t);
    if (!e)
        return NULL;
    e->name = name;
    if (!parse_args(p, e))
        return NULL;
    if (weir__sql_is_kw(p, 0, "WITHIN") && weir__sql_is_kw(p, 1, "GROUP")) {
        p->i += 2;
        if (weir__sql_expect_op(p, "(") || weir__sql_expect_kw(p, "ORDER") ||
            weir__sql_expect_kw(p, "BY") ||
            weir__sql_order_list(&e->within, &e->n_within, p) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
    }
    if (weir__sql_is_kw(p, 0, "FILTER") && weir__sql_is_op(p, 1, "(")) {
        p->i += 2;
        if (weir__sql_expect_kw(p, "WHERE") || !(e->filter = weir__sql_expr(p)) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
    }
    if (weir__sql_is_kw(p, 0, "IGNORE") && weir__sql_is_kw(p, 1, "NULLS")) {
        p->i += 2;
        e->ignore_nulls = 1;
    } else if (weir__sql_is_kw(p, 0, "RESPECT") &&
               weir__sql_is_kw(p, 1, "NULLS")) {
        p->i += 2;
        e->ignore_nulls = 2;
    }
    if (weir__sql_accept_kw(p, "OVER")) {
        if (weir__sql_at_ident(p, 0)) {
            e->over = weir__arena_alloc(p->arena, sizeof(*e->over));
            if (!e->over)
                return weir__sql_oom(p);
            e->over->pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
            e->over->ref = p->t[p->i++].text;
        } else if (weir__sql_window_spec(&e->over, p)) {
            return NULL;
        }
    }
    return weir__sql_fin(p, e);
}

static weir_sql_expr *parse_lambda(sql_parser *p, const sql_token *t)
{
    weir_sql_expr *e = weir__sql_new_expr(p, EX_LAMBDA, t);
    if (!e)
        return NULL;
    size_t cap = 0;
    if (weir__sql_accept_op(p, "(")) {
        do {
            const char *id = weir__sql_ident(p);
            if (!id || !weir__sql_push_name(p, &e->names, &e->n_names, &cap, id))
                return NULL;
        } while (weir__sql_accept_op(p, ","));
        if (weir__sql_expect_op(p, ")"))
            return NULL;
    } else {
        const char *id = weir__sql_ident(p);
        if (!id || !weir__sql_push_name(p, &e->names, &e->n_names, &cap, id))
            return NULL;
    }
    if (weir__sql_expect_op(p, "->") || !(e->a = weir__sql_expr(p)))
        return NULL;
    return weir__sql_fin(p, e);
}

/* (a, b) -> ... : a parenthesised identifier list followed by ->. */
static bool at_lambda(const sql_parser *p)
{
    if (weir__sql_at_ident(p, 0) && weir__sql_is_op(p, 1, "->"))
        return true;
    if (!weir__sql_is_op(p, 0, "("))
        return false;
    size_t k = 1;
    for (;;) {
        if (!weir__sql_at_ident(p, k))
            return false;
        k++;
        if (weir__sql_is_op(p, k, ")"))
            return weir__sql_is_op(p, k + 1, "->");
        if (!weir__sql_is_op(p, k, ","))
            return false;
        k++;
    }
}

weir_sql_expr *weir__sql_string_lit(sql_parser *p, const sql_token *t,
                                 sql_lit_kind kind)
{
    weir_sql_expr *e = weir__sql_new_expr(p, EX_LIT, t);
    if (!e)
        return NULL;
    e->lit = kind;
    e->text = weir__sql_string(p);
    if (!e->text)
        return NULL;
    return weir__sql_fin(p, e);
}

weir_sql_expr *weir__sql_postfix(sql_parser *p, weir_sql_expr *e)
{
    while (e) {
        const sql_token *t = weir__sql_peek(p, 0);
        if (weir__sql_accept_op(p, "[")) {
            weir_sql_expr *s = weir__sql_new_expr(p, EX_SUBSCRIPT, t);
            if (!s)
                return NULL;
            s->a = e;
            s->pos = e->pos;
            if (!(s->b = weir__sql_expr(p)) || weir__sql_expect_op(p, "]"))
                return NULL;
            e = weir__sql_fin(p, s);
        } else if (weir__sql_is_op(p, 0, ".") && weir__sql_at_name(p, 1)) {
            p->i++;
            if (e->kind == EX_COLUMN) {
                /* Still a dotted path. */
                if (e->n_names >= SQL_MAX_DEPTH) {
                    weir__sql_error_tok(p, t, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                                        "Name has more than %d parts",
                                        SQL_MAX_DEPTH);
                    return NULL;
                }
                const char **np = weir__arena_array(p->arena, e->n_names + 1,
                                                    sizeof(*np));
                if (!np)
                    return weir__sql_oom(p);
                memcpy(np, e->names, e->n_names * sizeof(*np));
                np[e->n_names] = p->t[p->i++].text;
                e->names = np;
                e->n_names++;
                weir__sql_fin(p, e);
                continue;
            }
            weir_sql_expr *f = weir__sql_new_expr(p, EX_FIELD, t);
            if (!f)
                return NULL;
            f->a = e;
            f->pos = e->pos;
            f->name = p->t[p->i++].text;
            e = weir__sql_fin(p, f);
        } else if (weir__sql_accept_op(p, "::")) {
            weir_sql_expr *c = weir__sql_new_expr(p, EX_CAST, t);
            if (!c)
                return NULL;
            c->a = e;
            c->pos = e->pos;
            unsigned ts = weir__sql_peek(p, 0)->off;
            if (weir__sql_type(&c->type, p))
                return NULL;
            c->type_text = weir__arena_strndup(p->arena, p->src->text + ts,
                                               weir__sql_prev_end(p) - ts);
            if (!c->type_text)
                return weir__sql_oom(p);
            e = weir__sql_fin(p, c);
        } else {
            break;
        }
    }
    return e;
}

static weir_sql_expr *parse_paren(sql_parser *p, const sql_token *t)
{
    if (weir__sql_paren_query(p, 1)) {
        p->i++;
        weir_sql_expr *e = weir__sql_new_expr(p, EX_SUBQUERY, t);
        if (!e || !(e->query = weir__sql_query(p)) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
        return weir__sql_fin(p, e);
    }
    p->i++;
    weir_sql_expr *first = weir__sql_expr(p);
    if (!first)
        return NULL;
    if (weir__sql_accept_op(p, ")")) {
        /* Keep the parenthesised span for pretty names and ARG_OTHER. */
        return first;
    }
    weir_sql_expr *e = weir__sql_new_expr(p, EX_TUPLE, t);
    if (!e)
        return NULL;
    size_t cap = 0;
    if (!weir__sql_push_expr(p, &e->list, &e->n, &cap, first))
        return NULL;
    while (weir__sql_accept_op(p, ",")) {
        weir_sql_expr *v = weir__sql_expr(p);
        if (!v || !weir__sql_push_expr(p, &e->list, &e->n, &cap, v))
            return NULL;
    }
    if (weir__sql_expect_op(p, ")"))
        return NULL;
    return weir__sql_fin(p, e);
}

/* Reserved words that still name functions (LEFT(s, n), RLIKE(a, b)) or,
 * for WINDOW, the time-window column (window.start). */
static bool reserved_as_name(const sql_parser *p)
{
    static const char *const NAMES[] = { "LEFT", "RIGHT", "RLIKE", "REGEXP",
                                         "LIKE", "ILIKE", "WINDOW", NULL };
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind != TK_IDENT)
        return false;
    bool call = weir__sql_is_op(p, 1, "(");
    bool dot = weir__sql_is_op(p, 1, ".");
    for (int i = 0; NAMES[i]; i++)
        if (weir__str_ieq(t->text, NAMES[i]))
            return call || (dot && i == 6);
    return false;
}

/* Reserved in ANSI mode, Spark still parses these alone as functions
 * (its currentLike expressions; weir handles CURRENT_DATE, .. itself):
 * weir reads them as names, Spark's choice when such a column exists. */
static bool niladic(const sql_token *t)
{
    return t->kind == TK_IDENT &&
           (weir__str_ieq(t->text, "USER") || weir__str_ieq(t->text, "SESSION_USER") ||
            weir__str_ieq(t->text, "CURRENT_TIME"));
}

weir_sql_expr *weir__sql_primary(sql_parser *p)
{
    const sql_token *t = weir__sql_peek(p, 0);
    weir_sql_expr *e = NULL;
    switch (t->kind) {
    case TK_NUMBER:
        e = number_literal(p, t);
        break;
    case TK_STRING:
        e = weir__sql_string_lit(p, t, LIT_STRING);
        break;
    case TK_BINARY:
        e = weir__sql_new_expr(p, EX_LIT, t);
        if (!e)
            return NULL;
        e->lit = LIT_BINARY;
        e->text = t->text;
        p->i++;
        e = weir__sql_fin(p, e);
        break;
    case TK_OP:
        if (strcmp(t->text, "(") == 0) {
            if (at_lambda(p))
                return parse_lambda(p, t);
            e = parse_paren(p, t);
        } else if (strcmp(t->text, "*") == 0) {
            e = weir__sql_new_expr(p, EX_STAR, t);
            if (!e)
                return NULL;
            p->i++;
            /* * EXCEPT (a, b) -- not a set operation */
            if (weir__sql_is_kw(p, 0, "EXCEPT") && weir__sql_is_op(p, 1, "(") &&
                !weir__sql_paren_query(p, 1)) {
                p->i += 2;
                size_t cap = 0;
                do {
                    weir_sql_expr *c = weir__sql_new_expr(p, EX_COLUMN, weir__sql_peek(p, 0));
                    if (!c)
                        return NULL;
                    weir_sql_name nm;
                    if (weir__sql_parse_name(&nm, p))
                        return NULL;
                    c->names = nm.parts;
                    c->n_names = nm.n;
                    weir__sql_fin(p, c);
                    if (!weir__sql_push_expr(p, &e->list, &e->n, &cap, c))
                        return NULL;
                } while (weir__sql_accept_op(p, ","));
                if (weir__sql_expect_op(p, ")"))
                    return NULL;
            }
            return weir__sql_fin(p, e);
        } else {
            weir__sql_syntax_error(p);
            return NULL;
        }
        break;
    case TK_IDENT:
    case TK_QIDENT: {
        /* A keyword before what can only follow an operand (the end of
         * the item, a binary operator, a clause word) is a column, as in
         * Spark (SELECT case FROM t, limit + left AS n), unless its own
         * form parses (NULL, CURRENT_DATE, CASE WHEN ..). */
        const sql_token *next = weir__sql_peek(p, 1);
        bool alone = (weir__sql_at_name(p, 0) || niladic(t)) &&
                     (weir__sql_at_end_of_item(p, 1) || weir__sql_at_binary_op(p, 1) ||
                      (next->kind == TK_IDENT && weir__sql_clause_word(next->text)));
        size_t at = p->i;
        bool failed_before = p->special_failed && p->special_failed[at];
        if (t->kind == TK_IDENT && !(alone && failed_before)) {
            bool handled = false;
            int depth = p->depth;
            e = weir__sql_parse_special(p, t, &handled);
            if (handled && (e || !alone))
                break;
            if (handled) {
                if (!p->special_failed)
                    p->special_failed = weir__arena_array(p->arena, p->n + 1, 1);
                if (!p->special_failed)
                    return weir__sql_oom(p);
                p->special_failed[at] = 1;
            }
            p->i = at;
            p->depth = depth;
        }
        if (!weir__sql_at_ident(p, 0) && !reserved_as_name(p) && !alone) {
            weir__sql_syntax_error(p);
            return NULL;
        }
        if (weir__sql_is_op(p, 1, "->"))
            return parse_lambda(p, t);
        /* A dotted name; a call if '(' follows. */
        const char *parts[64];
        size_t n = 0;
        parts[n++] = p->t[p->i++].text;
        while (weir__sql_is_op(p, 0, ".") && n < 64) {
            const sql_token *nt = weir__sql_peek(p, 1);
            if (weir__sql_at_name(p, 1)) {
                p->i += 2;
                parts[n++] = nt->text;
            } else if (weir__sql_is_op(p, 1, "*")) {
                p->i += 2;
                e = weir__sql_new_expr(p, EX_STAR, t);
                if (!e)
                    return NULL;
                e->names = weir__arena_array(p->arena, n, sizeof(*e->names));
                if (!e->names)
                    return weir__sql_oom(p);
                memcpy(e->names, parts, n * sizeof(*parts));
                e->n_names = n;
                return weir__sql_fin(p, e);
            } else {
                break;
            }
        }
        if (weir__sql_is_op(p, 0, "(") && t->kind == TK_IDENT) {
            weir_buf b = WEIR_BUF_INIT;
            for (size_t k = 0; k < n; k++) {
                if (k)
                    weir__buf_putc(&b, '.');
                weir__buf_puts(&b, parts[k]);
            }
            const char *name = weir__arena_strdup(p->arena, weir__buf_cstr(&b));
            weir__buf_free(&b);
            if (!name)
                return weir__sql_oom(p);
            p->i++;
            e = parse_call(p, t, name);
            break;
        }
        e = weir__sql_new_expr(p, EX_COLUMN, t);
        if (!e)
            return NULL;
        if (n >= 3 && weir__str_ieq(parts[0], "LIVE")) {
            memmove(parts, parts + 1, (n - 1) * sizeof(*parts));
            n--;
        }
        e->names = weir__arena_array(p->arena, n, sizeof(*e->names));
        if (!e->names)
            return weir__sql_oom(p);
        memcpy(e->names, parts, n * sizeof(*parts));
        e->n_names = n;
        e = weir__sql_fin(p, e);
        break;
    }
    default:
        weir__sql_syntax_error(p);
        return NULL;
    }
    return weir__sql_postfix(p, e);
}
