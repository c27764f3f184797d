/*
 * Error reporting for every module: fill a caller-provided weir_error where a
 * failure is found (code, Spark error class, one-line message, source
 * location and the C file:line that raised it) and pass the code up. Setting
 * an error never allocates. A diagnostics list collects several independent
 * errors (a file with many bad statements, a graph with many invalid flows).
 */
#ifndef WEIR_UTIL_ERROR_H
#define WEIR_UTIL_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#include "weir.h"

#if defined(__GNUC__)
#define WEIR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WEIR_PRINTF(f, a)
#endif

/* Set err (may be NULL) and return code. cls may be NULL or "" for errors
 * without a Spark error class. */
int weir__error_set(weir_error *err, int code, const char *cls,
                    const char *src_file, int src_line, const char *fmt, ...)
    WEIR_PRINTF(6, 7);
int weir__error_vset(weir_error *err, int code, const char *cls,
                     const char *src_file, int src_line, const char *fmt,
                     va_list ap) WEIR_PRINTF(6, 0);

#define WEIR_ERR(err, code, cls, ...)                                         \
    weir__error_set((err), (code), (cls), __FILE__, __LINE__, __VA_ARGS__)

/* Attach a source location (path may be NULL to keep the current one).
 * line_text, when not NULL, is the source line shown under the message. */
void weir__error_at(weir_error *err, const char *path, unsigned line,
                    unsigned column);
void weir__error_set_line_text(weir_error *err, const char *line_start,
                               size_t len);
/* The 1-based line `line` of text (lines end at '\n') as err's line_text;
 * nothing changes when line is 0 or past the text's last line. */
void weir__error_set_line_of(weir_error *err, const char *text,
                             size_t text_len, unsigned line);
/* Locate offset in text: fills line, column (1-based) and the line's text. */
void weir__error_at_offset(weir_error *err, const char *path,
                           const char *text, size_t text_len, size_t offset);
void weir__error_clear(weir_error *err);
/* Copy src into dst (dst may be NULL). */
void weir__error_copy(weir_error *dst, const weir_error *src);
/* Prefix the message with text (used to add context such as a flow name). */
void weir__error_prefix(weir_error *err, const char *fmt, ...)
    WEIR_PRINTF(2, 3);

/* A growable list of errors. */
typedef struct weir__diags {
    weir_error *items;
    size_t len, cap;
    int oom; /* set when an error could not be recorded */
} weir__diags;

/* Append a copy of e; returns 0 or WEIR_ENOMEM (and sets d->oom). */
int weir__diags_add(weir__diags *d, const weir_error *e);
void weir__diags_clear(weir__diags *d);
void weir__diags_free(weir__diags *d);

/* A growable list of portability findings (weir_pipeline_check_spark):
 * src/spec and src/graph append what they know of, src/api owns it. */
typedef struct weir__findings {
    weir_spark_finding *items;
    size_t len, cap;
} weir__findings;

/* Append a copy of x; 0 or WEIR_ENOMEM. */
int weir__findings_add(weir__findings *f, const weir_spark_finding *x);
void weir__findings_free(weir__findings *f);

#endif
