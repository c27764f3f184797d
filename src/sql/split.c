/*
 * Splitting a SQL file into statements on top-level ';' (Spark's
 * splitSemiColon): semicolons inside '..', "..", `..`, -- comments and
 * nested bracketed comments do not count. Statements of only blanks and
 * comments are dropped.
 */
#include "internal.h"

#include <string.h>

#include "util/vec.h"

typedef WEIR_VEC(weir_sql_span) span_vec;

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

/* Does text[a, b) hold anything but blanks and comments? */
static bool has_content(const char *s, size_t a, size_t b)
{
    size_t i = a;
    while (i < b) {
        if (blank(s[i])) {
            i++;
        } else if (s[i] == '-' && i + 1 < b && s[i + 1] == '-') {
            while (i < b && s[i] != '\n')
                i++;
        } else if (s[i] == '/' && i + 1 < b && s[i + 1] == '*') {
            int depth = 0;
            while (i < b) {
                if (s[i] == '/' && i + 1 < b && s[i + 1] == '*') {
                    depth++;
                    i += 2;
                } else if (s[i] == '*' && i + 1 < b && s[i + 1] == '/') {
                    i += 2;
                    if (--depth == 0)
                        break;
                } else {
                    i++;
                }
            }
        } else {
            return true;
        }
    }
    return false;
}

static int add_span(span_vec *v, const weir_sql_source *src,
                    size_t a, size_t b, unsigned *line, size_t *line_at)
{
    while (a < b && blank(src->text[a]))
        a++;
    while (b > a && blank(src->text[b - 1]))
        b--;
    for (size_t i = *line_at; i < a; i++)
        if (src->text[i] == '\n')
            (*line)++;
    *line_at = a;
    weir_sql_span sp = { a, b - a, *line };
    return WEIR_VEC_PUSH(v, sp);
}

int weir__sql_split(weir_sql_span **out, size_t *n_out, weir_arena *arena,
                    const weir_sql_source *src, weir_error *err)
{
    span_vec v = WEIR_VEC_INIT;
    const char *s = src->text;
    size_t n = src->len, start = 0, i = 0;
    unsigned line = 1;
    size_t line_at = 0;
    int rc = 0;
    *out = NULL;
    *n_out = 0;
    while (i < n) {
        char c = s[i];
        if (c == '\'' || c == '"' || c == '`') {
            size_t at = i++;
            bool closed = false;
            while (i < n) {
                if (s[i] == '\\' && c != '`') {
                    i += 2;
                    continue;
                }
                if (s[i] == c) {
                    i++;
                    closed = true;
                    break;
                }
                i++;
            }
            if (!closed || i > n) {
                rc = WEIR_ERR(err, WEIR_ESQL, "PARSE_SYNTAX_ERROR",
                              "Syntax error at or near '%c': unterminated %s",
                              c, c == '`' ? "quoted identifier"
                                          : "string literal");
                weir__error_at_offset(err, src->path, s, n, at);
                goto out_fail;
            }
        } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            size_t at = i;
            int depth = 0;
            while (i < n) {
                if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
                    depth++;
                    i += 2;
                } else if (s[i] == '*' && i + 1 < n && s[i + 1] == '/') {
                    i += 2;
                    if (--depth == 0)
                        break;
                } else {
                    i++;
                }
            }
            if (depth != 0) {
                rc = WEIR_ERR(err, WEIR_ESQL, "UNCLOSED_BRACKETED_COMMENT",
                              "Found an unclosed bracketed comment. Please, "
                              "append */ at the end of the comment.");
                weir__error_at_offset(err, src->path, s, n, at);
                goto out_fail;
            }
        } else if (c == ';') {
            if (has_content(s, start, i) &&
                add_span(&v, src, start, i, &line, &line_at))
                goto out_oom;
            start = ++i;
        } else {
            i++;
        }
    }
    if (has_content(s, start, n) &&
        add_span(&v, src, start, n, &line, &line_at))
        goto out_oom;
    if (v.len) {
        *out = weir__arena_array(arena, v.len, sizeof(**out));
        if (!*out)
            goto out_oom;
        memcpy(*out, v.items, v.len * sizeof(**out));
    }
    *n_out = v.len;
    WEIR_VEC_FREE(&v);
    return 0;
out_oom:
    rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
out_fail:
    WEIR_VEC_FREE(&v);
    return rc;
}
