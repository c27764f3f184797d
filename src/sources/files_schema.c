/*
 * The schema of a file source's batch (see files.h): inferred from a
 * sample of the files (DuckDB's readers, JSON keys reconciled, schemaHints
 * applied), or given; stored per flow, source and generation in
 * _weir.file_schemas and evolved as schemaEvolutionMode says; and the
 * schema a source has for resolution.
 */
#include "sources/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/file_schemas.h"
#include "util/str.h"

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
    weir__files_put_list(&q, files, n);
    /* json_keys() of anything but an object is empty: no json_type()
     * filter, which parsed every record a second time. */
    weir__buf_printf(&q, ", format = '%s', ignore_errors = true, "
                         "maximum_object_size = %llu))",
                     o->multiline ? "auto" : "newline_delimited",
                     (unsigned long long)weir__files_max_record(conn));
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

/* Columns the files have, per DuckDB's sniffing of every file. (Auto
 * Loader samples at most 1000 files and finds the columns of the others
 * as it reads them; weir's fast readers take the columns they are given,
 * so a key only a later file holds would be dropped: every file of the
 * batch is described, which costs the batch's read at most once more.) */
static int infer(weir_file_schema *out, weir_arena *a, weir_conn *conn,
                 const weir_file_opts *o, const char *const *files, size_t n,
                 weir_infer_cache *cache, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT * FROM ");
    if (weir__str_ieq(o->format, "json")) {
        weir__buf_puts(&q, "read_json(");
        weir__files_put_list(&q, files, n);
        weir__buf_printf(&q, ", format = '%s', union_by_name = true, "
                             "ignore_errors = true, maximum_object_size = "
                             "%llu, maximum_depth = %d)",
                         o->multiline ? "auto" : "newline_delimited",
                         (unsigned long long)weir__files_max_record(conn),
                         o->infer_types ? -1 : 1);
    } else if (weir__str_ieq(o->format, "csv")) {
        weir__buf_puts(&q, "read_csv(");
        weir__files_put_list(&q, files, n);
        weir__files_csv_options(&q, o, weir__files_max_record(conn), files, n);
        /* null_padding: the header line, not the widest row, says how
         * many columns a file has (extra fields come out as columnN). */
        weir__buf_printf(&q, ", union_by_name = true, all_varchar = %s%s)",
                         o->infer_types ? "false" : "true",
                         o->header ? ", null_padding = true" : "");
    } else if (weir__str_ieq(o->format, "parquet")) {
        weir__buf_puts(&q, "read_parquet(");
        weir__files_put_list(&q, files, n);
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
        weir__files_explain_error_in(err, files, n);
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
            weir__files_explain_error_in(err, files, n);
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

/* The latest stored schema of a source: 0 and *found, or 0 without. */
static int stored_schema(weir_file_schema *out, int64_t *version, bool *found,
                         weir_arena *a, weir_conn *conn,
                         const char *state_catalog, const char *flow,
                         int64_t generation, const char *source,
                         weir_error *err)
{
    weir_checkpoint cp = { conn, state_catalog, flow, NULL, NULL, err };
    return weir__file_schema_read(&cp, generation, source, a, &out->cols,
                                  &out->n, version, found);
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

/* ---- resolution ------------------------------------------------------------- */

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

void weir__files_empty_relation(weir_buf *out, const weir_file_batch *b,
                                bool with_metadata)
{
    weir_buf rel = WEIR_BUF_INIT;
    empty_relation(&rel, &b->schema, &b->opts, with_metadata);
    /* Without the end marker column. */
    weir__buf_printf(out, "(SELECT * EXCLUDE (\"__weir_end\") FROM %s)",
                     weir__buf_cstr(&rel));
    weir__buf_free(&rel);
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
    if (!rc && !found && b.opts.schema) {
        rc = schema_for_files(&b.schema, &a, conn, &b.opts, NULL, 0, infer, err);
    } else if (!rc && !found) {
        /* Only inference needs the files (their names). */
        bool missing;
        rc = weir__files_list(&files, NULL, &missing, conn, root_dir, &b.opts,
                              false, err);
        const char **paths = weir__arena_array(&a, files.len + 1, sizeof(char *));
        for (size_t i = 0; !rc && paths && i < files.len; i++)
            paths[i] = files.items[i].path;
        if (!rc && files.len)
            rc = schema_for_files(&b.schema, &a, conn, &b.opts, paths, files.len,
                                  infer, err);
    }
    if (!rc)
        weir__files_empty_relation(out, &b, with_metadata);
    weir__fs_list_free(&files);
    weir__arena_free(&a);
    return rc;
}
