/*
 * The DuckDB relation that reads a batch of a file source (see files.h):
 * the fast path (the format's reader with the batch's columns) and the
 * careful one that rescues malformed records and values that do not fit
 * into the rescued data column, _metadata, and DuckDB's reader errors
 * rewritten to name the file and line.
 */
#include "sources/files.h"

#include <stdio.h>
#include <sys/stat.h>
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

bool weir__files_compressed(const char *path)
{
    static const char *const ext[] = { ".gz", ".gzip", ".zst" };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t k = strlen(ext[i]);
        if (n >= k && weir__str_ieq(path + n - k, ext[i]))
            return true;
    }
    return false;
}

#define MB (1024ull * 1024ull)

uint64_t weir__files_max_record(const weir_conn *conn)
{
    uint64_t mem = 0;
    unsigned threads = 0;
    if (conn)
        weir__conn_budget(conn, &mem, &threads);
    else
        return 16 * MB;
    if (!mem)
        return 256 * MB;
    uint64_t r = mem / (8ull * (threads ? threads : 1));
    if (r < 16 * MB)
        return 16 * MB;
    return r > 256 * MB ? 256 * MB : r;
}

/* DuckDB is given a little more than max_record, so that a record weir's
 * own scan (first_long_record) lets through is never one DuckDB finds too
 * long. */
#define LINE_SLACK 65536ull

/* max_record, or less when every file is shorter: a record is no longer
 * than its file, and DuckDB reserves buffers of these sizes per file. */
static uint64_t record_cap(uint64_t max_record, const char *const *files,
                           size_t n)
{
    uint64_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (weir__files_compressed(files[i]))
            return max_record;
        if (stat(files[i], &st) != 0 || (uint64_t)st.st_size >= max_record)
            return max_record;
        if ((uint64_t)st.st_size > longest)
            longest = (uint64_t)st.st_size;
    }
    return n ? longest + 1 : max_record;
}

void weir__files_csv_line_size(weir_buf *b, uint64_t max_record,
                               const char *const *files, size_t n)
{
    max_record = record_cap(max_record, files, n);
    /* The buffer must be larger than a line; DuckDB's default, 16 lines,
     * would take 4 GB for 256 MB lines. */
    weir__buf_printf(b, ", max_line_size = %llu, buffer_size = %llu",
                     (unsigned long long)(max_record + LINE_SLACK),
                     (unsigned long long)(2 * (max_record + LINE_SLACK)));
}

void weir__files_csv_options(weir_buf *b, const weir_file_opts *o,
                             uint64_t max_record, const char *const *files,
                             size_t n)
{
    weir__buf_printf(b, ", header = %s", o->header ? "true" : "false");
    weir__files_csv_line_size(b, max_record, files, n);
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
    if (o->null_value && *o->null_value) {
        /* empty unquoted fields stay NULL and quoted empty strings stay
         * '', as Spark reads them (read_files.c, null_option) */
        weir__buf_puts(b, ", nullstr = [");
        weir__buf_put_sql_string(b, o->null_value);
        weir__buf_puts(b, ", ''], allow_quoted_nulls = false");
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
                      "false, filename = true");
    weir__files_csv_line_size(b, fb->max_record, files, n);
    weir__buf_puts(b, ") WHERE trim(\"__line\") <> '')");
    if (weir__str_ieq(o->mode, "DROPMALFORMED"))
        weir__buf_puts(b, " WHERE \"__ok\"");
    weir__buf_puts(b, "))))");
}

/* Lines of a CSV file that hold only blanks are skipped like empty lines:
 * such a line reads as a first field of blanks and no other field. */
void weir__files_csv_skip_blank(weir_buf *b, const weir_file_schema *s)
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

/* CAST(name AS type), where a value that does not fit fails the read
 * naming the file, the column and the value (DuckDB's cast error names
 * none of them), as the positional reader's errors do. */
