/*
 * The Spark SQL expression parser: recursive descent over tokens with
 * Spark's precedence (OR < AND < NOT < predicates < comparison < | < ^ < &
 * < + - || < * / % div < unary < postfix [] . ::), building arena nodes
 * that keep their source positions. Covers literals and typed literals,
 * intervals, CASE, CAST/TRY_CAST, EXTRACT, TRIM, POSITION, function calls
 * with DISTINCT, named arguments, FILTER, WITHIN GROUP, IGNORE NULLS and
 * OVER, lambdas, subqueries, IN/EXISTS/BETWEEN/LIKE/IS predicates.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

void *weir__sql_oom(sql_parser *p)
{
    WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    return NULL;
}
#define OOM(p) weir__sql_oom(p)
#define new_expr weir__sql_new_expr
#define fin weir__sql_fin
#define push_expr weir__sql_push_expr
#define push_name weir__sql_push_name
#define paren_query weir__sql_paren_query
#define string_lit weir__sql_string_lit
#define postfix weir__sql_postfix

weir_sql_expr *weir__sql_new_expr(sql_parser *p, sql_expr_kind k,
                               const sql_token *at)
{
    weir_sql_expr *e = weir__arena_alloc(p->arena, sizeof(*e));
    if (!e)
        return OOM(p);
    e->kind = k;
    e->pos = weir__sql_tok_pos(at);
    e->src = p->src;
    return e;
}

static int height_of(const weir_sql_expr *e)
{
    return e ? e->height : 0;
}

/* Finish a node: its end offset, and its height, which bounds how deep the
 * translator will recurse. Operator chains (a + b + c ...) and postfix
 * chains (a[1][2]...) are built by loops, not recursion, so the parser's
 * depth counter alone does not bound them. */
weir_sql_expr *weir__sql_fin(sql_parser *p, weir_sql_expr *e)
{
    if (!e)
        return NULL;
    e->end = weir__sql_prev_end(p);
    int h = height_of(e->a);
    if (height_of(e->b) > h)
        h = height_of(e->b);
    if (height_of(e->c) > h)
        h = height_of(e->c);
    if (height_of(e->filter) > h)
        h = height_of(e->filter);
    for (size_t i = 0; i < e->n; i++)
        if (height_of(e->list[i]) > h)
            h = height_of(e->list[i]);
    e->height = h + 1;
    if (e->height > SQL_MAX_DEPTH) {
        weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                            "PARSE_SYNTAX_ERROR",
                            "Expression nested too deeply (more than %d "
                            "levels)",
                            SQL_MAX_DEPTH);
        return NULL;
    }
    return e;
}

bool weir__sql_push_expr(sql_parser *p, weir_sql_expr ***list, size_t *n,
                      size_t *cap, weir_sql_expr *e)
{
    *list = weir__sql_grow(p->arena, *list, cap, *n, sizeof(**list));
    if (!*list) {
        OOM(p);
        return false;
    }
    (*list)[(*n)++] = e;
    return true;
}

bool weir__sql_push_name(sql_parser *p, const char ***list, size_t *n,
                      size_t *cap, const char *s)
{
    *list = weir__sql_grow(p->arena, *list, cap, *n, sizeof(**list));
    if (!*list) {
        OOM(p);
        return false;
    }
    (*list)[(*n)++] = s;
    return true;
}

static weir_sql_expr *parse_or(sql_parser *p);
static weir_sql_expr *parse_value(sql_parser *p, int min_prec);

weir_sql_expr *weir__sql_value(sql_parser *p)
{
    return parse_value(p, 0);
}
static weir_sql_expr *parse_primary(sql_parser *p);

static bool enter(sql_parser *p)
{
    if (++p->depth > SQL_MAX_DEPTH) {
        weir__sql_error_tok(p, weir__sql_peek(p, 0), WEIR_ESQL,
                            "PARSE_SYNTAX_ERROR",
                            "Expression nested too deeply (more than %d "
                            "levels)",
                            SQL_MAX_DEPTH);
        return false;
    }
    return true;
}

weir_sql_expr *weir__sql_expr(sql_parser *p)
{
    if (!enter(p)) {
        p->depth--;
        return NULL;
    }
    weir_sql_expr *e = parse_or(p);
    p->depth--;
    return e;
}

