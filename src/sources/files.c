/*
 * Streaming file sources like Databricks Auto Loader (see files.h and
 * docs/files.md): options, discovery, schema inference with hints, stored
 * and evolving schemas, rescued data, _metadata.
 */
#define _GNU_SOURCE
#include "sources/files.h"

#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/meta.h"
#include "util/json.h"
#include "util/str.h"
#include "util/vec.h"

/* Files sampled to infer a schema (Auto Loader samples at most 1000). */
#define INFER_SAMPLE 1000

/* ---- options ------------------------------------------------------------- */

static int bad_option(weir_error *err, const weir_sql_tvf *call,
                      const weir_sql_arg *a, const char *what, const char *key)
{
    WEIR_ERR(err, WEIR_ESQL, "UNSUPPORTED_SPARK_SQL", "%s(): %s '%s'",
             call->name, what, key);
    if (err && a && a->pos.line) {
        err->line = a->pos.line;
        err->column = a->pos.column;
    }
    return WEIR_ESQL;
}

static bool truthy(const weir_sql_arg *a)
{
    return a->text && weir__str_ieq(a->text, "true");
}

static int set_option(weir_file_opts *o, const weir_sql_tvf *call,
                      const char *key, const weir_sql_arg *a, weir_error *err)
{
    if (weir__str_istarts(key, "cloudFiles."))
        key += strlen("cloudFiles.");
    if (a->kind == WEIR_SQL_ARG_OTHER || a->kind == WEIR_SQL_ARG_MAP)
        return bad_option(err, call, a, "option values must be literals:", key);
    const char *v = a->kind == WEIR_SQL_ARG_NULL ? NULL : a->text;
    if (weir__str_ieq(key, "format"))
        o->format = v;
    else if (weir__str_ieq(key, "multiLine"))
        o->multiline = truthy(a);
    else if (weir__str_ieq(key, "header"))
        o->header = truthy(a);
    else if (weir__str_ieq(key, "sep") || weir__str_ieq(key, "delimiter"))
        o->sep = v;
    else if (weir__str_ieq(key, "quote"))
        o->quote = v;
    else if (weir__str_ieq(key, "escape"))
        o->escape = v;
    else if (weir__str_ieq(key, "nullValue"))
        o->null_value = v;
    else if (weir__str_ieq(key, "recursiveFileLookup"))
        o->recursive = truthy(a);
    else if (weir__str_ieq(key, "allowOverwrites"))
        o->allow_overwrites = truthy(a);
    else if (weir__str_ieq(key, "pathGlobFilter"))
        o->glob_filter = v;
    else if (weir__str_ieq(key, "schema"))
        o->schema = v;
    else if (weir__str_ieq(key, "schemaHints"))
        o->hints = v;
    else if (weir__str_ieq(key, "rescuedDataColumn"))
        o->rescued = v ? v : "";
    else if (weir__str_ieq(key, "mode"))
        o->mode = v;
    else if (weir__str_ieq(key, "inferColumnTypes") ||
             weir__str_ieq(key, "inferSchema"))
        o->infer_types = truthy(a);
    else if (weir__str_ieq(key, "schemaEvolutionMode")) {
        if (!v)
            return bad_option(err, call, a, "bad schemaEvolutionMode", "NULL");
        if (weir__str_ieq(v, "addNewColumns"))
            o->evolution = WEIR_EVOLVE_ADD_NEW_COLUMNS;
        else if (weir__str_ieq(v, "rescue"))
            o->evolution = WEIR_EVOLVE_RESCUE;
        else if (weir__str_ieq(v, "failOnNewColumns"))
            o->evolution = WEIR_EVOLVE_FAIL_ON_NEW_COLUMNS;
        else if (weir__str_ieq(v, "none"))
            o->evolution = WEIR_EVOLVE_NONE;
        else
            return bad_option(err, call, a, "unknown schemaEvolutionMode", v);
        o->evolution_set = true;
    } else if (weir__str_ieq(key, "schemaLocation") ||
               weir__str_ieq(key, "maxFilesPerTrigger") ||
               weir__str_ieq(key, "maxBytesPerTrigger") ||
               weir__str_ieq(key, "includeExistingFiles") ||
               weir__str_ieq(key, "useNotifications") ||
               weir__str_ieq(key, "validateOptions"))
        ; /* managed by the pipeline, or no effect in a triggered update */
    else
        return bad_option(err, call, a, "unsupported option", key);
    return 0;
}