static void put_failfast_cast(weir_buf *b, const char *name, const char *type)
{
    weir_buf head = WEIR_BUF_INIT, tail = WEIR_BUF_INIT;
    weir__buf_printf(&head, ": cannot read the file: column %s: could not "
                            "convert \"", name);
    weir__buf_printf(&tail, "\" to %s (mode FAILFAST)", type);
    if (head.failed || tail.failed)
        b->failed = true;
    weir__buf_puts(b, "CASE WHEN ");
    weir__buf_put_sql_ident(b, name);
    weir__buf_puts(b, " IS NOT NULL AND TRY_CAST(");
    weir__buf_put_sql_ident(b, name);
    weir__buf_printf(b, " AS %s) IS NULL THEN error(concat(\"filename\", ", type);
    weir__buf_put_sql_string(b, weir__buf_cstr(&head));
    weir__buf_puts(b, ", ");
    weir__buf_put_sql_ident(b, name);
    weir__buf_puts(b, ", ");
    weir__buf_put_sql_string(b, weir__buf_cstr(&tail));
    weir__buf_puts(b, ")) ELSE CAST(");
    weir__buf_put_sql_ident(b, name);
    weir__buf_printf(b, " AS %s) END AS ", type);
    weir__buf_free(&head);
    weir__buf_free(&tail);
}

void weir__files_csv_typed(weir_buf *b, const weir_file_batch *fb,
                           char *const *extra, size_t n_extra, bool strict)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    for (size_t i = 0; i < s->n; i++) {
        if (strict) {
            put_failfast_cast(b, s->cols[i].name, s->cols[i].type);
        } else {
            weir__buf_puts(b, "TRY_CAST(");
            weir__buf_put_sql_ident(b, s->cols[i].name);
            weir__buf_printf(b, " AS %s) AS ", s->cols[i].type);
        }
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, ", ");
    }
    if (!o->rescued[0])
        return;
    weir__buf_puts(b, "(SELECT CASE WHEN len(e) = 0 THEN NULL ELSE "
                      "to_json(map_from_entries(list_append(e, {'k': "
                      "'_file_path', 'v': \"filename\"}))) END FROM (SELECT "
                      "list_filter([");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", {'k': " : "{'k': ");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, ", 'v': CASE WHEN TRY_CAST(");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_printf(b, " AS %s) IS NULL THEN ", s->cols[i].type);
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_puts(b, " END}");
    }
    for (size_t i = 0; i < n_extra; i++) {
        weir__buf_puts(b, s->n || i ? ", {'k': " : "{'k': ");
        weir__buf_put_sql_string(b, extra[i]);
        weir__buf_puts(b, ", 'v': ");
        weir__buf_put_sql_ident(b, extra[i]);
        weir__buf_puts(b, "}");
    }
    weir__buf_puts(b, "], x -> x.v IS NOT NULL)) AS q(e)) AS ");
    weir__buf_put_sql_ident(b, o->rescued);
    weir__buf_puts(b, ", ");
}

/* ", columns = {'name': 'TYPE', ...}" of a reader call; every type
 * `as` when it is not NULL. */
static void put_columns(weir_buf *b, const weir_file_schema *s, const char *as)
{
    weir__buf_puts(b, ", columns = {");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", " : "");
        weir__buf_put_sql_string(b, s->cols[i].name);
        weir__buf_puts(b, ": ");
        weir__buf_put_sql_string(b, as ? as : s->cols[i].type);
    }
    weir__buf_putc(b, '}');
}

/* Careful CSV: every field read as text, then cast; values that do not
 * fit are rescued. */
static void render_csv_careful(weir_buf *b, const weir_file_batch *fb,
                               const char *const *files, size_t n)
{
    const weir_file_schema *s = &fb->schema;
    const weir_file_opts *o = &fb->opts;
    weir__buf_puts(b, "(SELECT ");
    weir__files_csv_typed(b, fb, NULL, 0, false);
    weir__buf_puts(b, "\"filename\" FROM read_csv(");
    weir__files_put_list(b, files, n);
    weir__files_csv_options(b, o, fb->max_record, files, n);
    put_columns(b, s, "VARCHAR");
    weir__buf_puts(b, ", auto_detect = false, null_padding = true, "
                      "ignore_errors = true, filename = true)");
    weir__files_csv_skip_blank(b, s);
    weir__buf_putc(b, ')');
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
                            "maximum_object_size = %llu",
                         o->multiline ? "auto" : "newline_delimited",
                         (unsigned long long)fb->max_record);
        if (weir__str_ieq(o->mode, "DROPMALFORMED"))
            weir__buf_puts(b, ", ignore_errors = true");
        put_columns(b, s, NULL);
        weir__buf_putc(b, ')');
    } else if (weir__str_ieq(o->format, "csv")) {
        weir__buf_puts(b, "read_csv(");
        weir__files_put_list(b, files, n);
        weir__files_csv_options(b, o, fb->max_record, files, n);
        /* Spark's PERMISSIVE parsing: a short row gets NULLs, a long row's
         * extra fields are dropped. */
        weir__buf_puts(b, ", auto_detect = false, filename = true, "
                          "null_padding = true, strict_mode = false");
        if (weir__str_ieq(o->mode, "DROPMALFORMED"))
            weir__buf_puts(b, ", ignore_errors = true");
        put_columns(b, s, NULL);
        weir__buf_putc(b, ')');
        weir__files_csv_skip_blank(b, s);
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
                          "= false, filename = true");
        weir__files_csv_line_size(b, fb->max_record, files, n);
        weir__buf_puts(b, "))");
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

