/*
 * Text helpers of the plan translator: errors with the Python origin,
 * nesting and size bounds, Spark identifiers and names, string literals,
 * and the check that user-written SQL fragments are self-contained.
 */
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
