/*
 * Parser plumbing shared by the expression, query and statement parsers:
 * token look-ahead, keyword and operator matching, syntax errors with
 * Spark's PARSE_SYNTAX_ERROR wording, identifiers, dotted names and string
 * literals (adjacent literals concatenate).
 */
#include "internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/str.h"

int weir__sql_parser_init(sql_parser *p, weir_arena *arena,
                          const weir_sql_source *src, size_t offset, size_t len,
                          weir_error *err)
{
    memset(p, 0, sizeof(*p));
    p->arena = arena;
    p->src = src;
    p->err = err;
    sql_tokens toks;
    int rc = weir__sql_lex(&toks, arena, src, offset, len, err);
    if (rc)
        return rc;
    p->t = toks.items;
    p->n = toks.n;
    return 0;
}

const sql_token *weir__sql_peek(const sql_parser *p, size_t k)
{
    size_t i = p->i + k;
    return &p->t[i < p->n ? i : p->n];
}

bool weir__sql_is_kw(const sql_parser *p, size_t k, const char *kw)
{
    const sql_token *t = weir__sql_peek(p, k);
    return t->kind == TK_IDENT && weir__str_ieq(t->text, kw);
}

bool weir__sql_is_op(const sql_parser *p, size_t k, const char *op)
{
    const sql_token *t = weir__sql_peek(p, k);
    return t->kind == TK_OP && strcmp(t->text, op) == 0;
}

bool weir__sql_accept_kw(sql_parser *p, const char *kw)
{
    if (!weir__sql_is_kw(p, 0, kw))
        return false;
    p->i++;
    return true;
}

bool weir__sql_accept_op(sql_parser *p, const char *op)
{
    if (!weir__sql_is_op(p, 0, op))
        return false;
    p->i++;
    return true;
}

weir_sql_pos weir__sql_tok_pos(const sql_token *t)
{
    weir_sql_pos pos = { t->off, t->line, t->col };
    return pos;
}

unsigned weir__sql_prev_end(const sql_parser *p)
{
    if (p->i == 0)
        return p->t[0].off;
    const sql_token *t = &p->t[p->i - 1 < p->n ? p->i - 1 : p->n];
    return t->off + t->len;
}

int weir__sql_error_tok(sql_parser *p, const sql_token *t, int code,
                        const char *cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(p->err, code, cls, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    weir__sql_error_at(p->err, p->src, weir__sql_tok_pos(t));
    return code;
}

int weir__sql_syntax_error(sql_parser *p)
{
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind == TK_EOF)
        return weir__sql_error_tok(p, t, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                                   "Syntax error at or near end of input");
    char text[128];
    size_t n = t->len < sizeof(text) - 1 ? t->len : sizeof(text) - 1;
    memcpy(text, p->src->text + t->off, n);
    text[n] = '\0';
    return weir__sql_error_tok(p, t, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                               "Syntax error at or near '%s'", text);
}

int weir__sql_expect_kw(sql_parser *p, const char *kw)
{
    return weir__sql_accept_kw(p, kw) ? 0 : weir__sql_syntax_error(p);
}

int weir__sql_expect_op(sql_parser *p, const char *op)
{
    return weir__sql_accept_op(p, op) ? 0 : weir__sql_syntax_error(p);
}

/* Spark's keywords, sorted (upper case): whether ANSI mode reserves them
 * and whether they are strict-non-reserved. */
typedef struct sql_keyword {
    const char *word;
    bool ansi_reserved, strict;
} sql_keyword;

static const sql_keyword KEYWORDS[] = {
#define KW(w, reserved, strict) { w, reserved, strict },
#include "keywords.inc"
#undef KW
};

static int kw_cmp(const char *word, const char *kw)
{
    for (;; word++, kw++) {
        int a = toupper((unsigned char)*word), b = (unsigned char)*kw;
        if (a != b || !a)
            return a - b;
    }
}

