/*
 * Text helpers of the plan translator: errors with the Python origin,
 * nesting and size bounds, Spark identifiers and names, string literals,
 * and the check that user-written SQL fragments are self-contained.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

/* call_site is "path/file.py:LINE". */
static void set_origin(weir__plan_origin *o, const Spark__Connect__Origin *org)
{
    memset(o, 0, sizeof *o);
    if (!org || org->function_case != SPARK__CONNECT__ORIGIN__FUNCTION_PYTHON_ORIGIN ||
        !org->python_origin || !org->python_origin->call_site)
        return;
    const char *cs = org->python_origin->call_site;
    const char *colon = strrchr(cs, ':');
    size_t n = strlen(cs);
    if (colon && colon[1]) {
        char *end;
        unsigned long line = strtoul(colon + 1, &end, 10);
        if (*end == '\0' && line <= 0xffffffffUL) {
            o->line = (unsigned)line;
            n = (size_t)(colon - cs);
        }
    }
    if (n >= sizeof o->file)
        n = sizeof o->file - 1;
    memcpy(o->file, cs, n);
    o->file[n] = '\0';
}

int weir__plan_fail(plan_ctx *c, const char *error_class, const char *fmt, ...)
{
    weir__plan_error *err = c->err;
    if (err->error_class[0])
        return -1; /* keep the first (innermost) error */
    snprintf(err->error_class, sizeof err->error_class, "%s", error_class);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    set_origin(&err->origin, c->origin);
    return -1;
}

int weir__plan_enter(plan_ctx *c, weir_buf *b, const Spark__Connect__Origin *o,
                     plan_mark *m)
{
    m->origin = c->origin;
    if (o && o->function_case == SPARK__CONNECT__ORIGIN__FUNCTION_PYTHON_ORIGIN &&
        o->python_origin && o->python_origin->call_site)
        c->origin = o;
    if (++c->depth > WEIR_PLAN_MAX_DEPTH) {
        c->depth--;
        return weir__plan_fail(c, "PLAN_TOO_DEEP",
                               "The DataFrame plan is nested more than %d "
                               "levels deep.",
                               WEIR_PLAN_MAX_DEPTH);
    }
    if (b->len > WEIR_PLAN_MAX_SQL || weir__buf_failed(b)) {
        c->depth--;
        return weir__plan_fail(c, "PLAN_TOO_LARGE",
                               "The DataFrame plan is too large to translate.");
    }
    return 0;
}

void weir__plan_leave(plan_ctx *c, const plan_mark *m)
{
    c->depth--;
    c->origin = m->origin;
}

/* Words that must be backquoted to be read as a name. A superset of what
 * weir's parser reserves, so text stays valid for Spark too. */
static const char *const KEYWORDS[] = {
    "ALL", "AND", "ANTI", "ANY", "ARRAY", "AS", "ASC", "BETWEEN", "BOTH",
    "BY", "CASE", "CAST", "CLUSTER", "CREATE", "CROSS", "CURRENT",
    "CURRENT_DATE", "CURRENT_TIMESTAMP", "DATE", "DESC", "DISTINCT",
    "DISTRIBUTE", "DIV", "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS",
    "EXTRACT", "FALSE", "FILTER", "FOLLOWING", "FOR", "FROM", "FULL", "GROUP",
    "HAVING", "ILIKE", "IN", "INNER", "INTERSECT", "INTERVAL", "INTO", "IS",
    "JOIN", "LATERAL", "LEFT", "LIKE", "LIMIT", "MAP", "MINUS", "NATURAL",
    "NOT", "NULL", "NULLS", "OF", "OFFSET", "ON", "OR", "ORDER", "OUTER",
    "OVER", "PARTITION", "PIVOT", "PRECEDING", "QUALIFY", "RANGE", "REGEXP",
    "RIGHT", "RLIKE", "ROWS", "SELECT", "SEMI", "SOME", "SORT", "STREAM",
    "STRUCT", "TABLE", "TABLESAMPLE", "THEN", "TIMESTAMP", "TIMESTAMP_NTZ",
    "TO", "TRUE", "UNBOUNDED", "UNION", "UNPIVOT", "USING", "VALUES",
    "WATERMARK", "WHEN", "WHERE", "WINDOW", "WITH", NULL
};

