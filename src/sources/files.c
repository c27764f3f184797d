/*
 * Streaming file sources like Databricks Auto Loader (see files.h and
 * docs/files.md): the options of read_files / cloud_files and the
 * listing of a source's files. Their schemas (inferred with hints, stored,
 * evolved) are files_schema.c; the DuckDB readers that read them (with
 * rescued data and _metadata) files_render.c.
 */
#define _GNU_SOURCE
#include "sources/files.h"

#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/objects.h"
#include "util/spark_sink_log.h"
#include "util/str.h"
#include "util/url.h"
#include "util/vec.h"

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
    } else if (weir__str_ieq(key, "nanValue") ||
               weir__str_ieq(key, "positiveInf") ||
               weir__str_ieq(key, "negativeInf")) {
        /* Spark's defaults, NaN, Inf and -Inf, are read by DuckDB */
        if (!weir__sql_csv_float_mark_native(key, v))
            return bad_option(err, call, a,
                              "a float marker DuckDB does not read is not "
                              "supported by weir in streaming reads:", key);
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
    weir_error e = { 0 };
    int rc = weir__fs_stat(&fi, path, &e);
    if (rc == WEIR_ENOTFOUND)
        return 0; /* deleted while listing: not an error */
    if (rc) {
        weir__error_copy(err, &e);
        return rc;
    }
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

/* Whether an object below a listed prefix is hidden: a name (of the
 * object or of a "folder" between) starting with '.' or '_'. */
static bool hidden_below(const char *rest)
{
    for (const char *p = rest; *p; p++)
        if ((p == rest || p[-1] == '/') && (*p == '.' || *p == '_'))
            return true;
    return false;
}

/* The objects of a URL (see weir__files_list). */
static int list_remote(weir_file_list *all, weir_conn *conn, const char *url,
                       bool recursive, bool *missing, weir_error *err)
{
    bool pattern = strpbrk(url, "*?[") != NULL;
    weir_buf p = WEIR_BUF_INIT;
    weir__buf_puts(&p, url);
    if (!pattern)
        weir__buf_puts(&p, recursive ? "/**" : "/*");
    int rc = weir__buf_failed(&p)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__objects_names(conn, weir__buf_cstr(&p), all, err);
    weir__buf_free(&p);
    if (!rc && !all->len && !pattern)
        rc = weir__objects_names(conn, url, all, err); /* one object */
    /* What hides an object: its name, and folder names below the prefix
     * (a pattern's: below its last '/' before the first wildcard). */
    size_t base = strlen(url);
    if (pattern) {
        base = (size_t)(strpbrk(url, "*?[") - url);
        while (base && url[base - 1] != '/')
            base--;
    }
    size_t k = 0;
    for (size_t i = 0; !rc && i < all->len; i++) {
        const char *path = all->items[i].path;
        const char *rest = strlen(path) > base ? path + base : "";
        while (*rest == '/')
            rest++;
        if (all->items[i].path && hidden_below(rest) &&
            strcmp(path, url) != 0) {
            free(all->items[i].path);
            continue;
        }
        all->items[k++] = all->items[i];
    }
    if (!rc)
        all->len = k;
    *missing = !rc && !all->len;
    return rc;
}

static int by_path(const void *key, const void *item)
{
    return strcmp(key, ((const weir_file_info *)item)->path);
}

int weir__files_stat(weir_conn *conn, weir_file_list *l, const bool *want,
                     weir_error *err)
{
    const char **urls = calloc(l->len + 1, sizeof(char *));
    if (!urls)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < l->len; i++)
        if ((!want || want[i]) && weir__url_is_remote(l->items[i].path))
            urls[n++] = l->items[i].path;
    weir_file_list now = { NULL, 0, 0 };
    int rc = weir__objects_stat(conn, urls, n, &now, err);
    for (size_t i = 0; !rc && i < n; i++) {
        weir_file_info *it = bsearch(urls[i], l->items, l->len,
                                     sizeof(*l->items), by_path);
        const weir_file_info *hit = it ? bsearch(urls[i], now.items, now.len,
                                                 sizeof(*now.items), by_path)
                                       : NULL;
        if (hit) {
            it->size = hit->size;
            it->mtime_us = hit->mtime_us;
        }
    }
    weir__fs_list_free(&now);
    free(urls);
    return rc;
}

int weir__files_list(weir_file_list *out, weir_file_list *unreadable,
                     bool *missing, weir_conn *conn, const char *root_dir,
                     const weir_file_opts *o, bool stat, weir_error *err)
{
    *missing = false;
    char *abs = weir__path_absolute(o->path, root_dir);
    if (!abs)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = 0;
    weir_file_list all = { NULL, 0, 0 };
    /* A path that exists is taken literally, glob characters or not. */
    if (weir__url_is_remote(abs)) {
        rc = conn ? list_remote(&all, conn, abs, o->recursive, missing, err)
                  : WEIR_ERR(err, WEIR_ERROR, NULL,
                             "internal error: no connection to list %s", abs);
    } else if (weir__fs_is_dir(abs) && weir__spark_sink_has_log(abs)) {
        rc = weir__spark_sink_files(&all, abs, err); /* as Spark lists it */
    } else if (weir__fs_is_dir(abs)) {
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
    int rc2 = stat ? weir__files_stat(conn, &all, NULL, err) : 0;
    if (rc2) {
        weir__fs_list_free(&all);
        return rc2;
    }
    *out = all;
    return 0;
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