static const char *ext_format(const char *path)
{
    static const char *const map[][2] = { { ".json", "json" }, { ".jsonl", "json" },
                                          { ".ndjson", "json" }, { ".csv", "csv" },
                                          { ".tsv", "csv" }, { ".parquet", "parquet" },
                                          { ".txt", "text" } };
    for (size_t i = 0; path && i < sizeof(map) / sizeof(map[0]); i++)
        if (weir__str_ends(path, map[i][0]))
            return map[i][1];
    return NULL;
}

int weir__file_opts(weir_file_opts *o, const weir_sql_tvf *call,
                    weir_error *err)
{
    memset(o, 0, sizeof(*o));
    o->infer_types = true;
    bool cloud = weir__str_ieq(call->name, "cloud_files");
    size_t positional = 0;
    for (size_t i = 0; i < call->n_args; i++) {
        const weir_sql_arg *a = &call->args[i];
        int rc = 0;
        if (a->name && weir__str_ieq(a->name, "path")) {
            o->path = a->text;
        } else if (a->name) {
            rc = set_option(o, call, a->name, a, err);
        } else if (positional++ == 0) {
            o->path = a->kind == WEIR_SQL_ARG_STRING ? a->text : NULL;
        } else if (cloud && positional == 2) {
            o->format = a->text;
        } else if (cloud && positional == 3 && a->kind == WEIR_SQL_ARG_MAP) {
            for (size_t k = 0; !rc && k + 1 < a->n_items; k += 2)
                rc = set_option(o, call, a->items[k].text ? a->items[k].text : "",
                                &a->items[k + 1], err);
        } else {
            rc = bad_option(err, call, a, "unexpected argument",
                            a->text ? a->text : "?");
        }
        if (rc)
            return rc;
    }
    if (!o->path)
        return bad_option(err, call, NULL, "needs a path, got", "nothing");
    if (!o->format)
        o->format = ext_format(o->path);
    if (!o->format)
        return bad_option(err, call, NULL,
                          "cannot infer the file format (pass format => "
                          "'json' | 'csv' | 'parquet' | 'text') of",
                          o->path);
    if (!weir__str_ieq(o->format, "json") && !weir__str_ieq(o->format, "csv") &&
        !weir__str_ieq(o->format, "parquet") && !weir__str_ieq(o->format, "text"))
        return bad_option(err, call, NULL, "unsupported format", o->format);
    if (!o->evolution_set)
        o->evolution = o->schema ? WEIR_EVOLVE_NONE : WEIR_EVOLVE_ADD_NEW_COLUMNS;
    if (!o->rescued)
        o->rescued = (!o->schema || o->evolution == WEIR_EVOLVE_RESCUE)
                         ? "_rescued_data"
                         : "";
    if (weir__str_ieq(o->format, "text"))
        o->rescued = "";
    if (!o->mode)
        o->mode = "PERMISSIVE";
    if (!weir__str_ieq(o->mode, "PERMISSIVE") && !weir__str_ieq(o->mode, "FAILFAST") &&
        !weir__str_ieq(o->mode, "DROPMALFORMED"))
        return bad_option(err, call, NULL, "unsupported mode", o->mode);
    return 0;
}

/* ---- discovery ------------------------------------------------------------ */

static int push_file(weir_file_list *out, const char *path, weir_error *err)
{
    weir_file_info fi;
    int rc = weir__fs_stat(&fi, path, err);
    if (rc == WEIR_ENOTFOUND)
        return 0; /* deleted while listing */
    if (rc)
        return rc;
    if (weir__vec_grow((void **)&out->items, &out->cap, sizeof(*out->items),
                       out->len + 1)) {
        free(fi.path);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    out->items[out->len++] = fi;
    return 0;
}

static bool hidden(const char *path)
{
    const char *b = weir__path_basename(path);
    return b[0] == '.' || b[0] == '_';
}

/* Move the files DuckDB cannot be given by name out of l, into bad. */
static int split_unreadable(weir_file_list *l, weir_file_list *bad,
                            weir_error *err)
{
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < l->len; i++) {
        if (!weir__fs_unreadable_name(l->items[i].path)) {
            l->items[k++] = l->items[i];
            continue;
        }
        if (bad && !rc &&
            !weir__vec_grow((void **)&bad->items, &bad->cap, sizeof(*bad->items),
                            bad->len + 1)) {
            bad->items[bad->len++] = l->items[i];
            continue;
        }
        if (bad && !rc)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        free(l->items[i].path);
    }
    l->len = k;
    return rc;
}

