/*
 * weir_error helpers and the diagnostics list (see error.h).
 */
#include "error.h"
#include "vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int weir__error_vset(weir_error *err, int code, const char *cls,
                     const char *src_file, int src_line, const char *fmt,
                     va_list ap)
{
    if (!err)
        return code;
    memset(err, 0, sizeof(*err));
    err->code = code;
    if (cls)
        copy_str(err->error_class, sizeof(err->error_class), cls);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    /* Messages are one line. */
    for (char *p = err->message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    err->src_file = src_file;
    err->src_line = src_line;
    return code;
}

int weir__error_set(weir_error *err, int code, const char *cls,
                    const char *src_file, int src_line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(err, code, cls, src_file, src_line, fmt, ap);
    va_end(ap);
    return code;
}

void weir__error_at(weir_error *err, const char *path, unsigned line,
                    unsigned column)
{
    if (!err)
        return;
    if (path)
        copy_str(err->path, sizeof(err->path), path);
    err->line = line;
    err->column = column;
}

void weir__error_set_line_text(weir_error *err, const char *line_start,
                               size_t len)
{
    if (!err)
        return;
    if (len >= sizeof(err->line_text))
        len = sizeof(err->line_text) - 1;
    memcpy(err->line_text, line_start, len);
    err->line_text[len] = '\0';
    for (char *p = err->line_text; *p; p++)
        if (*p == '\r' || *p == '\n')
            *p = '\0';
}

void weir__error_set_line_of(weir_error *err, const char *text,
                             size_t text_len, unsigned line)
{
    if (!err || !text || line == 0)
        return;
    size_t i = 0;
    for (unsigned cur = 1; cur < line; cur++) {
        const char *nl = memchr(text + i, '\n', text_len - i);
        if (!nl)
            return;
        i = (size_t)(nl - text) + 1;
    }
    size_t end = i;
    while (end < text_len && text[end] != '\n')
        end++;
    weir__error_set_line_text(err, text + i, end - i);
}

void weir__error_at_offset(weir_error *err, const char *path,
                           const char *text, size_t text_len, size_t offset)
{
    if (!err)
        return;
    if (offset > text_len)
        offset = text_len;
    unsigned line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    /* Columns count characters, not bytes: skip UTF-8 continuation bytes. */
    unsigned col = 1;
    for (size_t i = line_start; i < offset; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            col++;
    size_t end = line_start;
    while (end < text_len && text[end] != '\n')
        end++;
    weir__error_at(err, path, line, col);
    weir__error_set_line_text(err, text + line_start, end - line_start);
}

void weir__error_clear(weir_error *err)
{
    if (err)
        memset(err, 0, sizeof(*err));
}

void weir__error_copy(weir_error *dst, const weir_error *src)
{
    if (dst && src && dst != src)
        memcpy(dst, src, sizeof(*dst));
}

void weir__error_prefix(weir_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char pre[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof(pre), fmt, ap);
    va_end(ap);
    size_t np = strlen(pre), nm = strlen(err->message);
    if (np >= sizeof(err->message))
        np = sizeof(err->message) - 1;
    if (np + nm >= sizeof(err->message))
        nm = sizeof(err->message) - 1 - np;
    memmove(err->message + np, err->message, nm);
    memcpy(err->message, pre, np);
    err->message[np + nm] = '\0';
}

int weir__diags_add(weir__diags *d, const weir_error *e)
{
    if (d->len == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        weir_error *items = realloc(d->items, cap * sizeof(*items));
        if (!items) {
            d->oom = 1;
            return WEIR_ENOMEM;
        }
        d->items = items;
        d->cap = cap;
    }
    d->items[d->len++] = *e;
    return 0;
}

void weir__diags_clear(weir__diags *d)
{
    d->len = 0;
    d->oom = 0;
}

void weir__diags_free(weir__diags *d)
{
    if (!d)
        return;
    free(d->items);
    d->items = NULL;
    d->len = d->cap = 0;
}

int weir__findings_add(weir__findings *f, const weir_spark_finding *x)
{
    if (weir__vec_grow((void **)&f->items, &f->cap, sizeof(*f->items),
                       f->len + 1))
        return WEIR_ENOMEM;
    f->items[f->len++] = *x;
    return 0;
}

void weir__findings_free(weir__findings *f)
{
    if (!f)
        return;
    free(f->items);
    f->items = NULL;
    f->len = f->cap = 0;
}
