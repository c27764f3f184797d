/*
 * read_files(...) and cloud_files(...) (the Databricks Auto Loader alias)
 * rendered as DuckDB readers: read_json, read_csv, read_parquet, and a
 * read_text-based reader for the text format (one `value` row per line).
 * Options are translated one by one; an option weir cannot honour is an
 * error naming it, never silently ignored.
 */
#include "internal.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/spark_sink_log.h"
#include "util/str.h"

typedef struct opt {
    const char *key; /* without a cloudFiles. prefix */
    const weir_sql_arg *arg;
    bool used;
} opt;

#define MAX_OPTS 64

typedef struct rf {
    const weir_sql_tvf *call;
    const char *path;
    opt opts[MAX_OPTS];
    size_t n_opts;
    weir_error *err;
} rf;

static int rf_error(rf *r, weir_sql_pos pos, const char *fmt, ...)
    WEIR_PRINTF(3, 4);

static int rf_error(rf *r, weir_sql_pos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(r->err, WEIR_ESQL, "UNSUPPORTED_SPARK_SQL", __FILE__,
                     __LINE__, fmt, ap);
    va_end(ap);
    if (r->err && pos.line) {
        r->err->line = pos.line;
        r->err->column = pos.column;
    }
    return WEIR_ESQL;
}

static int add_opt(rf *r, const char *key, const weir_sql_arg *a)
{
    if (r->n_opts == MAX_OPTS)
        return rf_error(r, a->pos, "%s: too many options", r->call->name);
    if (weir__str_istarts(key, "cloudFiles."))
        key += strlen("cloudFiles.");
    r->opts[r->n_opts].key = key;
    r->opts[r->n_opts].arg = a;
    r->opts[r->n_opts].used = false;
    r->n_opts++;
    return 0;
}

static opt *find(rf *r, const char *key)
{
    for (size_t i = 0; i < r->n_opts; i++)
        if (weir__str_ieq(r->opts[i].key, key)) {
            r->opts[i].used = true;
            return &r->opts[i];
        }
    return NULL;
}

static const char *opt_text(rf *r, const char *key)
{
    opt *o = find(r, key);
    if (!o)
        return NULL;
    return o->arg->kind == WEIR_SQL_ARG_NULL ? NULL : o->arg->text;
}

static int opt_bool(rf *r, const char *key, int *out)
{
    opt *o = find(r, key);
    *out = -1;
    if (!o)
        return 0;
    bool v;
    if (!o->arg->text || !weir__str_parse_bool(o->arg->text, &v))
        return rf_error(r, o->arg->pos, "Option %s expects true or false, got %s",
                        key, o->arg->text ? o->arg->text : "NULL");
    *out = v;
    return 0;
}

const char *weir__sql_read_files_path(const weir_sql_tvf *call)
{
    for (size_t i = 0; i < call->n_args; i++)
        if (call->args[i].name && weir__str_ieq(call->args[i].name, "path") &&
            call->args[i].kind == WEIR_SQL_ARG_STRING)
            return call->args[i].text;
    for (size_t i = 0; i < call->n_args; i++)
        if (!call->args[i].name)
            return call->args[i].kind == WEIR_SQL_ARG_STRING ? call->args[i].text
                                                             : NULL;
    return NULL;
}