/* The keyword operator kw at k (AND, IN, LIKE ..): not when the item ends
 * right after it, where Spark reads it as an alias (SELECT 1 and). */
static bool kw_op(const sql_parser *p, size_t k, const char *kw)
{
    return weir__sql_is_kw(p, k, kw) && !weir__sql_at_end_of_item(p, k + 1);
}

/* A binary operator at k: a keyword before one is a column (limit + 1). */
static bool at_binary_op(const sql_parser *p, size_t k)
{
    static const char *const OPS[] = { "+", "-", "*", "/", "%", "=", "==",
                                       "!=", "<>", "<", ">", "<=", ">=", "<=>",
                                       "||", "&", "|", "^", "::", "[", NULL };
    for (int i = 0; OPS[i]; i++)
        if (weir__sql_is_op(p, k, OPS[i]))
            return true;
    return false;
}

static weir_sql_expr *binary(sql_parser *p, const sql_token *at, const char *op,
                             weir_sql_expr *a, weir_sql_expr *b)
{
    weir_sql_expr *e = new_expr(p, EX_BINARY, at);
    if (!e)
        return NULL;
    e->op = op;
    e->a = a;
    e->b = b;
    e->pos = a->pos;
    return fin(p, e);
}

static weir_sql_expr *parse_predicate(sql_parser *p);

/* NOT binds looser than predicates but tighter than AND. */
static weir_sql_expr *parse_not(sql_parser *p)
{
    /* SELECT not FROM t reads a column named not. */
    bool column = weir__sql_at_name(p, 0) &&
                  (weir__sql_at_end_of_item(p, 1) ||
                   (at_binary_op(p, 1) && !weir__sql_is_op(p, 1, "+") &&
                    !weir__sql_is_op(p, 1, "-")));
    if ((weir__sql_is_kw(p, 0, "NOT") && !column) || weir__sql_is_op(p, 0, "!")) {
        const sql_token *t = &p->t[p->i++];
        if (!enter(p)) {
            p->depth--;
            return NULL;
        }
        weir_sql_expr *a = parse_not(p);
        p->depth--;
        if (!a)
            return NULL;
        weir_sql_expr *e = new_expr(p, EX_UNARY, t);
        if (!e)
            return NULL;
        e->op = "NOT";
        e->a = a;
        return fin(p, e);
    }
    return parse_predicate(p);
}

static weir_sql_expr *parse_and(sql_parser *p)
{
    weir_sql_expr *l = parse_not(p);
    while (l && kw_op(p, 0, "AND")) {
        const sql_token *t = &p->t[p->i++];
        weir_sql_expr *r = parse_not(p);
        if (!r)
            return NULL;
        l = binary(p, t, "AND", l, r);
    }
    return l;
}

static weir_sql_expr *parse_or(sql_parser *p)
{
    weir_sql_expr *l = parse_and(p);
    while (l && kw_op(p, 0, "OR")) {
        const sql_token *t = &p->t[p->i++];
        weir_sql_expr *r = parse_and(p);
        if (!r)
            return NULL;
        l = binary(p, t, "OR", l, r);
    }
    return l;
}

static bool at_query_start(const sql_parser *p, size_t k)
{
    return weir__sql_is_kw(p, k, "SELECT") || weir__sql_is_kw(p, k, "WITH") ||
           weir__sql_is_kw(p, k, "VALUES") || weir__sql_is_kw(p, k, "FROM") ||
           weir__sql_is_kw(p, k, "TABLE");
}

/* Is a parenthesised query starting at k (through nested parens)? */
bool weir__sql_paren_query(const sql_parser *p, size_t k)
{
    while (weir__sql_is_op(p, k, "("))
        k++;
    return at_query_start(p, k);
}

