/*
 * Helpers shared by the libweir examples, kept out of the examples so each
 * reads like the Scala listing it mirrors: a scratch folder with input
 * files, failing with a message, and reading query results through the
 * Arrow C stream (weir_pipeline_query_arrow) into rows of text that can be
 * compared with what the example expects. Every function is static inline:
 * include this header from one .c file. Uses only C99 and POSIX.
 */
#ifndef WEIR_EXAMPLE_H
#define WEIR_EXAMPLE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weir.h>

/* Print a failed call's error (compiler style when it has a location) and
 * exit 1. */
static inline void example_die(const char *what, int rc, const weir_error *e)
{
    if (e && e->path[0])
        fprintf(stderr, "%s: %s:%u:%u: error: [%s] %s\n", what, e->path,
                e->line, e->column, e->error_class, e->message);
    else
        fprintf(stderr, "%s: error %d (%s): [%s] %s\n", what, rc,
                weir_strerror(rc), e ? e->error_class : "",
                e ? e->message : "");
    exit(1);
}

/* Check a call: on a nonzero rc, report and exit. */
#define CHECK(call, err)                                                      \
    do {                                                                      \
        int check_rc_ = (call);                                               \
        if (check_rc_ != 0)                                                   \
            example_die(#call, check_rc_, &(err));                            \
    } while (0)

/* Check a condition the example expects; exit 1 with a message when false. */
static inline void example_expect(int ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("unexpected: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A path under dir, in a static buffer per slot (0..3). */
static inline const char *example_path(int slot, const char *dir,
                                       const char *rel)
{
    static char buf[4][1024];
    snprintf(buf[slot & 3], sizeof(buf[0]), "%s/%s", dir, rel);
    return buf[slot & 3];
}

/* Create dir/rel (one level) and write text to dir/rel/file. */
static inline void example_write(const char *dir, const char *rel,
                                 const char *file, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", dir, rel, file);
    FILE *f = fopen(path, "w");
    example_expect(f != NULL, "cannot write %s", path);
    fputs(text, f);
    example_expect(fclose(f) == 0, "cannot write %s", path);
}

/* Remove a folder tree (the scratch folder) with rm -rf. */
static inline void example_remove(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* --- Arrow ----------------------------------------------------------------- */

/* Days since 1970-01-01 as YYYY-MM-DD (Howard Hinnant's civil_from_days). */
static inline void example_date(char *out, size_t size, int64_t days)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    snprintf(out, size, "%04lld-%02lld-%02lld", (long long)(y + (m <= 2)),
             (long long)m, (long long)d);
}

/* One cell of a child array as text ("NULL" for nulls). Handles the types
 * the examples produce: int64, int32, float64, bool, utf8, date32. */
static inline void example_cell(char *out, size_t size,
                                const struct ArrowSchema *s,
                                const struct ArrowArray *a, int64_t row)
{
    int64_t i = a->offset + row;
    const uint8_t *valid = (const uint8_t *)a->buffers[0];
    if (valid && !(valid[i / 8] & (1u << (i % 8)))) {
        snprintf(out, size, "NULL");
        return;
    }
    const char *f = s->format;
    if (strcmp(f, "l") == 0)
        snprintf(out, size, "%lld",
                 (long long)((const int64_t *)a->buffers[1])[i]);
    else if (strcmp(f, "i") == 0)
        snprintf(out, size, "%d", (int)((const int32_t *)a->buffers[1])[i]);
    else if (strcmp(f, "g") == 0)
        snprintf(out, size, "%g", ((const double *)a->buffers[1])[i]);
    else if (strcmp(f, "b") == 0)
        snprintf(out, size, "%s",
                 (((const uint8_t *)a->buffers[1])[i / 8] >> (i % 8)) & 1
                     ? "true"
                     : "false");
    else if (strcmp(f, "tdD") == 0)
        example_date(out, size, ((const int32_t *)a->buffers[1])[i]);
    else if (strcmp(f, "u") == 0) {
        const int32_t *off = (const int32_t *)a->buffers[1];
        snprintf(out, size, "%.*s", (int)(off[i + 1] - off[i]),
                 (const char *)a->buffers[2] + off[i]);
    } else
        snprintf(out, size, "<%s>", f);
}

/*
 * Run sql through the Arrow C stream and render the whole result as text:
 * a header line of column names, then one line per row, cells separated by
 * commas, every line ending in '\n'. Returns a malloc'd string.
 */
static inline char *example_query_csv(weir_pipeline *p, const char *sql)
{
    weir_error err;
    struct ArrowArrayStream stream;
    CHECK(weir_pipeline_query_arrow(p, sql, &stream, &err), err);
    struct ArrowSchema schema;
    example_expect(stream.get_schema(&stream, &schema) == 0, "get_schema: %s",
                   stream.get_last_error(&stream));
    example_expect(strcmp(schema.format, "+s") == 0,
                   "a result is a struct, got %s", schema.format);
    size_t cap = 4096, len = 0;
    char *text = (char *)malloc(cap);
    example_expect(text != NULL, "out of memory");
    text[0] = '\0';
#define EXAMPLE_APPEND(s)                                                     \
    do {                                                                      \
        size_t n_ = strlen(s);                                                \
        while (len + n_ + 1 > cap)                                            \
            text = (char *)realloc(text, cap *= 2);                           \
        example_expect(text != NULL, "out of memory");                        \
        memcpy(text + len, (s), n_ + 1);                                      \
        len += n_;                                                            \
    } while (0)
    for (int64_t c = 0; c < schema.n_children; c++) {
        if (c)
            EXAMPLE_APPEND(",");
        EXAMPLE_APPEND(schema.children[c]->name);
    }
    EXAMPLE_APPEND("\n");
    for (;;) {
        struct ArrowArray batch;
        example_expect(stream.get_next(&stream, &batch) == 0, "get_next: %s",
                       stream.get_last_error(&stream));
        if (!batch.release)
            break; /* end of the stream */
        for (int64_t r = 0; r < batch.length; r++) {
            for (int64_t c = 0; c < batch.n_children; c++) {
                char cell[256];
                example_cell(cell, sizeof(cell), schema.children[c],
                             batch.children[c], batch.offset + r);
                if (c)
                    EXAMPLE_APPEND(",");
                EXAMPLE_APPEND(cell);
            }
            EXAMPLE_APPEND("\n");
        }
        batch.release(&batch);
    }
#undef EXAMPLE_APPEND
    schema.release(&schema);
    stream.release(&stream);
    return text;
}

/* Query and compare with the expected text; exit 1 on a mismatch. */
static inline void example_expect_query(weir_pipeline *p, const char *sql,
                                        const char *expected)
{
    char *got = example_query_csv(p, sql);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "unexpected result of %s\n--- expected\n%s--- got\n%s",
                sql, expected, got);
        exit(1);
    }
    free(got);
}

#endif
