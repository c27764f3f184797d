/*
 * The DuckDB relation that reads a batch of a file source (see files.h):
 * the fast path (the format's reader with the batch's columns) and the
 * careful one that rescues malformed records and values that do not fit
 * into the rescued data column, _metadata, and DuckDB's reader errors
 * rewritten to name the file and line.
 */
#include "sources/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

void weir__files_put_list(weir_buf *b, const char *const *files, size_t n)
{
    weir__buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir_buf lit = WEIR_BUF_INIT;
        weir__fs_put_glob_literal(&lit, files[i]);
        weir__buf_put_sql_string(b, weir__buf_cstr(&lit));
        if (lit.failed)
            b->failed = true;
        weir__buf_free(&lit);
    }
    weir__buf_putc(b, ']');
}

void weir__files_csv_options(weir_buf *b, const weir_file_opts *o)
{
    weir__buf_printf(b, ", header = %s, max_line_size = " WEIR_FILES_MAX_RECORD,
                     o->header ? "true" : "false");
    const char *sep = o->sep;
    if (!sep && weir__str_ends(o->path, ".tsv"))
        sep = "\t";
    if (sep) {
        weir__buf_puts(b, ", delim = ");
        weir__buf_put_sql_string(b, sep);
    }
    if (o->quote) {
        weir__buf_puts(b, ", quote = ");
        weir__buf_put_sql_string(b, o->quote);
    }
    if (o->escape) {
        weir__buf_puts(b, ", escape = ");
        weir__buf_put_sql_string(b, o->escape);
    }
    if (o->null_value) {
        weir__buf_puts(b, ", nullstr = ");
        weir__buf_put_sql_string(b, o->null_value);
    }
}

/* ---- rendering --------------------------------------------------------------- */

static bool scalar_type(const char *t)
{
    return !strchr(t, '[') && !weir__str_istarts(t, "STRUCT") &&
           !weir__str_istarts(t, "MAP");
}

/* The JSON value of column i in a row of the careful reader: "__m" is the
 * record as a MAP(VARCHAR, JSON), "__w<i>" the key that column i takes. */
static void json_raw(weir_buf *b, size_t i)
{
    weir__buf_printf(b, "\"__m\"[\"__w%zu\"]", i);
}

/* That value cast to the column's type (NULL when it does not fit). */
static void json_value(weir_buf *b, const weir_db_column *c, size_t i)
{
    weir__buf_puts(b, "TRY_CAST(");
    if (scalar_type(c->type)) {
        weir__buf_puts(b, "json_extract_string(");
        json_raw(b, i);
        weir__buf_puts(b, ", '$')");
    } else {
        json_raw(b, i);
    }
    weir__buf_printf(b, " AS %s)", c->type);
}

/* The column names as a SQL list, lower-cased or not. */
static void name_list(weir_buf *b, const weir_file_schema *s, bool lower)
{
    weir__buf_putc(b, '[');
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", " : "");
        if (lower)
            weir__buf_puts(b, "lower(");
        weir__buf_put_sql_string(b, s->cols[i].name);
        if (lower)
            weir__buf_putc(b, ')');
    }
    weir__buf_puts(b, "]::VARCHAR[]");
}

/* Careful JSON: every line read as text and parsed here, so a malformed
 * line or a value of the wrong type is rescued instead of failing. Keys
 * match columns case-insensitively, as in Spark: a column takes the key
 * spelled exactly like it, else the first key equal ignoring case; the
 * other spellings go to the rescued data column. Keys are looked up in a
 * map of the record, never through a JSON path, so any key ("" or one
 * with a NUL) is safe. */