static int collect(rf *r)
{
    const weir_sql_tvf *c = r->call;
    bool cloud = strcmp(c->name, "cloud_files") == 0;
    size_t positional = 0;
    for (size_t i = 0; i < c->n_args; i++) {
        const weir_sql_arg *a = &c->args[i];
        int rc = 0;
        if (a->name) {
            if (weir__str_ieq(a->name, "path"))
                continue;
            rc = add_opt(r, a->name, a);
        } else if (positional++ == 0) {
            continue; /* the path */
        } else if (cloud && positional == 2) {
            rc = add_opt(r, "format", a);
        } else if (cloud && positional == 3 && a->kind == WEIR_SQL_ARG_MAP) {
            for (size_t k = 0; !rc && k + 1 < a->n_items; k += 2) {
                if (a->items[k].kind != WEIR_SQL_ARG_STRING)
                    return rf_error(r, a->items[k].pos,
                                    "%s(): option names must be string literals",
                                    c->name);
                rc = add_opt(r, a->items[k].text, &a->items[k + 1]);
            }
        } else {
            return rf_error(r, a->pos, "%s(): unexpected argument %s", c->name,
                            a->text ? a->text : "");
        }
        if (rc)
            return rc;
    }
    r->path = weir__sql_read_files_path(c);
    for (size_t i = 0; i < r->n_opts; i++) {
        const weir_sql_arg *a = r->opts[i].arg;
        if (a->kind == WEIR_SQL_ARG_OTHER || a->kind == WEIR_SQL_ARG_MAP)
            return rf_error(r, a->pos, "Option %s of %s() must be a literal",
                            r->opts[i].key, c->name);
    }
    return 0;
}

static const char *ext_format(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return NULL;
    static const struct {
        const char *ext, *fmt;
    } EXT[] = { { ".json", "json" },       { ".jsonl", "json" },
                { ".ndjson", "json" },     { ".csv", "csv" },
                { ".tsv", "csv" },         { ".parquet", "parquet" },
                { ".txt", "text" },        { ".text", "text" },
                { ".log", "text" },        { NULL, NULL } };
    for (int i = 0; EXT[i].ext; i++)
        if (weir__str_ieq(dot, EXT[i].ext))
            return EXT[i].fmt;
    return NULL;
}

static bool has_glob(const char *p)
{
    return strpbrk(p, "*?[{") != NULL;
}

/* The names a folder's files are read by: pathGlobFilter's (default *),
 * without hidden files, whose names start with '.' or '_' (Spark skips
 * them: .crc checksums, _SUCCESS, _committed_*, _started_*). DuckDB's
 * glob has classes, so a leading '*' or '?' becomes [!._]. */
static void put_visible_names(weir_buf *b, const char *filter)
{
    if (!filter)
        filter = "*";
    if (filter[0] == '*' || filter[0] == '?') {
        weir__buf_puts(b, "[!._]");
        filter += filter[0] == '?';
    }
    weir__buf_puts(b, filter);
}

/* A folder Spark's file sink wrote: the files its _spark_metadata log
 * commits, as Spark reads it (pathGlobFilter applies to their names). */
static int put_sink_files(rf *r, weir_buf *out, const char *dir,
                          const char *filter)
{
    weir_file_list l;
    int rc = weir__spark_sink_files(&l, dir, r->err);
    if (rc) {
        if (r->err && r->call->pos.line) {
            r->err->line = r->call->pos.line;
            r->err->column = r->call->pos.column;
        }
        return rc;
    }
    size_t k = 0;
    weir__buf_putc(out, '[');
    for (size_t i = 0; i < l.len; i++) {
        if (filter && fnmatch(filter, weir__path_basename(l.items[i].path), 0))
            continue;
        weir_buf lit = WEIR_BUF_INIT;
        weir__fs_put_glob_literal(&lit, l.items[i].path);
        if (k++)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_string(out, weir__buf_cstr(&lit));
        weir__buf_free(&lit);
    }
    weir__buf_putc(out, ']');
    weir__fs_list_free(&l);
    if (!k)
        return rf_error(r, r->call->pos,
                        "%s(): a folder whose file sink log (_spark_metadata) "
                        "commits no files is not supported by weir (Spark "
                        "reads no rows): '%s'",
                        r->call->name, dir);
    return 0;
}