static bool plain_word(const char *s)
{
    if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                       *s == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    for (int i = 0; KEYWORDS[i]; i++)
        if (weir__str_ieq(s, KEYWORDS[i]))
            return false;
    return true;
}

static void put_identn(weir_buf *b, const char *s, size_t n)
{
    weir__buf_putc(b, '`');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`')
            weir__buf_putc(b, '`');
        weir__buf_putc(b, s[i]);
    }
    weir__buf_putc(b, '`');
}

void weir__plan_put_ident(weir_buf *b, const char *name)
{
    if (!name)
        name = "";
    if (plain_word(name))
        weir__buf_puts(b, name);
    else
        put_identn(b, name, strlen(name));
}

/* Split a Spark multi-part name into parts; calls f(part, len, arg) for
 * each unquoted/undoubled part. Returns the part count or -1. */
typedef void (*part_fn)(const char *s, size_t n, size_t index, void *arg);

static int split_name(const char *text, part_fn f, void *arg, char *scratch)
{
    size_t i = 0, idx = 0;
    if (!text || !*text)
        return -1;
    for (;;) {
        size_t o = 0;
        if (text[i] == '`') {
            i++;
            for (;;) {
                if (!text[i])
                    return -1;
                if (text[i] == '`') {
                    if (text[i + 1] == '`') {
                        scratch[o++] = '`';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                scratch[o++] = text[i++];
            }
            if (text[i] && text[i] != '.')
                return -1;
        } else {
            while (text[i] && text[i] != '.') {
                if (text[i] == '`')
                    return -1;
                scratch[o++] = text[i++];
            }
            if (o == 0)
                return -1;
        }
        if (f)
            f(scratch, o, idx, arg);
        idx++;
        if (!text[i])
            break;
        i++; /* '.' */
        if (!text[i])
            return -1;
    }
    return (int)idx;
}

static void put_part(const char *s, size_t n, size_t index, void *arg)
{
    weir_buf *b = arg;
    if (index)
        weir__buf_putc(b, '.');
    char tmp[128];
    if (n < sizeof tmp) {
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        if (plain_word(tmp)) {
            weir__buf_puts(b, tmp);
            return;
        }
    }
    put_identn(b, s, n);
}

int weir__plan_put_name(plan_ctx *c, weir_buf *b, const char *text,
                        const char *what)
{
    size_t n = text ? strlen(text) : 0;
    char *scratch = malloc(n + 1);
    if (!scratch)
        return weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
    int k = split_name(text, put_part, b, scratch);
    free(scratch);
    if (k < 0)
        return weir__plan_fail(c, PLAN_E_SYNTAX, "Invalid %s name '%.200s'.",
                               what, text ? text : "");
    return 0;
}

typedef struct last_arg {
    char *out;
} last_arg;

static void keep_last(const char *s, size_t n, size_t index, void *arg)
{
    (void)index;
    last_arg *a = arg;
    memmove(a->out, s, n);
    a->out[n] = '\0';
}

int weir__plan_last_part(const char *text, char *out, size_t *n_parts)
{
    size_t n = text ? strlen(text) : 0;
    char *scratch = malloc(n + 1);
    if (!scratch)
        return -1;
    last_arg a = { out };
    int k = split_name(text, keep_last, &a, scratch);
    free(scratch);
    if (k < 0)
        return -1;
    if (n_parts)
        *n_parts = (size_t)k;
    return 0;
}

void weir__plan_put_stringn(weir_buf *b, const char *s, size_t n)
{
    weir__buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '\'': weir__buf_puts(b, "\\'"); break;
        case '\\': weir__buf_puts(b, "\\\\"); break;
        case '\n': weir__buf_puts(b, "\\n"); break;
        case '\r': weir__buf_puts(b, "\\r"); break;
        case '\t': weir__buf_puts(b, "\\t"); break;
        default:
            if (ch < 0x20 || ch == 0x7f)
                weir__buf_printf(b, "\\u%04x", ch);
            else
                weir__buf_putc(b, (char)ch);
        }
    }
    weir__buf_putc(b, '\'');
}

