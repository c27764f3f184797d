/*
 * Problem reporting for src/spec: turns a class, a position and a message
 * into a weir_error carrying the spec path and the offending line's text,
 * appends it to the caller's diagnostics (capped at WEIR_SPEC_MAX_PROBLEMS)
 * and keeps the first one in the caller's error.
 */
#include "spec/spec_internal.h"

#include <stdarg.h>
#include <string.h>

/* Length of the line break at text[i], 0 if none (libyaml's rules). */
static size_t break_len(const char *text, size_t len, size_t i)
{
    const unsigned char *t = (const unsigned char *)text;
    if (t[i] == '\n')
        return 1;
    if (t[i] == '\r')
        return i + 1 < len && t[i + 1] == '\n' ? 2 : 1;
    if (t[i] == 0xC2 && i + 1 < len && t[i + 1] == 0x85)
        return 2;
    if (t[i] == 0xE2 && i + 2 < len && t[i + 1] == 0x80 &&
        (t[i + 2] == 0xA8 || t[i + 2] == 0xA9))
        return 3;
    return 0;
}

weir_spec_pos weir__spec_pos_at(const char *text, size_t len, size_t offset)
{
    weir_spec_pos pos = { 1, 1 };
    if (offset > len)
        offset = len;
    size_t i = 0;
    while (i < offset) {
        size_t b = break_len(text, len, i);
        if (b) {
            pos.line++;
            pos.column = 1;
            i += b;
            continue;
        }
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            pos.column++;
        i++;
    }
    return pos;
}

/* Find the text of 1-based line `line`. */
static bool line_text(const char *text, size_t len, unsigned line,
                      const char **start, size_t *n)
{
    if (!text || line == 0)
        return false;
    size_t i = 0;
    unsigned cur = 1;
    while (cur < line && i < len) {
        size_t b = break_len(text, len, i);
        if (b) {
            cur++;
            i += b;
        } else {
            i++;
        }
    }
    if (cur != line)
        return false;
    size_t end = i;
    while (end < len && !break_len(text, len, end))
        end++;
    *start = text + i;
    *n = end - i;
    return true;
}

int weir__spec_clip(const char *s)
{
    size_t n = strlen(s);
    if (n <= 160)
        return (int)n;
    n = 160;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return (int)n;
}

static void add(weir_spec_report *r, weir_error *e)
{
    if (r->n == 0)
        weir__error_copy(r->err, e);
    if (r->diags)
        weir__diags_add(r->diags, e);
}

void weir__spec_report(weir_spec_report *r, const char *src_file,
                       int src_line, const char *cls, weir_spec_pos pos,
                       const char *fmt, ...)
{
    weir_error e;
    if (r->n > WEIR_SPEC_MAX_PROBLEMS) {
        r->n++;
        return;
    }
    if (r->n == WEIR_SPEC_MAX_PROBLEMS) {
        weir__error_set(&e, WEIR_ESPEC, "PIPELINE_SPEC_TOO_MANY_ERRORS",
                        src_file, src_line,
                        "Too many problems in the pipeline spec; only the "
                        "first %d are listed.",
                        WEIR_SPEC_MAX_PROBLEMS);
        weir__error_at(&e, r->path, 0, 0);
        add(r, &e);
        r->n++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(&e, WEIR_ESPEC, cls, src_file, src_line, fmt, ap);
    va_end(ap);
    weir__error_at(&e, r->path, pos.line, pos.column);
    const char *start;
    size_t n;
    if (line_text(r->text, r->len, pos.line, &start, &n))
        weir__error_set_line_text(&e, start, n);
    add(r, &e);
    r->n++;
}