/* The DuckDB file argument: a list of files or a path/glob string. */
static int put_files(rf *r, weir_buf *out, const char *const *files,
                     size_t n_files, const char *base_dir, int recursive,
                     const char *filter)
{
    if (n_files) {
        weir__buf_putc(out, '[');
        for (size_t i = 0; i < n_files; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            char *abs = base_dir && !weir__path_is_abs(files[i])
                            ? weir__path_join(base_dir, files[i])
                            : NULL;
            weir_buf lit = WEIR_BUF_INIT;
            weir__fs_put_glob_literal(&lit, abs ? abs : files[i]);
            weir__buf_put_sql_string(out, weir__buf_cstr(&lit));
            weir__buf_free(&lit);
            free(abs);
        }
        weir__buf_putc(out, ']');
        return 0;
    }
    if (!r->path)
        return rf_error(r, r->call->pos, "%s() needs a path", r->call->name);
    char *full = base_dir && !weir__path_is_abs(r->path)
                     ? weir__path_join(base_dir, r->path)
                     : NULL;
    const char *p = full ? full : r->path;
    weir_buf b = WEIR_BUF_INIT;
    size_t n = strlen(p);
    /* A path that exists is literal (DuckDB would expand its glob
     * characters); only one that does not is a glob. */
    bool folder = n == 0 || weir__fs_is_dir(p) || (!has_glob(p) && p[n - 1] == '/');
    if (folder && weir__spark_sink_has_log(p)) {
        int rc = put_sink_files(r, out, p, filter);
        free(full);
        return rc;
    }
    if (folder) {
        weir__fs_put_glob_literal(&b, p);
        if (!n || p[n - 1] != '/')
            weir__buf_putc(&b, '/');
        if (recursive == 1)
            weir__buf_puts(&b, "**/");
        put_visible_names(&b, filter);
    } else if (weir__fs_is_file(p)) {
        weir__fs_put_glob_literal(&b, p);
    } else {
        weir__buf_puts(&b, p);
    }
    weir__buf_put_sql_string(out, weir__buf_cstr(&b));
    weir__buf_free(&b);
    free(full);
    return 0;
}

/* Spark's CSV markers: an empty unquoted field reads as nullValue and a
 * quoted empty string as emptyValue (both "" by default); a field equal
 * to nullValue is NULL, and in a float or double column a field equal to
 * nanValue, positiveInf or negativeInf (NaN, Inf, -Inf) is that value. */
typedef struct csv_marks {
    const char *null_value, *empty_value; /* "" when not given */
    const char *nan, *pos_inf, *neg_inf;  /* NULL unless DuckDB cannot read them */
} csv_marks;

static const char *mark_text(rf *r, const char *key)
{
    opt *o = find(r, key);
    return o && o->arg->text ? o->arg->text : NULL;
}

static bool duckdb_reads(const char *v, char sign, bool nan)
{
    if (*v == '+' && sign == '+')
        v++;
    else if (sign == '-' && *v++ != '-')
        return false;
    if (nan)
        return sign == '+' && weir__str_ieq(v, "nan");
    return weir__str_ieq(v, "inf") || weir__str_ieq(v, "infinity");
}

bool weir__sql_csv_float_mark_native(const char *key, const char *v)
{
    if (!v)
        return false;
    if (weir__str_ieq(key, "nanValue"))
        return duckdb_reads(v, '+', true);
    if (weir__str_ieq(key, "positiveInf"))
        return duckdb_reads(v, '+', false);
    return weir__str_ieq(key, "negativeInf") && duckdb_reads(v, '-', false);
}

static void csv_marks_read(rf *r, csv_marks *m)
{
    const char *v;
    m->null_value = (v = mark_text(r, "nullValue")) ? v : "";
    m->empty_value = (v = mark_text(r, "emptyValue")) ? v : "";
    static const char *const keys[] = { "nanValue", "positiveInf", "negativeInf" };
    const char **marks[] = { &m->nan, &m->pos_inf, &m->neg_inf };
    for (int i = 0; i < 3; i++) {
        v = mark_text(r, keys[i]);
        *marks[i] = v && !weir__sql_csv_float_mark_native(keys[i], v) ? v : NULL;
    }
}