static weir_sql_expr *parse_in(sql_parser *p, weir_sql_expr *l, bool neg,
                               const sql_token *t)
{
    weir_sql_expr *e = new_expr(p, EX_IN, t);
    if (!e)
        return NULL;
    e->a = l;
    e->negated = neg;
    e->pos = l->pos;
    if (weir__sql_expect_op(p, "("))
        return NULL;
    if (paren_query(p, 0)) {
        e->query = weir__sql_query(p);
        if (!e->query)
            return NULL;
    } else {
        size_t cap = 0;
        do {
            weir_sql_expr *v = weir__sql_expr(p);
            if (!v || !push_expr(p, &e->list, &e->n, &cap, v))
                return NULL;
        } while (weir__sql_accept_op(p, ","));
    }
    if (weir__sql_expect_op(p, ")"))
        return NULL;
    return fin(p, e);
}

static weir_sql_expr *parse_predicate(sql_parser *p)
{
    weir_sql_expr *l = parse_value(p, 0);
    if (!l)
        return NULL;
    for (;;) {
        const sql_token *t = weir__sql_peek(p, 0);
        bool neg = false;
        size_t k = 0;
        if (kw_op(p, 0, "NOT")) {
            neg = true;
            k = 1;
        }
        if (kw_op(p, k, "BETWEEN")) {
            p->i += k + 1;
            weir_sql_expr *e = new_expr(p, EX_BETWEEN, t);
            if (!e)
                return NULL;
            e->a = l;
            e->negated = neg;
            e->pos = l->pos;
            if (!(e->b = parse_value(p, 0)) || weir__sql_expect_kw(p, "AND") ||
                !(e->c = parse_value(p, 0)))
                return NULL;
            l = fin(p, e);
        } else if (kw_op(p, k, "IN")) {
            p->i += k + 1;
            l = parse_in(p, l, neg, t);
            if (!l)
                return NULL;
        } else if (kw_op(p, k, "LIKE") || kw_op(p, k, "ILIKE") ||
                   kw_op(p, k, "RLIKE") || kw_op(p, k, "REGEXP")) {
            const sql_token *opt = weir__sql_peek(p, k);
            p->i += k + 1;
            weir_sql_expr *e = new_expr(p, EX_LIKE, t);
            if (!e)
                return NULL;
            e->a = l;
            e->negated = neg;
            e->pos = l->pos;
            e->op = weir__str_ieq(opt->text, "LIKE")    ? "LIKE"
                    : weir__str_ieq(opt->text, "ILIKE") ? "ILIKE"
                                                        : "RLIKE";
            if (e->op[0] != 'R' && (weir__sql_is_kw(p, 0, "ANY") ||
                                    weir__sql_is_kw(p, 0, "SOME") ||
                                    weir__sql_is_kw(p, 0, "ALL")) &&
                weir__sql_is_op(p, 1, "(")) {
                e->quant = weir__sql_is_kw(p, 0, "ALL") ? "ALL" : "ANY";
                p->i += 2;
                size_t cap = 0;
                do {
                    weir_sql_expr *v = weir__sql_expr(p);
                    if (!v || !push_expr(p, &e->list, &e->n, &cap, v))
                        return NULL;
                } while (weir__sql_accept_op(p, ","));
                if (weir__sql_expect_op(p, ")"))
                    return NULL;
            } else {
                if (!(e->b = parse_value(p, 0)))
                    return NULL;
                if (e->op[0] != 'R' && weir__sql_accept_kw(p, "ESCAPE")) {
                    const sql_token *st = weir__sql_peek(p, 0);
                    const char *esc = weir__sql_string(p);
                    if (!esc)
                        return NULL;
                    weir_sql_expr *c = new_expr(p, EX_LIT, st);
                    if (!c)
                        return NULL;
                    c->lit = LIT_STRING;
                    c->text = esc;
                    e->c = fin(p, c);
                }
            }
            l = fin(p, e);
        } else if (!neg && kw_op(p, 0, "IS")) {
            p->i++;
            weir_sql_expr *e = new_expr(p, EX_IS, t);
            if (!e)
                return NULL;
            e->a = l;
            e->pos = l->pos;
            e->negated = weir__sql_accept_kw(p, "NOT");
            if (weir__sql_accept_kw(p, "NULL")) {
                e->op = "NULL";
            } else if (weir__sql_accept_kw(p, "TRUE")) {
                e->op = "TRUE";
            } else if (weir__sql_accept_kw(p, "FALSE")) {
                e->op = "FALSE";
            } else if (weir__sql_accept_kw(p, "UNKNOWN")) {
                e->op = "NULL";
            } else if (weir__sql_accept_kw(p, "DISTINCT")) {
                if (weir__sql_expect_kw(p, "FROM") ||
                    !(e->b = parse_value(p, 0)))
                    return NULL;
                e->op = "DISTINCT";
            } else {
                weir__sql_syntax_error(p);
                return NULL;
            }
            l = fin(p, e);
        } else {
            break;
        }
    }
    return l;
}