static void render_json_careful(weir_buf *b, const weir_file_batch *fb,
                                const char *const *files, size_t n)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    bool rescue = o->rescued[0] != '\0';
    weir__buf_puts(b, "(SELECT ");
    for (size_t i = 0; i < s->n; i++) {
        json_value(b, &s->cols[i], i);
        weir__buf_puts(b, " AS ");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, ", ");
    }
    if (rescue) {
        /* Values that did not fit, keys no column took, or the whole
         * corrupt record; with the file's path. */
        weir__buf_puts(b, "CASE WHEN NOT \"__ok\" THEN json_object('_corrupt_record', "
                          "\"__line\", '_file_path', \"filename\") ELSE "
                          "(SELECT CASE WHEN len(e) = 0 THEN NULL ELSE "
                          "to_json(map_from_entries(list_append(e, {'k': "
                          "'_file_path', 'v': to_json(\"filename\")}))) END FROM "
                          "(SELECT list_filter(list_concat([");
        for (size_t i = 0; i < s->n; i++) {
            weir__buf_puts(b, i ? ", " : "");
            weir__buf_printf(b, "{'k': \"__w%zu\", 'v': CASE WHEN ", i);
            json_raw(b, i);
            weir__buf_puts(b, " IS NOT NULL AND json_type(");
            json_raw(b, i);
            weir__buf_puts(b, ") <> 'NULL' AND ");
            json_value(b, &s->cols[i], i);
            weir__buf_puts(b, " IS NULL THEN ");
            json_raw(b, i);
            weir__buf_puts(b, "::VARCHAR END}");
        }
        /* Keys no column took: other spellings of a column's name always;
         * fields outside the schema unless they are to be ignored. */
        weir__buf_puts(b, "]::STRUCT(k VARCHAR, v VARCHAR)[], list_transform("
                          "list_filter(coalesce(\"__k\", []), k -> NOT "
                          "list_contains([");
        for (size_t i = 0; i < s->n; i++)
            weir__buf_printf(b, "%s\"__w%zu\"", i ? ", " : "", i);
        weir__buf_puts(b, "]::VARCHAR[], k)");
        if (o->evolution == WEIR_EVOLVE_NONE) {
            weir__buf_puts(b, " AND list_contains(");
            name_list(b, s, true);
            weir__buf_puts(b, ", lower(k))");
        }
        weir__buf_puts(b, "), k -> {'k': k, 'v': \"__m\"[k]::VARCHAR})), "
                          "x -> x.v IS NOT NULL) AS l) AS q(e)) END AS ");
        weir__buf_put_sql_ident(b, o->rescued);
        weir__buf_puts(b, ", ");
    }
    weir__buf_puts(b, "\"filename\" FROM (SELECT *");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, ", CASE WHEN list_contains(\"__k\", ");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, ") THEN ");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, " ELSE list_filter(\"__k\", k -> lower(k) = lower(");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_printf(b, "))[1] END AS \"__w%zu\"", i);
    }
    weir__buf_puts(b, " FROM (SELECT *, map_keys(\"__m\") AS \"__k\" FROM "
                      "(SELECT *, TRY_CAST(\"__j\" AS MAP(VARCHAR, JSON)) AS "
                      "\"__m\" FROM (SELECT \"__line\", \"filename\", "
                      "json_valid(\"__line\") AS \"__ok\", CASE WHEN "
                      "json_valid(\"__line\") AND json_type(\"__line\") = 'OBJECT' "
                      "THEN \"__line\"::JSON END AS \"__j\" FROM read_csv(");
    weir__files_put_list(b, files, n);
    weir__buf_puts(b, ", columns = {'__line': 'VARCHAR'}, delim = chr(31), "
                      "quote = '', escape = '', header = false, auto_detect = "
                      "false, filename = true, max_line_size = " WEIR_FILES_MAX_RECORD ") WHERE "
                      "trim(\"__line\") <> '')");
    if (weir__str_ieq(o->mode, "DROPMALFORMED"))
        weir__buf_puts(b, " WHERE \"__ok\"");
    weir__buf_puts(b, "))))");
}

/* Lines of a CSV file that hold only blanks are skipped like empty lines:
 * such a line reads as a first field of blanks and no other field. */
static void csv_skip_blank(weir_buf *b, const weir_file_schema *s)
{
    if (!s->n)
        return;
    weir__buf_puts(b, " WHERE NOT coalesce(trim(CAST(");
    weir__buf_put_sql_ident(b, s->cols[0].name);
    weir__buf_puts(b, " AS VARCHAR), ' ' || chr(9) || chr(13)) = ''");
    for (size_t i = 1; i < s->n; i++) {
        weir__buf_puts(b, " AND ");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, " IS NULL");
    }
    weir__buf_puts(b, ", false)");
}

/* Careful CSV: every field read as text, then cast; values that do not
 * fit are rescued. */