/* DuckDB's nullstr: unquoted empty fields and nullValue are NULL. A
 * quoted empty string is NULL too when emptyValue equals nullValue (the
 * default), else it is kept as '' for wrap_strings to make emptyValue. */
static void null_option(const csv_marks *m, weir_buf *out)
{
    bool quoted_null = strcmp(m->null_value, m->empty_value) == 0;
    if (!*m->null_value && quoted_null)
        return; /* DuckDB's defaults */
    weir__buf_puts(out, ", nullstr = ");
    if (*m->null_value) {
        weir__buf_putc(out, '[');
        weir__buf_put_sql_string(out, m->null_value);
        weir__buf_puts(out, ", '']");
    } else {
        weir__buf_puts(out, "''");
    }
    weir__buf_printf(out, ", allow_quoted_nulls = %s", quoted_null ? "true" : "false");
}

/* The string columns of a read without DuckDB's quoted nulls: a quoted
 * empty string becomes emptyValue and a quoted nullValue NULL, as in
 * Spark. A column's type is known only to DuckDB, so the CASE asks
 * typeof(), which DuckDB folds before it types the other branches. */
static void wrap_strings(const csv_marks *m, weir_buf *body)
{
    if (strcmp(m->null_value, m->empty_value) == 0 ||
        (!*m->null_value && !*m->empty_value))
        return;
    weir_buf w = WEIR_BUF_INIT;
    weir__buf_puts(&w, "(SELECT CASE");
    if (*m->null_value) {
        weir__buf_puts(&w, " WHEN typeof(COLUMNS(*)) = 'VARCHAR' AND "
                           "CAST(COLUMNS(*) AS VARCHAR) = ");
        weir__buf_put_sql_string(&w, m->null_value);
        weir__buf_puts(&w, " THEN NULL");
    }
    if (*m->empty_value) {
        weir__buf_puts(&w, " WHEN typeof(COLUMNS(*)) = 'VARCHAR' AND "
                           "CAST(COLUMNS(*) AS VARCHAR) = '' THEN ");
        weir__buf_put_sql_string(&w, m->empty_value);
    }
    weir__buf_printf(&w, " ELSE COLUMNS(*) END FROM %s)", weir__buf_cstr(body));
    weir__buf_clear(body);
    weir__buf_puts(body, weir__buf_cstr(&w));
    weir__buf_free(&w);
}

static bool has_float_marks(const csv_marks *m)
{
    return m->nan || m->pos_inf || m->neg_inf;
}

static void put_float_mark(weir_buf *b, const char *mark, const char *value)
{
    if (!mark)
        return;
    weir__buf_puts(b, " WHEN ");
    weir__buf_put_sql_string(b, mark);
    weir__buf_printf(b, " THEN '%s'", value);
}

static bool float_kind(const weir_sql_type *t)
{
    return t->kind == TY_DOUBLE || t->kind == TY_FLOAT;
}

/* columns = {..} of the schema option. With CSV float marks (m), float
 * and double columns are read as text and *wrap gets the select list that
 * turns the marks into NaN and infinities and casts the rest. */