/* Binary operator precedence (higher binds tighter); 0 = not binary. */
static int binop_prec(const sql_parser *p, const char **op)
{
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind == TK_IDENT) {
        if (weir__str_ieq(t->text, "DIV") && !weir__sql_at_end_of_item(p, 1)) {
            *op = "div";
            return 7;
        }
        return 0;
    }
    if (t->kind != TK_OP)
        return 0;
    static const struct {
        const char *tok, *op;
        int prec;
    } OPS[] = {
        { "*", "*", 7 },   { "/", "/", 7 },   { "%", "%", 7 },
        { "+", "+", 6 },   { "-", "-", 6 },   { "||", "||", 6 },
        { "&", "&", 5 },   { "^", "^", 4 },   { "|", "|", 3 },
        { "=", "=", 2 },   { "==", "=", 2 },  { "<>", "<>", 2 },
        { "!=", "<>", 2 }, { "<", "<", 2 },   { "<=", "<=", 2 },
        { ">", ">", 2 },   { ">=", ">=", 2 }, { "<=>", "<=>", 2 },
        { NULL, NULL, 0 }
    };
    for (int i = 0; OPS[i].tok; i++) {
        if (strcmp(t->text, OPS[i].tok) == 0) {
            *op = OPS[i].op;
            return OPS[i].prec;
        }
    }
    return 0;
}

static weir_sql_expr *parse_unary(sql_parser *p)
{
    const sql_token *t = weir__sql_peek(p, 0);
    if (weir__sql_is_op(p, 0, "-") || weir__sql_is_op(p, 0, "+") ||
        weir__sql_is_op(p, 0, "~")) {
        p->i++;
        if (!enter(p))
            return NULL;
        weir_sql_expr *a = parse_unary(p);
        p->depth--;
        if (!a)
            return NULL;
        /* Fold -<number> into a literal (Spark does the same). */
        if (t->text[0] == '-' && a->kind == EX_LIT && a->lit >= LIT_INT &&
            a->lit <= LIT_BIGDECIMAL && a->text[0] != '-') {
            /* -2147483648 is an INT and -9223372036854775808 a BIGINT,
             * as in Spark (the digits alone do not fit). */
            char last = a->src && a->end > 0 ? a->src->text[a->end - 1] : 'x';
            bool plain = last >= '0' && last <= '9';
            if (plain && a->lit == LIT_BIGINT && strcmp(a->text, "2147483648") == 0)
                a->lit = LIT_INT;
            else if (plain && a->lit == LIT_DECIMAL &&
                     strcmp(a->text, "9223372036854775808") == 0)
                a->lit = LIT_BIGINT;
            a->text = weir__arena_printf(p->arena, "-%s", a->text);
            if (!a->text)
                return OOM(p);
            a->pos = weir__sql_tok_pos(t);
            return a;
        }
        weir_sql_expr *e = new_expr(p, EX_UNARY, t);
        if (!e)
            return NULL;
        e->op = t->text[0] == '-' ? "-" : t->text[0] == '+' ? "+" : "~";
        e->a = a;
        return fin(p, e);
    }
    return parse_primary(p);
}

static weir_sql_expr *parse_value(sql_parser *p, int min_prec)
{
    if (!enter(p)) {
        p->depth--;
        return NULL;
    }
    weir_sql_expr *l = parse_unary(p);
    while (l) {
        const char *op = NULL;
        int prec = binop_prec(p, &op);
        if (prec == 0 || prec <= min_prec)
            break;
        const sql_token *t = &p->t[p->i++];
        weir_sql_expr *r = parse_value(p, prec);
        if (!r) {
            l = NULL;
            break;
        }
        l = binary(p, t, op, l, r);
    }
    p->depth--;
    return l;
}

/* ------------------------------------------------------------------------
 * Primary expressions
 * ------------------------------------------------------------------------ */

