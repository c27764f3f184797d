/*
 * weir_buf: growable string buffer with sticky failure (see buf.h).
 */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"

void weir__buf_init(weir_buf *b)
{
    b->ptr = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

void weir__buf_free(weir_buf *b)
{
    if (!b)
        return;
    free(b->ptr);
    weir__buf_init(b);
}

void weir__buf_clear(weir_buf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->ptr)
        b->ptr[0] = '\0';
}

bool weir__buf_reserve(weir_buf *b, size_t n)
{
    if (b->failed)
        return false;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->ptr, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->ptr = p;
    b->cap = cap;
    return true;
}

void weir__buf_put(weir_buf *b, const void *data, size_t len)
{
    if (!weir__buf_reserve(b, len))
        return;
    if (len)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
}

void weir__buf_puts(weir_buf *b, const char *s)
{
    weir__buf_put(b, s, strlen(s));
}

void weir__buf_putc(weir_buf *b, char c)
{
    weir__buf_put(b, &c, 1);
}

void weir__buf_printf(weir_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        weir__buf_put(b, small, (size_t)n);
        return;
    }
    if (!weir__buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void weir__buf_truncate(weir_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->ptr[len] = '\0';
    }
}

const char *weir__buf_cstr(const weir_buf *b)
{
    return b->ptr ? b->ptr : "";
}

char *weir__buf_detach(weir_buf *b)
{
    if (b->failed) {
        weir__buf_free(b);
        return NULL;
    }
    char *p = b->ptr;
    if (!p) {
        p = malloc(1);
        if (p)
            p[0] = '\0';
    }
    weir__buf_init(b);
    return p;
}

static void put_quoted(weir_buf *b, const char *s, char q)
{
    weir__buf_putc(b, q);
    for (const char *p = s; *p; p++) {
        if (*p == q)
            weir__buf_putc(b, q);
        weir__buf_putc(b, *p);
    }
    weir__buf_putc(b, q);
}

void weir__buf_put_sql_string(weir_buf *b, const char *s)
{
    put_quoted(b, s, '\'');
}

void weir__buf_put_sql_ident(weir_buf *b, const char *s)
{
    put_quoted(b, s, '"');
}

void weir__buf_put_spark_ident(weir_buf *b, const char *s)
{
    put_quoted(b, s, '`');
}

void weir__buf_put_json_stringn(weir_buf *b, const char *s, size_t len)
{
    weir__buf_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"':
            weir__buf_puts(b, "\\\"");
            break;
        case '\\':
            weir__buf_puts(b, "\\\\");
            break;
        case '\n':
            weir__buf_puts(b, "\\n");
            break;
        case '\r':
            weir__buf_puts(b, "\\r");
            break;
        case '\t':
            weir__buf_puts(b, "\\t");
            break;
        default:
            if (c < 0x20)
                weir__buf_printf(b, "\\u%04x", c);
            else
                weir__buf_putc(b, (char)c);
        }
    }
    weir__buf_putc(b, '"');
}

void weir__buf_put_json_string(weir_buf *b, const char *s)
{
    if (!s) {
        weir__buf_puts(b, "null");
        return;
    }
    weir__buf_put_json_stringn(b, s, strlen(s));
}

void weir__buf_put_percent(weir_buf *b, unsigned char c)
{
    static const char hex[] = "0123456789ABCDEF";
    weir__buf_putc(b, '%');
    weir__buf_putc(b, hex[c >> 4]);
    weir__buf_putc(b, hex[c & 15]);
}

bool weir__buf_put_percent_decoded(weir_buf *b, const char *s, size_t len,
                                   bool nul_ok)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            weir__buf_putc(b, s[i]);
            continue;
        }
        if (i + 2 >= len)
            return false;
        int hi = weir__str_hex_value(s[i + 1]);
        int lo = weir__str_hex_value(s[i + 2]);
        if (hi < 0 || lo < 0 || (!nul_ok && hi == 0 && lo == 0))
            return false;
        weir__buf_putc(b, (char)(hi * 16 + lo));
        i += 2;
    }
    return true;
}