static int schema_columns(rf *r, weir_buf *out, const char *schema,
                          const csv_marks *m, weir_buf *wrap)
{
    weir_arena a = WEIR_ARENA_INIT;
    const weir_sql_type *t;
    weir_error perr;
    int rc = weir__sql_parse_schema(&t, &a, schema, &perr);
    if (rc || t->kind != TY_STRUCT) {
        weir__arena_free(&a);
        return rf_error(r, r->call->pos, "Invalid schema option '%s'", schema);
    }
    bool marks = m && has_float_marks(m);
    weir__buf_puts(out, ", columns = {");
    for (size_t i = 0; i < t->n_fields; i++) {
        const weir_sql_type *ft = t->fields[i].type;
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_string(out, t->fields[i].name);
        weir__buf_puts(out, ": ");
        weir_buf ty = WEIR_BUF_INIT;
        weir__sql_type_to_duckdb(&ty, ft);
        if (marks && float_kind(ft)) {
            weir__buf_puts(out, "'VARCHAR'");
            weir__buf_puts(wrap, i ? ", CASE " : "CASE ");
            weir__buf_put_sql_ident(wrap, t->fields[i].name);
            put_float_mark(wrap, m->nan, "NaN");
            put_float_mark(wrap, m->pos_inf, "Infinity");
            put_float_mark(wrap, m->neg_inf, "-Infinity");
            weir__buf_puts(wrap, " ELSE ");
            weir__buf_put_sql_ident(wrap, t->fields[i].name);
            weir__buf_printf(wrap, " END::%s AS ", weir__buf_cstr(&ty));
        } else {
            weir__buf_put_sql_string(out, weir__buf_cstr(&ty));
            weir__buf_puts(wrap, i ? ", " : "");
        }
        weir__buf_put_sql_ident(wrap, t->fields[i].name);
        weir__buf_free(&ty);
    }
    weir__buf_putc(out, '}');
    weir__arena_free(&a);
    return 0;
}

static int date_option(rf *r, weir_buf *out, const char *key, const char *name)
{
    const char *v = opt_text(r, key);
    if (!v)
        return 0;
    weir_buf f = WEIR_BUF_INIT;
    char bad[32];
    if (!weir__sql_datetime_format(&f, v, true, bad, sizeof(bad))) {
        weir__buf_free(&f);
        return rf_error(r, r->call->pos, "Option %s: pattern '%s' is not supported",
                        key, v);
    }
    weir__buf_printf(out, ", %s = ", name);
    weir__buf_put_sql_string(out, weir__buf_cstr(&f));
    weir__buf_free(&f);
    return 0;
}

static int string_option(rf *r, weir_buf *out, const char *key, const char *name)
{
    opt *o = find(r, key);
    if (!o)
        return 0;
    weir__buf_printf(out, ", %s = ", name);
    weir__buf_put_sql_string(out, o->arg->text ? o->arg->text : "");
    return 0;
}

/* read_csv(..) with Spark's CSV options, header and column names. */
static int render_csv(rf *r, weir_buf *body, const char *files_sql, int header,
                      int infer, const char *schema)
{
    int rc;
    csv_marks m;
    csv_marks_read(r, &m);
    if (has_float_marks(&m) && !schema && infer != 0)
        return rf_error(r, r->call->pos,
                        "%s(): nanValue, positiveInf or negativeInf '%s' with "
                        "inferred column types is not supported by weir "
                        "(DuckDB's type inference does not know it); give the "
                        "columns a schema",
                        r->call->name,
                        m.nan ? m.nan : m.pos_inf ? m.pos_inf : m.neg_inf);
    weir__buf_printf(body, "read_csv(%s, union_by_name = true, header = %s",
                     files_sql, header == 1 ? "true" : "false");
    const char *sep = opt_text(r, "sep");
    if (!sep)
        sep = opt_text(r, "delimiter");
    if (!sep && r->path && weir__str_ends(r->path, ".tsv"))
        sep = "\t";
    if (sep) {
        weir__buf_puts(body, ", delim = ");
        weir__buf_put_sql_string(body, sep);
    }
    null_option(&m, body);
    if ((rc = string_option(r, body, "quote", "quote")) ||
        (rc = string_option(r, body, "escape", "escape")) ||
        (rc = string_option(r, body, "comment", "comment")) ||
        (rc = date_option(r, body, "dateFormat", "dateformat")) ||
        (rc = date_option(r, body, "timestampFormat", "timestampformat")))
        return rc;
    const char *mode = opt_text(r, "mode");
    if (mode && weir__str_ieq(mode, "DROPMALFORMED"))
        weir__buf_puts(body, ", ignore_errors = true");
    else if (mode && !weir__str_ieq(mode, "FAILFAST") &&
             !weir__str_ieq(mode, "PERMISSIVE"))
        return rf_error(r, r->call->pos, "Option mode '%s' is not supported", mode);
    weir_buf cols = WEIR_BUF_INIT;
    if (schema) {
        if ((rc = schema_columns(r, body, schema, &m, &cols))) {
            weir__buf_free(&cols);
            return rc;
        }
    } else if (infer == 0) {
        weir__buf_puts(body, ", all_varchar = true");
    }
    /* Like Spark, the header is the first line and says how many
     * columns there are: a short row gets NULLs, a long row's extra
     * fields (which DuckDB names columnN) are dropped. */
    if (header == 1 && !schema)
        weir__buf_puts(body, ", null_padding = true");
    weir__buf_putc(body, ')');
    /* Without a header Spark names the columns _c0, _c1, ... */
    const char *sel = schema ? (has_float_marks(&m) ? weir__buf_cstr(&cols) : NULL)
                      : header == 1
                          ? "COLUMNS(c -> NOT regexp_full_match(c, 'column[0-9]+'))"
                          : "COLUMNS('^column(\\d+)$') AS '_c\\1'";
    if (sel) {
        weir_buf tmp = WEIR_BUF_INIT;
        weir__buf_printf(&tmp, "(SELECT %s FROM %s)", sel, weir__buf_cstr(body));
        weir__buf_clear(body);
        weir__buf_puts(body, weir__buf_cstr(&tmp));
        weir__buf_free(&tmp);
    }
    weir__buf_free(&cols);
    wrap_strings(&m, body);
    return 0;
}