static void render_csv_careful(weir_buf *b, const weir_file_batch *fb,
                               const char *const *files, size_t n)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    weir__buf_puts(b, "(SELECT ");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, "TRY_CAST(");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_printf(b, " AS %s) AS ", s->cols[i].type);
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, ", ");
    }
    if (o->rescued[0]) {
        weir__buf_puts(b, "(SELECT CASE WHEN len(e) = 0 THEN NULL ELSE "
                          "to_json(map_from_entries(list_append(e, {'k': "
                          "'_file_path', 'v': \"filename\"}))) END FROM (SELECT "
                          "list_filter([");
        for (size_t i = 0; i < s->n; i++) {
            weir__buf_puts(b, i ? ", " : "");
            weir__buf_puts(b, "{'k': ");
            weir__buf_put_sql_string(b, s->cols[i].name);
            weir__buf_puts(b, ", 'v': CASE WHEN ");
            weir__buf_put_sql_ident(b, s->cols[i].name);
            weir__buf_puts(b, " IS NOT NULL AND TRY_CAST(");
            weir__buf_put_sql_ident(b, s->cols[i].name);
            weir__buf_printf(b, " AS %s) IS NULL THEN ", s->cols[i].type);
            weir__buf_put_sql_ident(b, s->cols[i].name);
            weir__buf_puts(b, " END}");
        }
        weir__buf_puts(b, "], x -> x.v IS NOT NULL)) AS q(e)) AS ");
        weir__buf_put_sql_ident(b, o->rescued);
        weir__buf_puts(b, ", ");
    }
    weir__buf_puts(b, "\"filename\" FROM read_csv(");
    weir__files_put_list(b, files, n);
    weir__files_csv_options(b, o);
    weir__buf_puts(b, ", columns = {");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", " : "");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, ": 'VARCHAR'");
    }
    weir__buf_puts(b, "}, auto_detect = false, null_padding = true, "
                      "ignore_errors = true, filename = true)");
    csv_skip_blank(b, s);
    weir__buf_putc(b, ')');
}

/* ", columns = {'name': 'TYPE', ...})" of a reader call. */
static void put_columns(weir_buf *b, const weir_file_schema *s)
{
    weir__buf_puts(b, ", columns = {");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", " : "");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, ": ");
        weir__buf_put_sql_string(b, s->cols[i].type);
    }
    weir__buf_puts(b, "})");
}

static void render_fast(weir_buf *b, const weir_file_batch *fb,
                        const char *const *files, size_t n)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    weir__buf_puts(b, "(SELECT ");
    for (size_t i = 0; i < s->n; i++) {
        if (weir__str_ieq(o->format, "parquet")) {
            weir__buf_puts(b, "CAST(");
            weir__buf_put_sql_ident(b, s->cols[i].name);
            weir__buf_printf(b, " AS %s) AS ", s->cols[i].type);
        }
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, ", ");
    }
    if (o->rescued[0]) {
        weir__buf_puts(b, "NULL::VARCHAR AS ");
        weir__buf_put_sql_ident(b, o->rescued);
        weir__buf_puts(b, ", ");
    }
    weir__buf_puts(b, "\"filename\" FROM ");
    if (weir__str_ieq(o->format, "json")) {
        weir__buf_puts(b, "read_json(");
        weir__files_put_list(b, files, n);
        weir__buf_printf(b, ", format = '%s', filename = true, "
                            "maximum_object_size = " WEIR_FILES_MAX_RECORD,
                         o->multiline ? "auto" : "newline_delimited");
        if (weir__str_ieq(o->mode, "DROPMALFORMED"))
            weir__buf_puts(b, ", ignore_errors = true");
        put_columns(b, s);
    } else if (weir__str_ieq(o->format, "csv")) {
        weir__buf_puts(b, "read_csv(");
        weir__files_put_list(b, files, n);
        weir__files_csv_options(b, o);
        /* Spark's PERMISSIVE parsing: a short row gets NULLs, a long row's
         * extra fields are dropped. */
        weir__buf_puts(b, ", auto_detect = false, filename = true, "
                          "null_padding = true, strict_mode = false");
        if (weir__str_ieq(o->mode, "DROPMALFORMED"))
            weir__buf_puts(b, ", ignore_errors = true");
        put_columns(b, s);
        csv_skip_blank(b, s);
    } else if (weir__str_ieq(o->format, "parquet")) {
        weir__buf_puts(b, "read_parquet(");
        weir__files_put_list(b, files, n);
        weir__buf_puts(b, ", union_by_name = true, filename = true)");
    } else {
        /* text: one row per line, in a column named value */
        weir__buf_puts(b, "(SELECT \"__line\" AS \"value\", \"filename\" FROM "
                          "read_csv(");
        weir__files_put_list(b, files, n);
        weir__buf_puts(b, ", columns = {'__line': 'VARCHAR'}, delim = chr(31), "
                          "quote = '', escape = '', header = false, auto_detect "
                          "= false, filename = true, max_line_size = " WEIR_FILES_MAX_RECORD "))");
    }
    weir__buf_putc(b, ')');
}

/* Wrap `rel` (which has a filename column) with the _metadata struct, or
 * just drop filename. */