static weir_sql_expr *number_literal(sql_parser *p, const sql_token *t)
{
    weir_sql_expr *e = new_expr(p, EX_LIT, t);
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
        return OOM(p);
    p->i++;
    return fin(p, e);
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
            a = new_expr(p, EX_STAR, weir__sql_peek(p, 0));
            if (!a)
                return false;
            p->i++;
            fin(p, a);
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
        if (!a || !push_expr(p, &e->list, &e->n, &cap, a) ||
            !push_name(p, &e->names, &e->n_names, &ncap, name))
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
    weir_sql_expr *e = new_expr(p, EX_FUNC, t);
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
                return OOM(p);
            e->over->pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
            e->over->ref = p->t[p->i++].text;
        } else if (weir__sql_window_spec(&e->over, p)) {
            return NULL;
        }
    }
    return fin(p, e);
}

static weir_sql_expr *parse_lambda(sql_parser *p, const sql_token *t)
{
    weir_sql_expr *e = new_expr(p, EX_LAMBDA, t);
    if (!e)
        return NULL;
    size_t cap = 0;
    if (weir__sql_accept_op(p, "(")) {
        do {
            const char *id = weir__sql_ident(p);
            if (!id || !push_name(p, &e->names, &e->n_names, &cap, id))
                return NULL;
        } while (weir__sql_accept_op(p, ","));
        if (weir__sql_expect_op(p, ")"))
            return NULL;
    } else {
        const char *id = weir__sql_ident(p);
        if (!id || !push_name(p, &e->names, &e->n_names, &cap, id))
            return NULL;
    }
    if (weir__sql_expect_op(p, "->") || !(e->a = weir__sql_expr(p)))
        return NULL;
    return fin(p, e);
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
    weir_sql_expr *e = new_expr(p, EX_LIT, t);
    if (!e)
        return NULL;
    e->lit = kind;
    e->text = weir__sql_string(p);
    if (!e->text)
        return NULL;
    return fin(p, e);
}

weir_sql_expr *weir__sql_postfix(sql_parser *p, weir_sql_expr *e)
{
    while (e) {
        const sql_token *t = weir__sql_peek(p, 0);
        if (weir__sql_accept_op(p, "[")) {
            weir_sql_expr *s = new_expr(p, EX_SUBSCRIPT, t);
            if (!s)
                return NULL;
            s->a = e;
            s->pos = e->pos;
            if (!(s->b = weir__sql_expr(p)) || weir__sql_expect_op(p, "]"))
                return NULL;
            e = fin(p, s);
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
                    return OOM(p);
                memcpy(np, e->names, e->n_names * sizeof(*np));
                np[e->n_names] = p->t[p->i++].text;
                e->names = np;
                e->n_names++;
                fin(p, e);
                continue;
            }
            weir_sql_expr *f = new_expr(p, EX_FIELD, t);
            if (!f)
                return NULL;
            f->a = e;
            f->pos = e->pos;
            f->name = p->t[p->i++].text;
            e = fin(p, f);
        } else if (weir__sql_accept_op(p, "::")) {
            weir_sql_expr *c = new_expr(p, EX_CAST, t);
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
                return OOM(p);
            e = fin(p, c);
        } else {
            break;
        }
    }
    return e;
}