void weir__plan_put_string(weir_buf *b, const char *s)
{
    weir__plan_put_stringn(b, s ? s : "", s ? strlen(s) : 0);
}

int weir__plan_check_text(plan_ctx *c, const char *text, const char *what)
{
    if (!text)
        return weir__plan_fail(c, PLAN_E_INVALID, "The %s is missing.", what);
    int depth = 0;
    bool any = false;
    for (const char *p = text; *p; p++) {
        char ch = *p;
        if (ch == '\'' || ch == '"' || ch == '`') {
            char q = ch;
            for (p++;; p++) {
                if (!*p)
                    return weir__plan_fail(c, PLAN_E_SYNTAX,
                                           "The %s '%.200s' has an unclosed "
                                           "quote.",
                                           what, text);
                if (*p == '\\' && q != '`' && p[1]) {
                    p++;
                    continue;
                }
                if (*p == q)
                    break;
            }
            any = true;
        } else if (ch == '-' && p[1] == '-') {
            while (p[1] && p[1] != '\n')
                p++;
        } else if (ch == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e)
                return weir__plan_fail(c, PLAN_E_SYNTAX,
                                       "The %s '%.200s' has an unclosed "
                                       "comment.",
                                       what, text);
            p = e + 1;
        } else if (ch == '(') {
            depth++;
            any = true;
        } else if (ch == ')') {
            if (--depth < 0)
                break;
        } else if (ch == ';') {
            return weir__plan_fail(c, PLAN_E_SYNTAX,
                                   "The %s '%.200s' must be a single "
                                   "statement (found ';').",
                                   what, text);
        } else if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
            any = true;
        }
    }
    if (depth != 0)
        return weir__plan_fail(c, PLAN_E_SYNTAX,
                               "The %s '%.200s' has unbalanced parentheses.",
                               what, text);
    if (!any)
        return weir__plan_fail(c, PLAN_E_SYNTAX, "The %s is empty.", what);
    return 0;
}

void weir__plan_put_text(weir_buf *b, const char *text)
{
    weir__buf_puts(b, text);
    if (strstr(text, "--"))
        weir__buf_putc(b, '\n');
}

/* ---- an expression string's own alias ---- */

enum { TOK_WORD, TOK_QUOTED, TOK_STRING, TOK_NUMBER, TOK_GROUP, TOK_OTHER };

typedef struct text_tok {
    size_t start, end;
    int kind;
} text_tok;

static bool word_in(const char *text, const text_tok *t, const char *const *list)
{
    size_t n = t->end - t->start;
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && weir__str_ieqn(text + t->start, list[i], n))
            return true;
    return false;
}

/* The last three tokens of text at nesting depth 0 (a parenthesised group
 * is one token); returns how many of them there are (at most 3, the last
 * in t[2]). Comments are skipped. */