int weir__files_list(weir_file_list *out, weir_file_list *unreadable,
                     bool *missing, const char *root_dir,
                     const weir_file_opts *o, weir_error *err)
{
    *missing = false;
    char *abs = weir__path_absolute(o->path, root_dir);
    if (!abs)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = 0;
    weir_file_list all = { NULL, 0, 0 };
    /* A path that exists is taken literally, glob characters or not. */
    if (weir__fs_is_dir(abs)) {
        rc = weir__fs_list(&all, abs, o->recursive, true, err);
    } else if (weir__fs_is_file(abs)) {
        rc = push_file(&all, abs, err);
    } else if (strpbrk(abs, "*?[")) {
        glob_t gl;
        int grc = glob(abs, 0, NULL, &gl);
        for (size_t i = 0; grc == 0 && !rc && i < gl.gl_pathc; i++)
            if (weir__fs_is_file(gl.gl_pathv[i]) && !hidden(gl.gl_pathv[i]))
                rc = push_file(&all, gl.gl_pathv[i], err);
        if (grc == 0)
            globfree(&gl);
        if (grc == GLOB_NOMATCH)
            *missing = true;
    } else {
        *missing = true;
    }
    free(abs);
    if (!rc)
        rc = split_unreadable(&all, unreadable, err);
    if (rc) {
        weir__fs_list_free(&all);
        return rc;
    }
    /* pathGlobFilter matches file names. */
    size_t k = 0;
    for (size_t i = 0; i < all.len; i++) {
        if (o->glob_filter &&
            fnmatch(o->glob_filter, weir__path_basename(all.items[i].path), 0)) {
            free(all.items[i].path);
            continue;
        }
        all.items[k++] = all.items[i];
    }
    all.len = k;
    *out = all;
    return 0;
}

/* ---- schemas ---------------------------------------------------------------- */

static void put_file_list(weir_buf *b, const char *const *files, size_t n)
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

/* Lines (and JSON records) up to this size are read, as Spark reads long
 * ones; DuckDB's defaults are 2 MB and 16 MB. */
#define MAX_RECORD "268435456"