/* Options that are accepted and have no effect in weir. */
static const char *const IGNORED[] = {
    "schemaLocation", "schemaEvolutionMode", "maxFilesPerTrigger",
    "maxBytesPerTrigger", "useNotifications", "includeExistingFiles",
    "mergeSchema", "validateOptions", "encoding", "charset", "allowOverwrites",
    NULL
};

int weir__sql_render_read_files(weir_buf *out, const weir_sql_tvf *call,
                                const char *const *files, size_t n_files,
                                const char *base_dir, weir_error *err)
{
    rf r;
    memset(&r, 0, sizeof(r));
    r.call = call;
    r.err = err;
    int rc = collect(&r);
    if (rc)
        return rc;
    const char *fmt = opt_text(&r, "format");
    if (!fmt && r.path)
        fmt = ext_format(r.path);
    if (!fmt && n_files)
        fmt = ext_format(files[0]);
    if (!fmt)
        return rf_error(&r, call->pos,
                        "%s(): cannot infer the file format of '%s'; pass "
                        "format => 'json' | 'csv' | 'parquet' | 'text'",
                        call->name, r.path ? r.path : "");
    int recursive, infer, header, multiline;
    if ((rc = opt_bool(&r, "recursiveFileLookup", &recursive)) ||
        (rc = opt_bool(&r, "inferColumnTypes", &infer)) ||
        (rc = opt_bool(&r, "header", &header)) ||
        (rc = opt_bool(&r, "multiLine", &multiline)))
        return rc;
    if (infer < 0 && (rc = opt_bool(&r, "inferSchema", &infer)))
        return rc;
    const char *filter = opt_text(&r, "pathGlobFilter");
    const char *schema = opt_text(&r, "schema");
    const char *encoding = opt_text(&r, "encoding");
    if (!encoding)
        encoding = opt_text(&r, "charset");
    if (encoding && !weir__str_ieq(encoding, "utf-8") &&
        !weir__str_ieq(encoding, "utf8"))
        return rf_error(&r, call->pos, "Option encoding '%s' is not supported",
                        encoding);
    for (int i = 0; IGNORED[i]; i++)
        find(&r, IGNORED[i]);
    weir_buf body = WEIR_BUF_INIT;
    weir_buf files_sql = WEIR_BUF_INIT;
    rc = put_files(&r, &files_sql, files, n_files, base_dir, recursive, filter);
    if (rc)
        goto out;
    if (weir__str_ieq(fmt, "json")) {
        weir__buf_printf(&body, "read_json(%s, format = '%s', union_by_name = true",
                         weir__buf_cstr(&files_sql),
                         multiline == 1 ? "auto" : "newline_delimited");
        if (infer == 0 && !schema) {
            rc = rf_error(&r, call->pos,
                          "Option inferColumnTypes = false is not supported for "
                          "JSON");
            goto out;
        }
        weir_buf unused = WEIR_BUF_INIT;
        rc = schema ? schema_columns(&r, &body, schema, NULL, &unused) : 0;
        weir__buf_free(&unused);
        if (rc)
            goto out;
        if ((rc = date_option(&r, &body, "dateFormat", "dateformat")) ||
            (rc = date_option(&r, &body, "timestampFormat", "timestampformat")))
            goto out;
        weir__buf_putc(&body, ')');
    } else if (weir__str_ieq(fmt, "csv")) {
        if ((rc = render_csv(&r, &body, weir__buf_cstr(&files_sql), header,
                             infer, schema)))
            goto out;
    } else if (weir__str_ieq(fmt, "parquet")) {
        if (schema) {
            rc = rf_error(&r, call->pos, "Option schema is not supported for "
                                         "parquet");
            goto out;
        }
        weir__buf_printf(&body, "read_parquet(%s, union_by_name = true)",
                         weir__buf_cstr(&files_sql));
    } else if (weir__str_ieq(fmt, "text")) {
        weir__buf_printf(&body,
                         "(SELECT unnest(regexp_split_to_array(regexp_replace("
                         "content, '\\r?\\n$', ''), '\\r?\\n')) AS \"value\" "
                         "FROM read_text(%s) WHERE content <> '')",
                         weir__buf_cstr(&files_sql));
    } else {
        rc = rf_error(&r, call->pos, "File format '%s' is not supported", fmt);
        goto out;
    }
    for (size_t i = 0; i < r.n_opts; i++) {
        if (!r.opts[i].used) {
            rc = rf_error(&r, r.opts[i].arg->pos,
                          "Option '%s' of %s() is not supported", r.opts[i].key,
                          call->name);
            goto out;
        }
    }
    weir__buf_puts(out, weir__buf_cstr(&body));
out:
    weir__buf_free(&body);
    weir__buf_free(&files_sql);
    return rc;
}