static int last_tokens(const char *text, text_tok t[3])
{
    int n = 0, depth = 0;
    size_t group = 0;
    for (size_t i = 0; text[i];) {
        char ch = text[i];
        text_tok k = { i, i + 1, TOK_OTHER };
        if (ch == '-' && text[i + 1] == '-') {
            while (text[i] && text[i] != '\n')
                i++;
            continue;
        }
        if (ch == '/' && text[i + 1] == '*') {
            const char *e = strstr(text + i + 2, "*/");
            i = e ? (size_t)(e - text) + 2 : strlen(text);
            continue;
        }
        if (isspace((unsigned char)ch)) {
            i++;
            continue;
        }
        if (ch == '(') {
            if (depth++ == 0)
                group = i;
            i++;
            continue;
        }
        if (ch == ')' && depth > 0) {
            i++;
            if (--depth > 0)
                continue;
            k.start = group;
            k.kind = TOK_GROUP;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            size_t j = i + 1;
            while (text[j] && text[j] != ch)
                j += (text[j] == '\\' && ch != '`' && text[j + 1]) ? 2 : 1;
            k.end = text[j] ? j + 1 : j;
            k.kind = ch == '`' ? TOK_QUOTED : TOK_STRING;
        } else if (isalpha((unsigned char)ch) || ch == '_') {
            while (isalnum((unsigned char)text[k.end]) || text[k.end] == '_')
                k.end++;
            k.kind = TOK_WORD;
        } else if (isdigit((unsigned char)ch)) {
            while (isalnum((unsigned char)text[k.end]) || text[k.end] == '.')
                k.end++;
            k.kind = TOK_NUMBER;
        }
        if (k.kind != TOK_GROUP)
            i = k.end;
        if (depth > 0)
            continue;
        if (n == 3) {
            t[0] = t[1];
            t[1] = t[2];
            n = 2;
        }
        t[n++] = k;
    }
    for (int i = n - 1; n < 3 && i >= 0; i--) /* the last token in t[2] */
        t[3 - n + i] = t[i];
    return n;
}

size_t weir__plan_text_unaliased(const char *text)
{
    /* Words that end an expression themselves (x IS NULL, INTERVAL 1 DAY,
     * CASE .. END), and words after which an expression follows. */
    static const char *const ENDS[] = {
        "NULL", "TRUE", "FALSE", "UNKNOWN", "END", "ASC", "DESC", "FIRST",
        "LAST", "ROW", "FOLLOWING", "PRECEDING", "YEAR", "YEARS", "MONTH",
        "MONTHS", "WEEK", "WEEKS", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE",
        "MINUTES", "SECOND", "SECONDS", "MILLISECOND", "MILLISECONDS",
        "MICROSECOND", "MICROSECONDS", NULL
    };
    static const char *const LEADS[] = {
        "AND", "OR", "NOT", "IS", "IN", "LIKE", "ILIKE", "RLIKE", "REGEXP",
        "BETWEEN", "THEN", "ELSE", "WHEN", "CASE", "DISTINCT", "ALL", "ANY",
        "SOME", "EXISTS", "ESCAPE", "DIV", "AS", "BY", "OVER", "FROM", "NULLS",
        "TO", "INTERVAL", "ON", "SELECT", "WHERE", "HAVING", NULL
    };
    text_tok t[3];
    int n = last_tokens(text, t);
    size_t len = strlen(text);
    if (n >= 3 && t[1].kind == TOK_WORD && t[1].end - t[1].start == 2 &&
        weir__str_ieqn(text + t[1].start, "AS", 2) &&
        (t[2].kind == TOK_WORD || t[2].kind == TOK_QUOTED || t[2].kind == TOK_GROUP))
        len = t[1].start; /* expr AS alias, expr AS (a, b) */
    else if (n >= 2 && (t[2].kind == TOK_QUOTED ||
                        (t[2].kind == TOK_WORD && !word_in(text, &t[2], ENDS))) &&
             ((t[1].kind == TOK_WORD && !word_in(text, &t[1], LEADS)) ||
              t[1].kind == TOK_QUOTED || t[1].kind == TOK_STRING ||
              t[1].kind == TOK_NUMBER || t[1].kind == TOK_GROUP ||
              (t[1].kind == TOK_OTHER && text[t[1].start] == ']')))
        len = t[2].start; /* expr alias */
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    return len;
}