static void csv_options(weir_buf *b, const weir_file_opts *o)
{
    weir__buf_printf(b, ", header = %s, max_line_size = " MAX_RECORD,
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

/* DuckDB's name for a field past the end of a CSV header: columnN. */
static bool extra_csv_field(const char *name)
{
    if (strncmp(name, "column", 6) != 0 || !name[6])
        return false;
    for (const char *p = name + 6; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static weir_db_column *find_col(const weir_file_schema *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (weir__str_ieq(s->cols[i].name, name))
            return &s->cols[i];
    return NULL;
}

/*
 * DuckDB's JSON sniffing renames or mangles keys that are not plain column
 * names: a second spelling of a name in another case becomes "name_1", ""
 * becomes "C0", a key with a NUL is cut at it. Read the true top-level
 * keys of the sampled files, keep only columns that are keys, one per
 * case-insensitive name (the first), and say whether the files hold keys
 * the fast reader would drop. *missed: a plain key no column takes in any
 * spelling (the sniffing reads the first records of each file only, and
 * the key comes later: Spark's inference, which reads every record,
 * makes it a column).
 */
static int reconcile_json_keys(weir_file_schema *s, weir_arena *a,
                               weir_conn *conn, const weir_file_opts *o,
                               const char *const *files, size_t n,
                               bool *missed, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT k, k = '' OR contains(k, chr(0)) FROM (SELECT "
                       "DISTINCT unnest(json_keys(json)) AS k FROM "
                       "read_json_objects(");
    put_file_list(&q, files, n);
    /* json_keys() of anything but an object is empty: no json_type()
     * filter, which parsed every record a second time. */
    weir__buf_printf(&q, ", format = '%s', ignore_errors = true, "
                         "maximum_object_size = " MAX_RECORD "))",
                     o->multiline ? "auto" : "newline_delimited");
    weir_rows *r = NULL;
    int rc = weir__query_buf(conn, &q, &r, err);
    weir__buf_free(&q);
    if (rc)
        return rc;
    weir_map keys = WEIR_MAP_INIT(false);
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const char *k = weir__rows_get(r, i, 0);
        const char *bad = weir__rows_get(r, i, 1);
        if (bad && !strcmp(bad, "true"))
            s->odd_keys = true;
        else if (k && weir__map_put(&keys, k, (void *)1))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    size_t kept = 0;
    for (size_t i = 0; !rc && i < s->n; i++) {
        if (!weir__map_has(&keys, s->cols[i].name))
            continue; /* a name DuckDB made up */
        weir_file_schema cur = { s->cols, kept, false };
        if (find_col(&cur, s->cols[i].name))
            continue; /* another spelling of a kept column */
        s->cols[kept++] = s->cols[i];
    }
    /* A key kept under another spelling is read by the careful reader. */
    weir_file_schema cur = { s->cols, kept, false };
    *missed = false;
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const char *k = weir__rows_get(r, i, 0);
        const char *bad = weir__rows_get(r, i, 1);
        const weir_db_column *c = k ? find_col(&cur, k) : NULL;
        if (c && strcmp(c->name, k))
            s->odd_keys = true;
        else if (!c && k && !(bad && !strcmp(bad, "true")))
            *missed = true;
    }
    if (!rc)
        s->n = kept;
    weir__map_free(&keys);
    weir__rows_free(r);
    (void)a;
    return rc;
}

/* Columns the files have, per DuckDB's sniffing (sampling the files). */
static int infer(weir_file_schema *out, weir_arena *a, weir_conn *conn,
                 const weir_file_opts *o, const char *const *files, size_t n,
                 weir_infer_cache *cache, weir_error *err)
{
    if (n > INFER_SAMPLE)
        n = INFER_SAMPLE;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT * FROM ");
    if (weir__str_ieq(o->format, "json")) {
        weir__buf_puts(&q, "read_json(");
        put_file_list(&q, files, n);
        weir__buf_printf(&q, ", format = '%s', union_by_name = true, "
                             "ignore_errors = true, maximum_object_size = "
                             MAX_RECORD ", maximum_depth = %d)",
                         o->multiline ? "auto" : "newline_delimited",
                         o->infer_types ? -1 : 1);
    } else if (weir__str_ieq(o->format, "csv")) {
        weir__buf_puts(&q, "read_csv(");
        put_file_list(&q, files, n);
        csv_options(&q, o);
        /* null_padding: the header line, not the widest row, says how
         * many columns a file has (extra fields come out as columnN). */
        weir__buf_printf(&q, ", union_by_name = true, all_varchar = %s%s)",
                         o->infer_types ? "false" : "true",
                         o->header ? ", null_padding = true" : "");
    } else if (weir__str_ieq(o->format, "parquet")) {
        weir__buf_puts(&q, "read_parquet(");
        put_file_list(&q, files, n);
        weir__buf_puts(&q, ", union_by_name = true)");
    } else {
        weir__buf_puts(&q, "(SELECT ''::VARCHAR AS \"value\")");
    }
    if (q.failed) {
        weir__buf_free(&q);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    bool cached = weir__infer_cache_get(cache, weir__buf_cstr(&q), out, a);
    out->odd_keys = cached && out->odd_keys;
    int rc = cached ? 0
                    : weir__conn_describe(conn, weir__buf_cstr(&q), &out->cols,
                                          &out->n, a, err);
    if (rc)
        weir__files_explain_error(err);
    bool missed = false;
    if (!rc && !cached && weir__str_ieq(o->format, "json"))
        rc = reconcile_json_keys(out, a, conn, o, files, n, &missed, err);
    if (!rc && missed) {
        /* Keys past what the sniffing read: infer again from every
         * record, as Spark does (only then: it parses the files whole). */
        weir_buf full = WEIR_BUF_INIT;
        weir__buf_printf(&full, "%.*s, sample_size = -1)",
                         (int)(q.len - 1), weir__buf_cstr(&q));
        rc = full.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                         : weir__conn_describe(conn, weir__buf_cstr(&full),
                                               &out->cols, &out->n, a, err);
        weir__buf_free(&full);
        if (rc)
            weir__files_explain_error(err);
        else
            rc = reconcile_json_keys(out, a, conn, o, files, n, &missed, err);
        /* Still a key without a column: the careful reader rescues it. */
        out->odd_keys = out->odd_keys || missed;
    }
    if (!rc && !cached)
        weir__infer_cache_put(cache, weir__buf_cstr(&q), out);
    weir__buf_free(&q);
    if (!rc && weir__str_ieq(o->format, "csv") && o->header) {
        /* Fields past the header's are dropped, as Spark does. */
        size_t k = 0;
        for (size_t i = 0; i < out->n; i++)
            if (!extra_csv_field(out->cols[i].name))
                out->cols[k++] = out->cols[i];
        out->n = k;
    }
    for (size_t i = 0; !rc && i < out->n; i++) {
        weir_db_column *c = &out->cols[i];
        /* Mixed JSON values are strings, as in Spark. */
        if (!strcmp(c->type, "JSON") || !strcmp(c->type, "\"NULL\""))
            c->type = "VARCHAR";
        /* Spark names headerless CSV columns _c0, _c1, ... */
        if (weir__str_ieq(o->format, "csv") && !o->header &&
            weir__str_istarts(c->name, "column"))
            c->name = weir__arena_printf(a, "_c%s", c->name + 6);
    }
    return rc;
}

/* Columns of a Spark DDL list ("a INT, b STRING"), as DuckDB types. */
static int ddl_columns(weir_file_schema *out, weir_arena *a, weir_conn *conn,
                       const char *ddl, weir_error *err)
{
    const weir_sql_type *t = NULL;
    out->odd_keys = false;
    char *text = weir__arena_printf(a, "STRUCT<%s>", ddl);
    weir_sql_type *pt = NULL;
    int rc = text ? weir__sql_parse_type(&pt, a, text, err)
                  : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    t = pt;
    if (rc)
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_SCHEMA",
                        "invalid schema '%s': %s", ddl, err ? err->message : "");
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT s.* FROM (SELECT CAST(NULL AS ");
    weir__sql_type_to_duckdb(&q, t);
    weir__buf_puts(&q, ") AS s)");
    rc = weir__conn_describe(conn, weir__buf_cstr(&q), &out->cols, &out->n, a,
                             err);
    weir__buf_free(&q);
    return rc;
}

/* Inferred schema with hints applied (types pinned; hinted columns the
 * files lack are added). */
static int apply_hints(weir_file_schema *s, weir_arena *a, weir_conn *conn,
                       const weir_file_opts *o, weir_error *err)
{
    if (!o->hints)
        return 0;
    weir_file_schema h;
    int rc = ddl_columns(&h, a, conn, o->hints, err);
    if (rc)
        return rc;
    weir_db_column *cols = weir__arena_array(a, s->n + h.n + 1, sizeof(*cols));
    if (!cols)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    memcpy(cols, s->cols, s->n * sizeof(*cols));
    size_t n = s->n;
    for (size_t i = 0; i < h.n; i++) {
        weir_file_schema cur = { cols, n, false };
        weir_db_column *c = find_col(&cur, h.cols[i].name);
        if (c)
            c->type = h.cols[i].type;
        else
            cols[n++] = h.cols[i];
    }
    s->cols = cols;
    s->n = n;
    return 0;
}

/* Drop columns weir adds itself (the rescued column, _metadata). */
static void drop_reserved(weir_file_schema *s, const weir_file_opts *o)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const char *n = s->cols[i].name;
        if ((o->rescued[0] && weir__str_ieq(n, o->rescued)) ||
            weir__str_ieq(n, "_metadata") || weir__str_ieq(n, "filename"))
            continue;
        s->cols[k++] = s->cols[i];
    }
    s->n = k;
}

static int schema_for_files(weir_file_schema *out, weir_arena *a,
                            weir_conn *conn, const weir_file_opts *o,
                            const char *const *files, size_t n,
                            weir_infer_cache *cache, weir_error *err)
{
    if (o->schema)
        return ddl_columns(out, a, conn, o->schema, err);
    int rc = infer(out, a, conn, o, files, n, cache, err);
    if (!rc)
        rc = apply_hints(out, a, conn, o, err);
    if (!rc)
        drop_reserved(out, o);
    return rc;
}

static void schema_json(weir_buf *b, const weir_file_schema *s)
{
    weir__buf_putc(b, '[');
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_puts(b, i ? ", {\"name\": " : "{\"name\": ");
        weir__buf_put_json_string(b, s->cols[i].name);
        weir__buf_puts(b, ", \"type\": ");
        weir__buf_put_json_string(b, s->cols[i].type);
        weir__buf_putc(b, '}');
    }
    weir__buf_putc(b, ']');
}

static int parse_schema_json(weir_file_schema *out, weir_arena *a,
                             const char *text, weir_error *err)
{
    weir_json *j;
    int rc = weir__json_parse(&j, a, text, strlen(text), err);
    if (rc || j->type != WEIR_JSON_ARRAY)
        return WEIR_ERR(err, WEIR_ECORRUPT, "CORRUPT_CHECKPOINT",
                        "the stored schema of a file source is damaged");
    out->cols = weir__arena_array(a, j->len + 1, sizeof(*out->cols));
    if (!out->cols)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    out->n = 0;
    for (size_t i = 0; i < j->len; i++) {
        const char *name = weir__json_get_str(j->items[i], "name");
        const char *type = weir__json_get_str(j->items[i], "type");
        if (!name || !type)
            return WEIR_ERR(err, WEIR_ECORRUPT, "CORRUPT_CHECKPOINT",
                            "the stored schema of a file source is damaged");
        out->cols[out->n].name = name;
        out->cols[out->n].type = type;
        out->n++;
    }
    return 0;
}

/* The latest stored schema of a source: 0 and *found, or 0 without. */
static int stored_schema(weir_file_schema *out, int64_t *version, bool *found,
                         weir_arena *a, weir_conn *conn,
                         const char *state_catalog, const char *flow,
                         int64_t generation, const char *source,
                         weir_error *err)
{
    *found = false;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT version, columns FROM ");
    weir__meta_table(&q, state_catalog, "file_schemas");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, flow);
    if (generation >= 0)
        weir__buf_printf(&q, " AND generation = %lld", (long long)generation);
    weir__buf_puts(&q, " AND source = ");
    weir__buf_put_sql_string(&q, source);
    weir__buf_puts(&q, " ORDER BY generation DESC, version DESC LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(conn, &q, &r, err);
    weir__buf_free(&q);
    if (!rc && r->n_rows) {
        *version = strtoll(weir__rows_get(r, 0, 0), NULL, 10);
        const char *json = weir__arena_strdup(a, weir__rows_get(r, 0, 1));
        rc = json ? parse_schema_json(out, a, json, err)
                  : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        *found = !rc;
    }
    weir__rows_free(r);
    return rc;
}

int weir__files_plan_stored(weir_file_batch *b, weir_arena *a, weir_conn *conn,
                            const char *state_catalog, const char *flow,
                            int64_t generation, const char *source, bool *found,
                            weir_error *err)
{
    return stored_schema(&b->schema, &b->schema_version, found, a, conn,
                         state_catalog, flow, generation, source, err);
}

int weir__files_plan(weir_file_batch *b, weir_arena *a, weir_conn *conn,
                     const char *state_catalog, const char *flow,
                     int64_t generation, const char *source,
                     const char *const *files, size_t n, weir_error *err)
{
    bool found;
    int rc = stored_schema(&b->schema, &b->schema_version, &found, a, conn,
                           state_catalog, flow, generation, source, err);
    if (rc)
        return rc;
    if (!found) {
        b->schema_version = 0;
        b->store_schema = true;
        rc = schema_for_files(&b->schema, a, conn, &b->opts, files, n,
                              b->infer, err);
        b->unknown_fields = b->unknown_fields || b->schema.odd_keys;
        return rc;
    }
    if (b->opts.schema || b->opts.evolution == WEIR_EVOLVE_NONE)
        return 0;
    /* Compare with what the new files hold. */
    weir_file_schema now;
    rc = schema_for_files(&now, a, conn, &b->opts, files, n, b->infer, err);
    if (rc)
        return rc;
    b->unknown_fields = b->unknown_fields || now.odd_keys;
    /* A key spelled otherwise than the stored column: the fast reader
     * matches names exactly, the careful one ignoring case. */
    for (size_t i = 0; i < now.n && weir__str_ieq(b->opts.format, "json"); i++) {
        const weir_db_column *c = find_col(&b->schema, now.cols[i].name);
        if (c && strcmp(c->name, now.cols[i].name))
            b->unknown_fields = true;
    }
    weir_buf added = WEIR_BUF_INIT;
    size_t n_new = 0;
    for (size_t i = 0; i < now.n; i++)
        if (!find_col(&b->schema, now.cols[i].name)) {
            weir__buf_printf(&added, "%s%s", n_new++ ? ", " : "", now.cols[i].name);
        }
    if (n_new && b->opts.evolution == WEIR_EVOLVE_FAIL_ON_NEW_COLUMNS) {
        rc = WEIR_ERR(err, WEIR_ERROR, "UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_FILE",
                      "Encountered unknown fields during parsing: %s "
                      "(schemaEvolutionMode failOnNewColumns). Add them to "
                      "the schema or choose another schemaEvolutionMode.",
                      weir__buf_cstr(&added));
    } else if (n_new && b->opts.evolution == WEIR_EVOLVE_ADD_NEW_COLUMNS) {
        weir_db_column *cols =
            weir__arena_array(a, b->schema.n + n_new + 1, sizeof(*cols));
        if (!cols) {
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        } else {
            memcpy(cols, b->schema.cols, b->schema.n * sizeof(*cols));
            size_t k = b->schema.n;
            for (size_t i = 0; i < now.n; i++)
                if (!find_col(&b->schema, now.cols[i].name))
                    cols[k++] = now.cols[i];
            b->schema.cols = cols;
            b->schema.n = k;
            b->schema_version++;
            b->store_schema = true;
        }
    } else if (n_new) {
        b->unknown_fields = true; /* rescue: they go to the rescued column */
    }
    weir__buf_free(&added);
    return rc;
}

void weir__files_store_schema(weir_buf *sql, const weir_file_batch *b,
                              const char *state_catalog, const char *flow,
                              int64_t generation, const char *source,
                              const char *update_id)
{
    weir__buf_puts(sql, "INSERT INTO ");
    weir__meta_table(sql, state_catalog, "file_schemas");
    weir__buf_puts(sql, " VALUES (");
    weir__buf_put_sql_string(sql, flow);
    weir__buf_printf(sql, ", %lld, ", (long long)generation);
    weir__buf_put_sql_string(sql, source);
    weir__buf_printf(sql, ", %lld, ", (long long)b->schema_version);
    weir_buf j = WEIR_BUF_INIT;
    schema_json(&j, &b->schema);
    weir__buf_put_sql_string(sql, weir__buf_cstr(&j));
    weir__buf_free(&j);
    weir__buf_puts(sql, ", now()::TIMESTAMP, ");
    weir__buf_put_sql_string(sql, update_id);
    weir__buf_putc(sql, ')');
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
    put_file_list(b, files, n);
    weir__buf_puts(b, ", columns = {'__line': 'VARCHAR'}, delim = chr(31), "
                      "quote = '', escape = '', header = false, auto_detect = "
                      "false, filename = true, max_line_size = " MAX_RECORD ") WHERE "
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
    put_file_list(b, files, n);
    csv_options(b, o);
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
        put_file_list(b, files, n);
        weir__buf_printf(b, ", format = '%s', filename = true, "
                            "maximum_object_size = " MAX_RECORD,
                         o->multiline ? "auto" : "newline_delimited");
        if (weir__str_ieq(o->mode, "DROPMALFORMED"))
            weir__buf_puts(b, ", ignore_errors = true");
        put_columns(b, s);
    } else if (weir__str_ieq(o->format, "csv")) {
        weir__buf_puts(b, "read_csv(");
        put_file_list(b, files, n);
        csv_options(b, o);
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
        put_file_list(b, files, n);
        weir__buf_puts(b, ", union_by_name = true, filename = true)");
    } else {
        /* text: one row per line, in a column named value */
        weir__buf_puts(b, "(SELECT \"__line\" AS \"value\", \"filename\" FROM "
                          "read_csv(");
        put_file_list(b, files, n);
        weir__buf_puts(b, ", columns = {'__line': 'VARCHAR'}, delim = chr(31), "
                          "quote = '', escape = '', header = false, auto_detect "
                          "= false, filename = true, max_line_size = " MAX_RECORD "))");
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

/* ---- resolution ------------------------------------------------------------- */

static void empty_relation(weir_buf *out, const weir_file_schema *s,
                           const weir_file_opts *o, bool with_metadata);

void weir__files_empty_relation(weir_buf *out, const weir_file_batch *b,
                                bool with_metadata)
{
    weir_buf rel = WEIR_BUF_INIT;
    empty_relation(&rel, &b->schema, &b->opts, with_metadata);
    weir__buf_printf(out, "(SELECT * EXCLUDE (\"__weir_end\") FROM %s)",
                     weir__buf_cstr(&rel));
    weir__buf_free(&rel);
}

static void empty_relation(weir_buf *out, const weir_file_schema *s,
                           const weir_file_opts *o, bool with_metadata)
{
    weir__buf_puts(out, "(SELECT ");
    for (size_t i = 0; i < s->n; i++) {
        weir__buf_printf(out, "CAST(NULL AS %s) AS ", s->cols[i].type);
        weir__buf_put_sql_ident(out, s->cols[i].name);
        weir__buf_puts(out, ", ");
    }
    if (o->rescued[0]) {
        weir__buf_puts(out, "NULL::VARCHAR AS ");
        weir__buf_put_sql_ident(out, o->rescued);
        weir__buf_puts(out, ", ");
    }
    if (with_metadata)
        weir__buf_puts(out, "CAST(NULL AS STRUCT(file_path VARCHAR, file_name "
                            "VARCHAR, file_size BIGINT, file_modification_time "
                            "TIMESTAMP)) AS \"_metadata\", ");
    weir__buf_puts(out, "1 AS \"__weir_end\" WHERE false)");
}

int weir__files_analysis_relation(weir_buf *out, weir_conn *conn,
                                  const char *state_catalog, const char *flow,
                                  const char *source, const weir_sql_tvf *call,
                                  const char *root_dir, bool with_metadata,
                                  weir_infer_cache *infer, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_file_batch b;
    memset(&b, 0, sizeof(b));
    int rc = weir__file_opts(&b.opts, call, err);
    bool found = false;
    if (!rc && state_catalog) {
        weir_error ignore; /* no storage or no _weir yet: infer */
        if (stored_schema(&b.schema, &b.schema_version, &found, &a, conn,
                          state_catalog, flow, -1, source, &ignore))
            found = false;
    }
    weir_file_list files = { NULL, 0, 0 };
    if (!rc && !found) {
        bool missing;
        rc = weir__files_list(&files, NULL, &missing, root_dir, &b.opts, err);
        const char **paths = weir__arena_array(&a, files.len + 1, sizeof(char *));
        for (size_t i = 0; !rc && paths && i < files.len; i++)
            paths[i] = files.items[i].path;
        if (!rc && (files.len || b.opts.schema))
            rc = schema_for_files(&b.schema, &a, conn, &b.opts, paths, files.len,
                                  infer, err);
    }
    if (!rc) {
        weir_buf rel = WEIR_BUF_INIT;
        empty_relation(&rel, &b.schema, &b.opts, with_metadata);
        /* Without the end marker column. */
        weir__buf_printf(out, "(SELECT * EXCLUDE (\"__weir_end\") FROM %s)",
                         weir__buf_cstr(&rel));
        weir__buf_free(&rel);
    }
    weir__fs_list_free(&files);
    weir__arena_free(&a);
    return rc;
}

bool weir__query_uses_metadata(const weir_sql_query *q)
{
    size_t len;
    const char *t = weir__sql_query_text(q, &len);
    for (size_t i = 0; t && i + 9 <= len; i++)
        if (weir__str_ieqn(t + i, "_metadata", 9))
            return true;
    return false;
}