static int check_records(const weir_file_batch *b, const char *const *files,
                         size_t n, weir_error *err);

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
    bool csv = weir__str_ieq(fmt, "csv");
    if ((weir__str_ieq(fmt, "json") && !b->opts.multiline) ||
        (csv && !failfast &&
         (careful || weir__str_ieq(b->opts.mode, "DROPMALFORMED")))) {
        /* These CSV reads skip what DuckDB cannot read; DuckDB 1.4's JSON
         * reader never returns from a line longer than its buffer. */
        int rc = check_records(b, files, n, err);
        if (rc)
            return rc;
    }
    /* The readers take fields by position: CSV files whose header is not
     * the schema's columns in order are read by name. */
    weir_csv_split sp = { 0 };
    int rc = csv ? weir__files_csv_split(&sp, b, files, n, err) : 0;
    if (rc)
        return rc;
    const char *const *pos = sp.n_by ? sp.in_order : files;
    size_t n_pos = sp.n_by ? sp.n_in : n;
    if (sp.n_by)
        weir__buf_puts(&rel, "(");
    if (!n_pos)
        ;
    else if (careful && !failfast && weir__str_ieq(fmt, "json"))
        render_json_careful(&rel, b, pos, n_pos);
    else if (careful && !failfast && csv)
        render_csv_careful(&rel, b, pos, n_pos);
    else
        render_fast(&rel, b, pos, n_pos);
    if (sp.n_by) {
        weir__buf_puts(&rel, n_pos ? " UNION ALL " : "");
        weir__files_render_csv_by_name(&rel, b, &sp);
        weir__buf_puts(&rel, ")");
    }
    weir__files_csv_split_free(&sp);
    finish(out, weir__buf_cstr(&rel), files, sizes, mtimes, n, with_metadata);
    rc = rel.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory") : 0;
    weir__buf_free(&rel);
    return rc;
}

/* ---- errors ----------------------------------------------------------------- */

/* The 1-based number of the line where the first record of path longer
 * than limit bytes starts, or 0. With quote (not '\0'), a newline inside
 * quotes is part of the record, as DuckDB's CSV reader reads it; escape
 * (if not quote) escapes the character after it inside quotes. */
static long long first_long_record(const char *path, unsigned long long limit,
                                   char quote, char escape)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    /* A file no longer than the limit holds no longer record: most
     * files, which then cost one fstat. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (unsigned long long)st.st_size <= limit) {
        fclose(f);
        return 0;
    }
    long long line = 1, start = 1, found = 0;
    unsigned long long len = 0;
    bool quoted = false, escaped = false;
    static const size_t chunk = 1 << 20;
    char *buf = malloc(chunk);
    size_t n;
    while (!quote && buf && !found && (n = fread(buf, 1, chunk, f)) > 0) {
        /* Lines only: from newline to newline. */
        const char *p = buf, *end = buf + n;
        const char *nl;
        while (!found && (nl = memchr(p, '\n', (size_t)(end - p)))) {
            if ((len += (size_t)(nl - p)) > limit)
                found = line;
            line++;
            len = 0;
            p = nl + 1;
        }
        if (!found && (len += (size_t)(end - p)) > limit)
            found = line;
    }
    while (quote && buf && !found && (n = fread(buf, 1, chunk, f)) > 0) {
        for (size_t i = 0; i < n && !found; i++) {
            char ch = buf[i];
            if (ch == '\n')
                line++;
            if (escaped) {
                escaped = false;
            } else if (quoted && escape && escape != quote && ch == escape) {
                escaped = true;
            } else if (quote && ch == quote) {
                quoted = !quoted;
            } else if (ch == '\n' && !quoted) {
                start = line;
                len = 0;
                continue;
            }
            if (++len > limit)
                found = start;
        }
    }
    free(buf);
    fclose(f);
    return found;
}