/* Spark's defaults for a path read, which are those of DataFrameReader,
 * not read_files': CSV has no header and every column is a string named
 * _c0, _c1, ...; JSON and Parquet infer; text is one `value` column. */
int weir__sql_render_path_read(weir_buf *out, const char *format,
                               const char *path, weir_sql_pos pos,
                               const char *base_dir, weir_error *err)
{
    if (!weir__str_ieq(format, "json") && !weir__str_ieq(format, "csv") &&
        !weir__str_ieq(format, "parquet") && !weir__str_ieq(format, "text")) {
        WEIR_ERR(err, WEIR_ESQL, "UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY",
                 "Unsupported data source type for direct query on files: "
                 "%s (weir reads json, csv, parquet, text and delta files)",
                 format);
        if (err && pos.line) {
            err->line = pos.line;
            err->column = pos.column;
        }
        return WEIR_ESQL;
    }
    weir_sql_arg args[3];
    memset(args, 0, sizeof(args));
    size_t n = 0;
    args[n].kind = WEIR_SQL_ARG_STRING;
    args[n].text = path;
    args[n++].pos = pos;
    args[n].name = "format";
    args[n].kind = WEIR_SQL_ARG_STRING;
    args[n].text = format;
    args[n++].pos = pos;
    if (weir__str_ieq(format, "csv")) {
        args[n].name = "inferSchema";
        args[n].kind = WEIR_SQL_ARG_BOOL;
        args[n].text = "false";
        args[n++].pos = pos;
    }
    weir_sql_tvf call = { "read_files", false, args, n, pos, NULL };
    return weir__sql_render_read_files(out, &call, NULL, 0, base_dir, err);
}
