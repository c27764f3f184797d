/*
 * The Spark SQL expression parser: recursive descent over tokens with
 * Spark's precedence (OR < AND < NOT < predicates < comparison < | < ^ < &
 * < + - || < * / % div < unary < postfix [] . ::), building arena nodes
 * that keep their source positions: the nodes, the operators and the
 * IN/EXISTS/BETWEEN/LIKE/IS predicates here, the operands (literals,
 * calls, lambdas, subqueries, postfix access) in parse_primary.c, the
 * keyword-led forms (CASE, CAST, EXTRACT, TRIM, intervals, ..) in
 * parse_special.c.
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
#define paren_query weir__sql_paren_query

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
bool weir__sql_at_binary_op(const sql_parser *p, size_t k)
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
                   (weir__sql_at_binary_op(p, 1) && !weir__sql_is_op(p, 1, "+") &&
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
    return weir__sql_primary(p);
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