static const sql_keyword *keyword(const char *word)
{
    size_t lo = 0, hi = sizeof(KEYWORDS) / sizeof(KEYWORDS[0]);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = kw_cmp(word, KEYWORDS[mid].word);
        if (c == 0)
            return &KEYWORDS[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

bool weir__sql_word_reserved(const sql_parser *p, const char *word)
{
    if (!p->src->reserved_keywords)
        return false;
    const sql_keyword *k = keyword(word);
    return k && k->ansi_reserved;
}

/* Words that start a clause or continue an expression: weir's parser does
 * not take them as an implicit alias or the start of a bare column (an
 * item that ends right after one is still a name: weir__sql_at_end_of_item). */
static const char *const CLAUSE_WORDS[] = {
    "ALL", "AND", "ANTI", "AS", "BETWEEN", "BY", "CASE", "CLUSTER", "CREATE",
    "CROSS", "DISTINCT", "DISTRIBUTE", "ELSE", "END", "EXCEPT", "FROM",
    "FULL", "GROUP", "HAVING", "ILIKE", "IN", "INNER", "INTERSECT", "INTO",
    "IS", "JOIN", "LATERAL", "LEFT", "LIKE", "LIMIT", "MINUS", "NATURAL",
    "NOT", "NULL", "OFFSET", "ON", "OR", "ORDER", "OVER", "PIVOT", "QUALIFY",
    "REGEXP", "RIGHT", "RLIKE", "SELECT", "SEMI", "SORT", "TABLESAMPLE",
    "THEN", "UNION", "UNPIVOT", "USING", "WATERMARK", "WHEN", "WHERE",
    "WINDOW", "WITH", NULL
};

bool weir__sql_clause_word(const char *word)
{
    for (int i = 0; CLAUSE_WORDS[i]; i++)
        if (weir__str_ieq(word, CLAUSE_WORDS[i]))
            return true;
    return false;
}

bool weir__sql_at_name(const sql_parser *p, size_t k)
{
    const sql_token *t = weir__sql_peek(p, k);
    if (t->kind == TK_QIDENT)
        return true;
    return t->kind == TK_IDENT && !weir__sql_word_reserved(p, t->text);
}

bool weir__sql_at_ident(const sql_parser *p, size_t k)
{
    const sql_token *t = weir__sql_peek(p, k);
    if (t->kind == TK_QIDENT)
        return true;
    return weir__sql_at_name(p, k) && !weir__sql_clause_word(t->text);
}

bool weir__sql_at_table_alias(const sql_parser *p, size_t k)
{
    if (!weir__sql_at_name(p, k))
        return false;
    const sql_token *t = weir__sql_peek(p, k);
    if (t->kind == TK_QIDENT || p->src->reserved_keywords)
        return true;
    const sql_keyword *kw = keyword(t->text);
    return !kw || !kw->strict;
}

bool weir__sql_at_end_of_item(const sql_parser *p, size_t k)
{
    const sql_token *t = weir__sql_peek(p, k);
    return t->kind == TK_EOF || weir__sql_is_op(p, k, ",") ||
           weir__sql_is_op(p, k, ")") || weir__sql_is_op(p, k, ";") ||
           weir__sql_is_kw(p, k, "FROM");
}

const char *weir__sql_name_part(sql_parser *p)
{
    if (!weir__sql_at_name(p, 0)) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    return p->t[p->i++].text;
}

const char *weir__sql_ident(sql_parser *p)
{
    if (!weir__sql_at_ident(p, 0)) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    return p->t[p->i++].text;
}

void weir__sql_defer_error(sql_parser *p, const sql_token *t, const char *cls,
                           const char *fmt, ...)
{
    if (p->has_deferred)
        return;
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(&p->deferred, WEIR_ESQL, cls, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    weir__sql_error_at(&p->deferred, p->src, weir__sql_tok_pos(t));
    p->has_deferred = true;
}

int weir__sql_raise_deferred(sql_parser *p)
{
    if (!p->has_deferred)
        return 0;
    weir__error_copy(p->err, &p->deferred);
    return WEIR_ESQL;
}

int weir__sql_parse_name(weir_sql_name *out, sql_parser *p)
{
    memset(out, 0, sizeof(*out));
    out->pos = weir__sql_tok_pos(weir__sql_peek(p, 0));
    const char *parts[64];
    size_t n = 0;
    for (;;) {
        const char *part = weir__sql_name_part(p);
        if (!part)
            return WEIR_ESQL;
        if (n == 64)
            return weir__sql_syntax_error(p);
        parts[n++] = part;
        if (!weir__sql_is_op(p, 0, "."))
            break;
        p->i++;
    }
    out->parts = weir__arena_array(p->arena, n, sizeof(*out->parts));
    if (!out->parts)
        return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    memcpy(out->parts, parts, n * sizeof(*parts));
    out->n = n;
    return 0;
}

void weir__sql_strip_live(weir_sql_name *name)
{
    if (name->n >= 2 && weir__str_ieq(name->parts[0], "LIVE")) {
        name->parts++;
        name->n--;
        name->live = true;
    }
}

const char *weir__sql_string(sql_parser *p)
{
    const sql_token *t = weir__sql_peek(p, 0);
    if (t->kind != TK_STRING) {
        weir__sql_syntax_error(p);
        return NULL;
    }
    p->i++;
    if (weir__sql_peek(p, 0)->kind != TK_STRING)
        return t->text;
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, t->text);
    while (weir__sql_peek(p, 0)->kind == TK_STRING)
        weir__buf_puts(&b, p->t[p->i++].text);
    const char *s = weir__arena_strdup(p->arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    if (!s)
        WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    return s;
}

int weir__sql_ident_list(const char ***out, size_t *n, sql_parser *p)
{
    int rc = weir__sql_expect_op(p, "(");
    if (rc)
        return rc;
    size_t cap = 8, len = 0;
    const char **items = weir__arena_array(p->arena, cap, sizeof(*items));
    if (!items)
        return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    do {
        const char *id = weir__sql_name_part(p);
        if (!id)
            return WEIR_ESQL;
        if (len == cap) {
            const char **ni = weir__arena_array(p->arena, cap * 2, sizeof(*ni));
            if (!ni)
                return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
            memcpy(ni, items, len * sizeof(*ni));
            items = ni;
            cap *= 2;
        }
        items[len++] = id;
    } while (weir__sql_accept_op(p, ","));
    rc = weir__sql_expect_op(p, ")");
    if (rc)
        return rc;
    *out = items;
    *n = len;
    return 0;
}

void weir__sql_put_name(weir_buf *out, const weir_sql_name *n)
{
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            weir__buf_putc(out, '.');
        weir__buf_put_sql_ident(out, n->parts[i]);
    }
}

void *weir__sql_grow(weir_arena *a, void *items, size_t *cap, size_t n,
                     size_t elem)
{
    if (items && n < *cap)
        return items;
    size_t nc = *cap ? *cap * 2 : 4;
    while (nc <= n)
        nc *= 2;
    void *ni = weir__arena_array(a, nc, elem);
    if (!ni)
        return NULL;
    if (n && items)
        memcpy(ni, items, n * elem);
    *cap = nc;
    return ni;
}

bool weir__sql_accept_close_angle(sql_parser *p)
{
    sql_token *t = &p->t[p->i < p->n ? p->i : p->n];
    if (t->kind != TK_OP)
        return false;
    if (strcmp(t->text, ">") == 0) {
        p->i++;
        return true;
    }
    if (strcmp(t->text, ">>") == 0 || strcmp(t->text, ">>>") == 0 ||
        strcmp(t->text, ">=") == 0) {
        /* Split off the first '>' and leave the rest as the current token. */
        t->text = t->text + 1;
        t->off++;
        t->len--;
        t->col++;
        return true;
    }
    return false;
}
