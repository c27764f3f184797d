/*
 * A growable, always NUL-terminated byte buffer with a sticky failure flag:
 * append freely, check weir__buf_failed once at the end.
 */
#ifndef WEIR_UTIL_BUF_H
#define WEIR_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct weir_buf {
    char *ptr;  /* "" when empty; owned */
    size_t len; /* bytes, excluding the NUL */
    size_t cap;
    bool failed; /* an allocation failed; contents are incomplete */
} weir_buf;

#define WEIR_BUF_INIT { NULL, 0, 0, false }

void weir__buf_init(weir_buf *b);
void weir__buf_free(weir_buf *b);
void weir__buf_clear(weir_buf *b); /* keep the memory, drop the contents */
/* Make room for n more bytes. */
bool weir__buf_reserve(weir_buf *b, size_t n);
void weir__buf_put(weir_buf *b, const void *data, size_t len);
void weir__buf_puts(weir_buf *b, const char *s);
void weir__buf_putc(weir_buf *b, char c);
void weir__buf_printf(weir_buf *b, const char *fmt, ...) WEIR_PRINTF(2, 3);
/* Truncate to len bytes (len <= b->len). */
void weir__buf_truncate(weir_buf *b, size_t len);
/* Contents as a C string; never NULL ("" when empty). */
const char *weir__buf_cstr(const weir_buf *b);
/* Hand the heap string to the caller (free() it) and reset b. NULL on
 * failure. */
char *weir__buf_detach(weir_buf *b);
static inline bool weir__buf_failed(const weir_buf *b)
{
    return b->failed;
}

/* SQL quoting helpers. */
/* Append s as a DuckDB string literal: 'it''s'. */
void weir__buf_put_sql_string(weir_buf *b, const char *s);
/* Append s as a DuckDB quoted identifier: "a""b". */
void weir__buf_put_sql_ident(weir_buf *b, const char *s);
/* Append s as a Spark SQL quoted identifier: `a``b`. */
void weir__buf_put_spark_ident(weir_buf *b, const char *s);
/* Append s as a JSON string with quotes and escapes. */
void weir__buf_put_json_string(weir_buf *b, const char *s);
void weir__buf_put_json_stringn(weir_buf *b, const char *s, size_t len);

/* Percent-encoding (RFC 3986); which bytes need it is the caller's rule. */
/* Append the byte c as "%XX" (upper-case hex). */
void weir__buf_put_percent(weir_buf *b, unsigned char c);
/* Append the decoding of len bytes of s ("%2F" -> '/', other bytes as
 * they are). False when a '%' is not followed by two hex digits, or when
 * it encodes NUL and nul_ok is false; what was appended is then partial. */
bool weir__buf_put_percent_decoded(weir_buf *b, const char *s, size_t len,
                                   bool nul_ok);

#endif