static void finish(weir_buf *out, const char *rel, const char *const *files,
                   const uint64_t *sizes, const int64_t *mtimes, size_t n,
                   bool with_metadata)
{
    if (!with_metadata) {
        weir__buf_printf(out, "(SELECT * EXCLUDE (\"filename\") FROM %s AS \"__r\")",
                         rel);
        return;
    }
    weir__buf_printf(out,
                     "(SELECT \"__r\".* EXCLUDE (\"filename\"), struct_pack("
                     "file_path := \"__r\".\"filename\", file_name := "
                     "\"__m\".name, file_size := "
                     "\"__m\".size, file_modification_time := "
                     "make_timestamp(\"__m\".mtime)) AS \"_metadata\" FROM %s AS "
                     "\"__r\" LEFT JOIN (VALUES ",
                     rel);
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(out, i ? ", (" : "(");
        weir__buf_put_sql_string(out, files[i]);
        weir__buf_puts(out, ", ");
        weir__buf_put_sql_string(out, weir__path_basename(files[i]));
        weir__buf_printf(out, ", %llu::BIGINT, %lld::BIGINT)",
                         (unsigned long long)(sizes ? sizes[i] : 0),
                         (long long)(mtimes ? mtimes[i] : 0));
    }
    if (!n)
        weir__buf_puts(out, "(NULL::VARCHAR, NULL::VARCHAR, NULL::BIGINT, "
                            "NULL::BIGINT)");
    weir__buf_puts(out, ") AS \"__m\"(path, name, size, mtime) ON \"__r\".\"filename\" = "
                        "\"__m\".path)");
}

int weir__files_render(weir_buf *out, const weir_file_batch *b,
                       const char *const *files, const uint64_t *sizes,
                       const int64_t *mtimes, size_t n, bool careful,
                       bool with_metadata, weir_error *err)
{
    weir_buf rel = WEIR_BUF_INIT;
    const char *fmt = b->opts.format;
    if (!b->schema.n && weir__str_ieq(fmt, "csv")) {
        /* Files without a single column (blank): no rows. */
        weir__files_empty_relation(out, b, with_metadata);
        return 0;
    }
    bool failfast = weir__str_ieq(b->opts.mode, "FAILFAST");
    careful = careful || b->unknown_fields ||
              (weir__str_ieq(fmt, "json") &&
               weir__str_ieq(b->opts.mode, "DROPMALFORMED"));
    if (careful && !failfast && weir__str_ieq(fmt, "json"))
        render_json_careful(&rel, b, files, n);
    else if (careful && !failfast && weir__str_ieq(fmt, "csv"))
        render_csv_careful(&rel, b, files, n);
    else
        render_fast(&rel, b, files, n);
    finish(out, weir__buf_cstr(&rel), files, sizes, mtimes, n, with_metadata);
    int rc = rel.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory") : 0;
    weir__buf_free(&rel);
    return rc;
}

/* ---- errors ----------------------------------------------------------------- */

/* The 1-based number of the first line of path longer than limit bytes,
 * or 0. */
static long long first_long_line(const char *path, unsigned long long limit)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    long long line = 1, found = 0;
    unsigned long long len = 0;
    char buf[65536];
    size_t n;
    while (!found && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        for (size_t i = 0; i < n && !found; i++) {
            if (buf[i] == '\n') {
                line++;
                len = 0;
            } else if (++len > limit) {
                found = line;
            }
        }
    }
    fclose(f);
    return found;
}

void weir__files_explain_error(weir_error *err)
{
    if (!err)
        return;
    const char *m = err->message;
    const char *at = strstr(m, "CSV Error on Line: ");
    const char *file = strstr(m, "file = ");
    if (!at || !file)
        return;
    file += strlen("file = ");
    size_t flen = strcspn(file, "\n");
    const char *gap = strstr(file, "   ");
    if (gap && (size_t)(gap - file) < flen)
        flen = (size_t)(gap - file);
    char path[1024];
    snprintf(path, sizeof(path), "%.*s", (int)flen, file);
    long long line = strtoll(at + strlen("CSV Error on Line: "), NULL, 10);
    const char *max = strstr(m, "Maximum line size of ");
    if (max) {
        /* DuckDB numbers the line it gave up on wrongly. */
        long long l = first_long_line(path, strtoull(max + 21, NULL, 10));
        if (l)
            line = l;
    }
    /* The reason, without DuckDB's advice and reader options. */
    const char *why = strstr(at, "Original Line: ");
    why = why ? why : at;
    size_t wlen = strlen(why);
    const char *cut[] = { "Possible Solution", "Possible solution", "Possible fix",
                          "file = " };
    for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
        const char *c = strstr(why, cut[i]);
        if (c && (size_t)(c - why) < wlen)
            wlen = (size_t)(c - why);
    }
    while (wlen && (why[wlen - 1] == ' ' || why[wlen - 1] == '\n'))
        wlen--;
    char text[sizeof(err->message)];
    snprintf(text, sizeof(text), "%s:%lld: cannot read the file: %.*s", path,
             line, (int)wlen, why);
    for (char *p = text; *p; p++)
        if (*p == '\n')
            *p = ' ';
    weir__str_copy(err->message, sizeof(err->message), text);
}