/* "… raise weir.duckdb.memory_limit" advice for a record longer than
 * max_record bytes. */
static void say_too_long(char *out, size_t size, const char *path,
                         long long line, const char *what,
                         unsigned long long max_record)
{
    snprintf(out, size,
             "%s:%lld: %s longer than %llu bytes (%.1f MB), the longest this "
             "run reads: the limit follows the memory budget, "
             "weir.duckdb.memory_limit / (8 x weir.duckdb.threads), from 16 MB "
             "to 256 MB; raise weir.duckdb.memory_limit (or lower "
             "weir.duckdb.threads) to read it",
             path, line, what, max_record, (double)max_record / (double)MB);
}

/* A record longer than b->max_record fails the read, found here before
 * DuckDB reads: a reader that skips records it cannot read (DuckDB's
 * ignore_errors) would skip it silently, and DuckDB 1.4.4's JSON reader
 * never returns from a line longer than twice maximum_object_size. */
static int check_records(const weir_file_batch *b, const char *const *files,
                         size_t n, weir_error *err)
{
    const weir_file_opts *o = &b->opts;
    bool csv = weir__str_ieq(o->format, "csv");
    char quote = csv ? (o->quote ? o->quote[0] : '"') : '\0';
    char escape = csv ? (o->escape ? o->escape[0] : quote) : '\0';
    for (size_t i = 0; i < n; i++) {
        long long line = first_long_record(files[i], b->max_record, quote,
                                           escape);
        if (line) {
            char text[sizeof(err->message)];
            say_too_long(text, sizeof(text), files[i], line,
                         csv ? "a CSV record" : "a JSON record",
                         (unsigned long long)b->max_record);
            return WEIR_ERR(err, WEIR_EENGINE, "INVALID_INPUT", "%s", text);
        }
    }
    return 0;
}

static void explain(weir_error *err, const char *const *files, size_t n);

void weir__files_explain_error(weir_error *err)
{
    explain(err, NULL, 0);
}

void weir__files_explain_error_in(weir_error *err, const char *const *files,
                                  size_t n)
{
    explain(err, files, n);
}

static void explain(weir_error *err, const char *const *files, size_t n)
{
    if (!err)
        return;
    const char *m = err->message;
    const char *big = strstr(m, "\"maximum_object_size\" of ");
    const char *in = big ? strstr(big, "while reading file \"") : NULL;
    if (in) {
        /* A JSON record too long for DuckDB's buffer. */
        unsigned long long limit = strtoull(big + 24, NULL, 10);
        in += strlen("while reading file \"");
        char path[1024];
        snprintf(path, sizeof(path), "%.*s", (int)strcspn(in, "\""), in);
        long long l = first_long_record(path, limit, '\0', '\0');
        char text[sizeof(err->message)];
        say_too_long(text, sizeof(text), path, l ? l : 1, "a JSON record",
                     limit);
        weir__str_copy(err->message, sizeof(err->message), text);
        return;
    }
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
        /* DuckDB numbers the line it gave up on wrongly; the limit it
         * names has weir's slack (weir__files_csv_line_size) added. */
        unsigned long long limit = strtoull(max + 21, NULL, 10);
        /* DuckDB's sniffer does not name the file. */
        for (size_t i = 0; !path[0] && i < n; i++)
            if (first_long_record(files[i], limit, '\0', '\0'))
                snprintf(path, sizeof(path), "%s", files[i]);
        long long l = first_long_record(path, limit, '\0', '\0');
        char text[sizeof(err->message)];
        say_too_long(text, sizeof(text), path, l ? l : line, "a line",
                     limit > LINE_SLACK ? limit - LINE_SLACK : limit);
        weir__str_copy(err->message, sizeof(err->message), text);
        return;
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