static weir_sql_expr *parse_paren(sql_parser *p, const sql_token *t)
{
    if (paren_query(p, 1)) {
        p->i++;
        weir_sql_expr *e = new_expr(p, EX_SUBQUERY, t);
        if (!e || !(e->query = weir__sql_query(p)) ||
            weir__sql_expect_op(p, ")"))
            return NULL;
        return fin(p, e);
    }
    p->i++;
    weir_sql_expr *first = weir__sql_expr(p);
    if (!first)
        return NULL;
    if (weir__sql_accept_op(p, ")")) {
        /* Keep the parenthesised span for pretty names and ARG_OTHER. */
        return first;
    }
    weir_sql_expr *e = new_expr(p, EX_TUPLE, t);
    if (!e)
        return NULL;
    size_t cap = 0;
    if (!push_expr(p, &e->list, &e->n, &cap, first))
        return NULL;
    while (weir__sql_accept_op(p, ",")) {
        weir_sql_expr *v = weir__sql_expr(p);
        if (!v || !push_expr(p, &e->list, &e->n, &cap, v))
            return NULL;
    }
    if (weir__sql_expect_op(p, ")"))
        return NULL;
    return fin(p, e);
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

static weir_sql_expr *parse_primary(sql_parser *p)
{
    const sql_token *t = weir__sql_peek(p, 0);
    weir_sql_expr *e = NULL;
    switch (t->kind) {
    case TK_NUMBER:
        e = number_literal(p, t);
        break;
    case TK_STRING:
        e = string_lit(p, t, LIT_STRING);
        break;
    case TK_BINARY:
        e = new_expr(p, EX_LIT, t);
        if (!e)
            return NULL;
        e->lit = LIT_BINARY;
        e->text = t->text;
        p->i++;
        e = fin(p, e);
        break;
    case TK_OP:
        if (strcmp(t->text, "(") == 0) {
            if (at_lambda(p))
                return parse_lambda(p, t);
            e = parse_paren(p, t);
        } else if (strcmp(t->text, "*") == 0) {
            e = new_expr(p, EX_STAR, t);
            if (!e)
                return NULL;
            p->i++;
            /* * EXCEPT (a, b) -- not a set operation */
            if (weir__sql_is_kw(p, 0, "EXCEPT") && weir__sql_is_op(p, 1, "(") &&
                !paren_query(p, 1)) {
                p->i += 2;
                size_t cap = 0;
                do {
                    weir_sql_expr *c = new_expr(p, EX_COLUMN, weir__sql_peek(p, 0));
                    if (!c)
                        return NULL;
                    weir_sql_name nm;
                    if (weir__sql_parse_name(&nm, p))
                        return NULL;
                    c->names = nm.parts;
                    c->n_names = nm.n;
                    fin(p, c);
                    if (!push_expr(p, &e->list, &e->n, &cap, c))
                        return NULL;
                } while (weir__sql_accept_op(p, ","));
                if (weir__sql_expect_op(p, ")"))
                    return NULL;
            }
            return fin(p, e);
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
                     (weir__sql_at_end_of_item(p, 1) || at_binary_op(p, 1) ||
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
                    return OOM(p);
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
                e = new_expr(p, EX_STAR, t);
                if (!e)
                    return NULL;
                e->names = weir__arena_array(p->arena, n, sizeof(*e->names));
                if (!e->names)
                    return OOM(p);
                memcpy(e->names, parts, n * sizeof(*parts));
                e->n_names = n;
                return fin(p, e);
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
                return OOM(p);
            p->i++;
            e = parse_call(p, t, name);
            break;
        }
        e = new_expr(p, EX_COLUMN, t);
        if (!e)
            return NULL;
        if (n >= 3 && weir__str_ieq(parts[0], "LIVE")) {
            memmove(parts, parts + 1, (n - 1) * sizeof(*parts));
            n--;
        }
        e->names = weir__arena_array(p->arena, n, sizeof(*e->names));
        if (!e->names)
            return OOM(p);
        memcpy(e->names, parts, n * sizeof(*parts));
        e->n_names = n;
        e = fin(p, e);
        break;
    }
    default:
        weir__sql_syntax_error(p);
        return NULL;
    }
    return postfix(p, e);
}

int weir__sql_parse_expr(weir_sql_expr **out, weir_arena *arena,
                         const weir_sql_source *src, size_t offset, size_t len,
                         weir_error *err)
{
    sql_parser p;
    int rc = weir__sql_parser_init(&p, arena, src, offset, len, err);
    if (rc)
        return rc;
    weir_sql_expr *e = weir__sql_expr(&p);
    if (!e)
        return err && err->code ? err->code : WEIR_ESQL;

    if (weir__sql_peek(&p, 0)->kind != TK_EOF)
        return weir__sql_syntax_error(&p);
    *out = e;
    return 0;
}

int weir__sql_expr_list(weir_sql_expr ***out, size_t *n, sql_parser *p)
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
            return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        (*out)[(*n)++] = e;
    } while (weir__sql_accept_op(p, ","));
    return 0;
}

weir_sql_pos weir__sql_expr_pos(const weir_sql_expr *e)
{
    return e->pos;
}
