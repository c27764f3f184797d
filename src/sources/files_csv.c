/*
 * CSV files whose header does not name the batch's columns in the
 * schema's order (see files.h). The readers of files_render.c give DuckDB
 * the columns and read fields by position, which is right for a file whose
 * header is the schema's first columns in order. A file with its columns in
 * another order, or with a column the schema has after others the file
 * lacks (a column an evolved schema added), is read by name instead:
 * every field as text under its header's name, then cast to the column of
 * that name. Inference matches columns by name across files (union by
 * name), so reading by position there put values under the wrong columns.
 */
#include "sources/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* The first record of path (the header), up to limit bytes, NUL-ended in
 * *out (malloc'd); NULL when the file cannot be read. A newline inside
 * quotes is part of the record. */
static char *first_record(const char *path, char quote, char escape,
                          uint64_t limit)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    weir_buf b = WEIR_BUF_INIT;
    bool quoted = false, escaped = false, done = false;
    char chunk[4096];
    size_t n;
    while (!done && b.len <= limit && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        size_t i = 0;
        for (; i < n && !done; i++) {
            char ch = chunk[i];
            if (escaped)
                escaped = false;
            else if (quoted && escape && escape != quote && ch == escape)
                escaped = true;
            else if (quote && ch == quote)
                quoted = !quoted;
            else if (ch == '\n' && !quoted)
                done = true;
        }
        weir__buf_put(&b, chunk, done ? i - 1 : i);
    }
    fclose(f);
    if (b.failed) {
        weir__buf_free(&b);
        return NULL;
    }
    if (!done && b.len > limit) {
        weir__buf_free(&b); /* a header past the limit: the reader says */
        return NULL;
    }
    if (b.len && b.ptr[b.len - 1] == '\r')
        b.ptr[--b.len] = '\0';
    char *s = strdup(weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

/* Split a header record into its names (quotes removed), in place;
 * *n names are stored in names (room for cap). false: more than cap. */
static bool split_header(char *rec, const char *sep, char quote, char escape,
                         char **names, size_t cap, size_t *n)
{
    size_t seplen = strlen(sep);
    char *p = rec;
    if (!strncmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    *n = 0;
    for (;;) {
        if (*n == cap)
            return false;
        char *out = p, *start = p;
        bool quoted = false;
        while (*p) {
            if (quoted && escape && *p == escape && p[1] &&
                (escape != quote || p[1] == quote)) {
                *out++ = p[1];
                p += 2;
            } else if (quote && *p == quote) {
                quoted = !quoted;
                p++;
            } else if (!quoted && !strncmp(p, sep, seplen)) {
                break;
            } else {
                *out++ = *p++;
            }
        }
        bool more = *p != '\0';
        *out = '\0';
        /* DuckDB trims the names of a header */
        while (out > start && (out[-1] == ' ' || out[-1] == '\t'))
            *--out = '\0';
        while (*start == ' ' || *start == '\t')
            start++;
        names[(*n)++] = start;
        if (!more)
            return true;
        p += seplen;
    }
}

/* Whether DuckDB reads the header under exactly these names: none empty
 * (DuckDB makes up columnN), none twice (it adds _1), none `filename` (the
 * reader's own column), none with a quote (kept escaped). Otherwise the
 * file is read by position, as before. */
static bool plain_names(char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!names[i][0] || strchr(names[i], '"') || strchr(names[i], '\'') ||
            weir__str_ieq(names[i], "filename"))
            return false;
        for (size_t j = 0; j < i; j++)
            if (weir__str_ieq(names[i], names[j]))
                return false;
    }
    return true;
}

/* Whether the header names are the schema's first columns, in order. */
static bool in_order(char *const *names, size_t n, const weir_file_schema *s)
{
    if (n > s->n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!weir__str_ieq(names[i], s->cols[i].name))
            return false;
    return true;
}

static bool has_name(const weir_csv_split *sp, const char *name)
{
    for (size_t i = 0; i < sp->n_names; i++)
        if (weir__str_ieq(sp->names[i], name))
            return true;
    return false;
}

int weir__files_csv_split(weir_csv_split *sp, const weir_file_batch *b,
                          const char *const *files, size_t n, weir_error *err)
{
    memset(sp, 0, sizeof(*sp));
    const weir_file_opts *o = &b->opts;
    /* A given schema is applied by position, as Spark's CSV reader does
     * (enforceSchema): only inferred columns, which are matched by name
     * across files, are read by name. */
    if (!o->header || !n || o->schema)
        return 0;
    sp->in_order = calloc(n, sizeof(*sp->in_order));
    sp->by_name = calloc(n, sizeof(*sp->by_name));
    int rc = 0;
    if (!sp->in_order || !sp->by_name)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    const char *sep = o->sep && *o->sep ? o->sep
                      : weir__str_ends(o->path, ".tsv") ? "\t" : ",";
    char quote = o->quote ? o->quote[0] : '"';
    char escape = o->escape ? o->escape[0] : quote;
    for (size_t i = 0; !rc && i < n; i++) {
        char *rec = weir__files_compressed(files[i])
                        ? NULL
                        : first_record(files[i], quote, escape, b->max_record);
        /* at most one name per separator, and one more */
        size_t cap = rec ? strlen(rec) / (*sep ? strlen(sep) : 1) + 2 : 0;
        char **names = rec ? calloc(cap, sizeof(*names)) : NULL;
        size_t k = 0;
        if (rec && (!names || !split_header(rec, sep, quote, escape, names, cap, &k)))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (rc || !rec || in_order(names, k, &b->schema) ||
            !plain_names(names, k)) {
            /* unreadable: the reader reports it */
            if (!rc)
                sp->in_order[sp->n_in++] = files[i];
            free(names);
            free(rec);
            continue;
        }
        sp->by_name[sp->n_by++] = files[i];
        /* The names of the group's fields, once each. */
        for (size_t j = 0; j < k && !rc; j++) {
            if (has_name(sp, names[j]))
                continue;
            char **grown = realloc(sp->names, (sp->n_names + 1) * sizeof(*grown));
            char *copy = grown ? strdup(names[j]) : NULL;
            if (grown)
                sp->names = grown;
            if (!copy)
                rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            else
                sp->names[sp->n_names++] = copy;
        }
        free(names);
        free(rec);
    }
    if (rc)
        weir__files_csv_split_free(sp);
    return rc;
}

void weir__files_csv_split_free(weir_csv_split *sp)
{
    for (size_t i = 0; i < sp->n_names; i++)
        free(sp->names[i]);
    free(sp->names);
    free(sp->in_order);
    free(sp->by_name);
    memset(sp, 0, sizeof(*sp));
}

/* Whether name is a column of s. */
static bool in_schema(const weir_file_schema *s, const char *name)
{
    for (size_t j = 0; j < s->n; j++)
        if (weir__str_ieq(s->cols[j].name, name))
            return true;
    return false;
}

void weir__files_render_csv_by_name(weir_buf *b, const weir_file_batch *fb,
                                    const weir_csv_split *sp)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    bool failfast = weir__str_ieq(o->mode, "FAILFAST");
    /* Fields the schema lacks go to the rescued data column (rescue mode,
     * or a given schema); without one they are left out, as in Spark. */
    bool rescue = o->rescued[0];
    /* The fields the schema lacks (read by name inside, below). */
    char **extra = calloc(sp->n_names + 1, sizeof(*extra));
    size_t n_extra = 0;
    for (size_t i = 0; extra && rescue && i < sp->n_names; i++)
        if (!in_schema(s, sp->names[i]) && !weir__str_ieq(sp->names[i], o->rescued))
            extra[n_extra++] = sp->names[i];
    if (!extra)
        b->failed = true;
    weir__buf_puts(b, "(SELECT ");
    weir__files_csv_typed(b, fb, extra, n_extra, failfast);
    /* Inside: every schema column as text (NULL where no file has it) and
     * the other fields, read by their header's names. */
    weir__buf_puts(b, "\"filename\" FROM (SELECT ");
    for (size_t i = 0; i < s->n; i++) {
        if (has_name(sp, s->cols[i].name))
            weir__buf_put_sql_ident(b, s->cols[i].name);
        else
            weir__buf_puts(b, "NULL::VARCHAR");
        weir__buf_puts(b, " AS ");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, ", ");
    }
    for (size_t i = 0; i < n_extra; i++) {
        weir__buf_put_sql_ident(b, extra[i]);
        weir__buf_puts(b, ", ");
    }
    free(extra);
    weir__buf_puts(b, "\"filename\" FROM read_csv(");
    weir__files_put_list(b, sp->by_name, sp->n_by);
    weir__files_csv_options(b, o, fb->max_record, sp->by_name, sp->n_by);
    /* The dialect the headers were split with, not DuckDB's guess. */
    if (!o->sep && !weir__str_ends(o->path, ".tsv"))
        weir__buf_puts(b, ", delim = ','");
    if (!o->quote)
        weir__buf_puts(b, ", quote = '\"'");
    if (!o->escape) {
        weir__buf_puts(b, ", escape = ");
        char q[2] = { o->quote ? o->quote[0] : '"', '\0' };
        weir__buf_put_sql_string(b, q);
    }
    weir__buf_puts(b, ", union_by_name = true, all_varchar = true, "
                      "null_padding = true, strict_mode = false, filename = true");
    bool drop = weir__str_ieq(o->mode, "DROPMALFORMED");
    if (drop)
        weir__buf_puts(b, ", ignore_errors = true");
    weir__buf_puts(b, "))");
    weir__files_csv_skip_blank(b, s);
    /* DROPMALFORMED: a row with a value that does not fit goes, as the
     * typed reader drops it. */
    for (size_t i = 0; drop && i < s->n; i++) {
        weir__buf_puts(b, " AND (");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, " IS NULL OR TRY_CAST(");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_printf(b, " AS %s) IS NOT NULL)", s->cols[i].type);
    }
    weir__buf_putc(b, ')');
}
