/*
 * The delta sink: a Delta Lake table at `path`. stage() checks the batch's
 * schema against the table's, writes the batch's Parquet files into a
 * folder inside the table and renames them to their final names, unique
 * to (storage, flow, generation, batch) -- invisible to readers until a
 * commit refers to them -- and records them in a manifest in the flow's
 * staging folder, with the partition values and row counts. publish()
 * commits them as the next log version with a txn action {appId: flow,
 * version: generation << 32 | batch}, unless the log already holds that
 * txn (a retried publish), writing the version create-exclusive and
 * moving on to the next version when another writer took it. discard()
 * removes the files of a batch that never committed. See docs/sinks.md.
 */
#define _GNU_SOURCE
#include "sinks/delta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/internal.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/url.h"

#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"
#define MAX_COMMIT_ATTEMPTS 1000

static const char *const KEYS[] = { "path", "partitionBy", "compression",
                                    "mergeSchema", NULL };
static const char *const CODECS[] = { "snappy", "gzip", "zstd",
                                      "lz4",    "brotli", "none",
                                      "uncompressed", NULL };

static int validate(const weir_kv *options, size_t n, weir_error *err)
{
    int rc = weir__sink_check_keys(options, n, "delta", KEYS, err);
    if (!rc)
        rc = weir__sink_check_choice(options, n, "compression", CODECS, err);
    bool merge = true;
    if (!rc)
        rc = weir__sink_option_bool(options, n, "mergeSchema", &merge, err);
    if (!rc) {
        weir_arena a = WEIR_ARENA_INIT;
        const char **cols;
        size_t n_cols;
        rc = weir__sink_partition_cols(&cols, &n_cols, &a, options, n, err);
        weir__arena_free(&a);
    }
    const char *path = weir__kv_get(options, n, "path");
    if (!rc && weir__url_is_remote(path))
        rc = WEIR_ERR(err, WEIR_EINVAL, "SINK_PATH_NOT_WRITABLE",
                      "the delta sink cannot write to %s: Delta sinks on "
                      "object storage are not supported yet (issue 43); "
                      "write Parquet, JSON or CSV there, or the Delta table "
                      "to a local folder",
                      path);
    return rc;
}

/* The txn version of a batch: grows with the batch and, across full
 * refreshes, with the checkpoint generation. */
static int64_t txn_version(const weir_sink_batch *b)
{
    return b->generation * (INT64_C(1) << 32) + b->batch_id;
}

static bool merge_schema(const weir_sink_batch *b)
{
    bool merge = true;
    weir__sink_option_bool(b->options, b->n_options, "mergeSchema", &merge,
                           NULL);
    return merge;
}

/* ---- stage ---------------------------------------------------------------------- */

typedef struct plan {
    weir_arena arena;
    char *table;
    weir_delta_log log;
    weir_db_column *cols; /* the batch's columns */
    size_t n_cols;
    weir_dschema batch, schema; /* batch as Delta types; table after it */
    const char **parts;
    size_t n_parts;
} plan;

static int plan_schema(plan *p, const weir_sink_batch *b, weir_error *err)
{
    weir_dschema *bs = &p->batch;
    bs->fields = weir__arena_array(&p->arena, p->n_cols + 1, sizeof(*bs->fields));
    if (!bs->fields)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < p->n_cols; i++) {
        weir_dfield *f = &bs->fields[bs->n++];
        f->name = p->cols[i].name;
        f->nullable = true;
        f->metadata = "{}";
        int rc = weir__delta_type_from_duckdb(&f->type, &p->arena,
                                              p->cols[i].type, err);
        if (rc) {
            weir__error_prefix(err, "column %s: ", f->name);
            return rc;
        }
    }
    /* An overwrite brings its own schema. */
    static const weir_dschema none = { NULL, 0 };
    size_t added;
    int rc = weir__delta_schema_merge(&p->schema, &added, &p->arena,
                                      b->overwrite ? &none : &p->log.schema, bs,
                                      b->overwrite || merge_schema(b), err);
    if (rc)
        return rc;
    const char **opt = NULL;
    size_t n_opt = 0;
    rc = weir__sink_partition_cols(&opt, &n_opt, &p->arena, b->options,
                                   b->n_options, err);
    if (rc)
        return rc;
    if (p->log.version >= 0) {
        bool same = n_opt == p->log.n_partition_cols;
        for (size_t i = 0; same && i < n_opt; i++)
            same = weir__str_ieq(opt[i], p->log.partition_cols[i]);
        if (n_opt && !same)
            return WEIR_ERR(err, WEIR_EINVAL, "DELTA_PARTITION_COLUMNS_MISMATCH",
                            "option partitionBy = '%s' differs from the "
                            "partition columns of the Delta table %s",
                            weir__kv_get(b->options, b->n_options,
                                         "partitionBy"),
                            p->table);
        p->parts = p->log.partition_cols;
        p->n_parts = p->log.n_partition_cols;
        return 0;
    }
    for (size_t i = 0; i < n_opt; i++) {
        int k = weir__delta_schema_find(&p->schema, opt[i]);
        if (k < 0)
            return WEIR_ERR(err, WEIR_EINVAL, "DELTA_PARTITION_COLUMN_NOT_FOUND",
                            "partition column %s is not a column of the batch",
                            opt[i]);
        opt[i] = p->schema.fields[k].name;
    }
    p->parts = opt;
    p->n_parts = n_opt;
    return 0;
}

static int part_index(const plan *p, const char *name)
{
    for (size_t k = 0; k < p->n_parts; k++)
        if (weir__str_ieq(p->parts[k], name))
            return (int)k;
    return -1;
}

static int batch_index(const plan *p, const char *name)
{
    for (size_t i = 0; i < p->n_cols; i++)
        if (weir__str_ieq(p->cols[i].name, name))
            return (int)i;
    return -1;
}

/* A partition column as its Delta partition value (text). */
static int put_partition(weir_buf *q, const plan *p, const weir_dfield *f,
                         weir_error *err)
{
    int k = batch_index(p, f->name);
    const weir_dtype *t = f->type;
    const char *n = t->kind == WEIR_DT_PRIM ? t->name : "";
    bool ts = !strcmp(n, "timestamp") || !strcmp(n, "timestamp_ntz");
    bool ok = t->kind == WEIR_DT_DECIMAL || ts || !strcmp(n, "string") ||
              !strcmp(n, "byte") || !strcmp(n, "short") ||
              !strcmp(n, "integer") || !strcmp(n, "long") ||
              !strcmp(n, "boolean") || !strcmp(n, "date");
    if (!ok)
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_INVALID_PARTITION_COLUMN_TYPE",
                        "partition column %s has a type Delta cannot "
                        "partition by here (use a string, integer, decimal, "
                        "boolean, date or timestamp column)",
                        f->name);
    if (k < 0) {
        weir__buf_puts(q, "'" HIVE_NULL "'");
    } else if (ts) {
        weir__buf_puts(q, "COALESCE(strftime(CAST(");
        weir__buf_put_sql_ident(q, p->cols[k].name);
        weir__buf_puts(q, " AS TIMESTAMP), '%Y-%m-%d %H:%M:%S.%f'), '" HIVE_NULL
                          "')");
    } else {
        weir__buf_puts(q, "COALESCE(CAST(");
        weir__buf_put_sql_ident(q, p->cols[k].name);
        weir__buf_puts(q, " AS VARCHAR), '" HIVE_NULL "')");
    }
    weir__buf_puts(q, " AS ");
    weir__buf_put_sql_ident(q, f->name);
    return 0;
}

/* SELECT <table columns, cast to their Parquet types>, <partition values>
 * FROM (sql) */
static int plan_select(weir_buf *q, const plan *p, const char *sql,
                       weir_error *err)
{
    weir__buf_puts(q, "SELECT ");
    bool first = true;
    weir_buf phys = WEIR_BUF_INIT;
    for (size_t i = 0; i < p->schema.n; i++) {
        const weir_dfield *f = &p->schema.fields[i];
        if (part_index(p, f->name) >= 0)
            continue;
        if (!first)
            weir__buf_puts(q, ", ");
        first = false;
        weir__buf_clear(&phys);
        weir__delta_type_duckdb(&phys, f->type, true);
        int k = batch_index(p, f->name);
        if (k >= 0 && strcmp(p->cols[k].type, weir__buf_cstr(&phys)) == 0) {
            weir__buf_put_sql_ident(q, p->cols[k].name);
        } else {
            weir__buf_puts(q, "CAST(");
            if (k >= 0)
                weir__buf_put_sql_ident(q, p->cols[k].name);
            else
                weir__buf_puts(q, "NULL");
            weir__buf_printf(q, " AS %s)", weir__buf_cstr(&phys));
        }
        weir__buf_puts(q, " AS ");
        weir__buf_put_sql_ident(q, f->name);
    }
    weir__buf_free(&phys);
    for (size_t k = 0; k < p->n_parts; k++) {
        int i = weir__delta_schema_find(&p->schema, p->parts[k]);
        if (i < 0)
            return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                            "partition column %s is not in the table schema",
                            p->parts[k]);
        if (!first)
            weir__buf_puts(q, ", ");
        first = false;
        int rc = put_partition(q, p, &p->schema.fields[i], err);
        if (rc)
            return rc;
    }
    if (first)
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_EMPTY_SCHEMA",
                        "the batch has no columns to write");
    weir__buf_printf(q, " FROM (%s) AS \"__weir_batch\"", sql);
    return 0;
}

/* The folder inside the table (so that moves are renames) where COPY
 * writes a batch before its files move to their final names. */
static void batch_dir(char *out, size_t size, const char *table,
                      const weir_sink_batch *b)
{
    char prefix[128];
    weir__sink_prefix(prefix, sizeof(prefix), b);
    snprintf(out, size, "%s/_weir_stage-%s", table, prefix);
}

/* The manifest entry of one file: path, partition values, rows. */
static int put_file(weir_buf *m, const plan *p, const char *rel, int64_t rows,
                    weir_error *err)
{
    weir__buf_puts(m, "{\"path\":");
    weir__buf_put_json_string(m, rel);
    weir__buf_puts(m, ",\"partitionValues\":{");
    const char *c = rel;
    for (size_t k = 0; k < p->n_parts; k++) {
        const char *slash = strchr(c, '/');
        const char *eq = slash ? memchr(c, '=', (size_t)(slash - c)) : NULL;
        weir_buf v = WEIR_BUF_INIT;
        if (!eq || !weir__sink_percent_decode(&v, eq + 1,
                                              (size_t)(slash - eq - 1))) {
            weir__buf_free(&v);
            return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_PATH",
                            "cannot read partition values from %s", rel);
        }
        weir__buf_puts(m, k ? "," : "");
        weir__buf_put_json_string(m, p->parts[k]);
        weir__buf_putc(m, ':');
        if (strcmp(weir__buf_cstr(&v), HIVE_NULL) == 0)
            weir__buf_puts(m, "null");
        else
            weir__buf_put_json_string(m, weir__buf_cstr(&v));
        weir__buf_free(&v);
        c = slash + 1;
    }
    weir__buf_printf(m, "},\"rows\":%lld}", (long long)rows);
    return 0;
}

/* Rows per staged file (for the add actions' stats), from the footers. */
static int file_rows(weir_rows **out, weir_conn *conn,
                     const weir_file_list *files, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT file_name, num_rows FROM parquet_file_metadata([");
    for (size_t i = 0; i < files->len; i++) {
        weir__buf_puts(&q, i ? ", " : "");
        weir__buf_put_sql_string(&q, files->items[i].path);
    }
    weir__buf_puts(&q, "])");
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_query(conn, weir__buf_cstr(&q), out, err);
    weir__buf_free(&q);
    return rc;
}

/* Write the manifest: what publish needs without a DuckDB connection. */
static int write_manifest(const plan *p, weir_conn *conn,
                          const weir_sink_batch *b, const char *dir,
                          const weir_file_list *files, int64_t rows,
                          weir_error *err)
{
    weir_buf m = WEIR_BUF_INIT;
    weir_buf schema = WEIR_BUF_INIT;
    weir__delta_schema_render(&schema, &p->schema);
    weir__buf_printf(&m, "{\"txnVersion\":%lld,\"rows\":%lld,\"schemaString\":",
                     (long long)txn_version(b), (long long)rows);
    weir__buf_put_json_string(&m, weir__buf_cstr(&schema));
    weir__buf_puts(&m, ",\"partitionColumns\":[");
    for (size_t k = 0; k < p->n_parts; k++) {
        weir__buf_puts(&m, k ? "," : "");
        weir__buf_put_json_string(&m, p->parts[k]);
    }
    weir__buf_puts(&m, "],\"files\":[");
    weir_rows *r = NULL;
    int rc = files->len > 1 ? file_rows(&r, conn, files, err) : 0;
    for (size_t i = 0; !rc && i < files->len; i++) {
        const char *path = files->items[i].path;
        int64_t n = rows;
        for (size_t k = 0; r && k < r->n_rows; k++)
            if (strcmp(weir__rows_get(r, k, 0), path) == 0)
                n = strtoll(weir__rows_get(r, k, 1), NULL, 10);
        weir__buf_puts(&m, i ? "," : "");
        rc = put_file(&m, p, path + strlen(dir) + 1, n, err);
    }
    weir__rows_free(r);
    weir__buf_puts(&m, "]}\n");
    char man[4400];
    weir__sink_stage_path(man, sizeof(man), b, ".delta.json");
    if (!rc && (m.failed || schema.failed))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__fs_write_atomic(man, m.ptr, m.len, err);
    weir__buf_free(&schema);
    weir__buf_free(&m);
    return rc;
}

/* Move the staged files to their final names in the table folder. */
static int move_files(const char *table, const char *dir,
                      const weir_file_list *files, weir_error *err)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < files->len; i++) {
        const char *src = files->items[i].path;
        char *dst = weir__path_join(table, src + strlen(dir) + 1);
        char *dst_dir = dst ? weir__path_dirname(dst) : NULL;
        rc = dst_dir ? weir__sink_sync_file(src, err)
                     : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (!rc)
            rc = weir__sink_move(src, dst, err);
        if (!rc)
            rc = weir__sink_sync_up(dst_dir, table, err);
        free(dst);
        free(dst_dir);
    }
    if (!rc)
        rc = weir__fs_remove_tree(dir, err);
    return rc ? rc : weir__fs_sync_dir(table, err);
}

static int copy_batch(plan *p, weir_conn *conn, const weir_sink_batch *b,
                      const char *sql, int64_t *rows, weir_error *err)
{
    char prefix[128], dir[4400], file[4600];
    weir__sink_prefix(prefix, sizeof(prefix), b);
    batch_dir(dir, sizeof(dir), p->table, b);
    snprintf(file, sizeof(file), "%s/%s-0.parquet", dir, prefix);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "COPY (");
    int rc = plan_select(&q, p, sql, err);
    weir__buf_puts(&q, ") TO ");
    weir__buf_put_sql_string(&q, p->n_parts ? dir : file);
    weir__buf_puts(&q, " (FORMAT parquet");
    const char *codec = weir__sink_compression(b->options, b->n_options);
    if (codec) {
        weir__buf_puts(&q, ", COMPRESSION ");
        weir__buf_put_sql_string(&q, codec);
    }
    if (p->n_parts) {
        weir__buf_puts(&q, ", PARTITION_BY (");
        for (size_t k = 0; k < p->n_parts; k++) {
            weir__buf_puts(&q, k ? ", " : "");
            weir__buf_put_sql_ident(&q, p->parts[k]);
        }
        weir__buf_printf(&q, "), FILENAME_PATTERN '%s-{i}', FILE_EXTENSION "
                             "'parquet'",
                         prefix);
    }
    weir__buf_putc(&q, ')');
    if (!rc && q.failed)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__fs_remove_tree(dir, err);
    if (!rc)
        rc = weir__fs_mkdirs(dir, err);
    weir_rows *r = NULL;
    if (!rc)
        rc = weir__conn_query(conn, weir__buf_cstr(&q), &r, err);
    weir__buf_free(&q);
    weir_file_list files = { NULL, 0, 0 };
    if (!rc) {
        /* COPY reports its row count as the rows changed. */
        *rows = r->n_rows && r->n_cols ? strtoll(weir__rows_get(r, 0, 0), NULL, 10)
                                       : r->rows_changed;
        rc = weir__fs_list(&files, dir, true, false, err);
    }
    weir__rows_free(r);
    if (!rc)
        rc = write_manifest(p, conn, b, dir, &files, *rows, err);
    if (!rc)
        rc = move_files(p->table, dir, &files, err);
    weir__fs_list_free(&files);
    return rc;
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err)
{
    (void)pending; /* nothing kept between stage and publish */
    plan p;
    memset(&p, 0, sizeof(p));
    weir__arena_init(&p.arena);
    int rc = weir__sink_target(&p.table, b, err);
    bool have_log = false;
    if (!rc) {
        rc = weir__delta_log_read(&p.log, p.table, err);
        have_log = true;
    }
    if (!rc)
        rc = weir__delta_log_check(&p.log, true, err);
    /* A batch is staged only after the previous one committed, so a txn of
     * the flow at or past this batch was written by someone else: another
     * pipeline with the same flow name, or this pipeline before its
     * storage was deleted. Appending would be invisible to the txn check
     * of a later publish, so refuse before anything commits. */
    int64_t seen = rc ? -1 : weir__delta_log_txn(&p.log, b->flow);
    if (!rc && seen >= txn_version(b))
        rc = WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_TXN_CONFLICT",
                      "the Delta table %s already has commits of flow %s up "
                      "to txn version %lld, and this pipeline's next batch "
                      "is version %lld: another pipeline, or this one "
                      "before its storage was deleted, wrote the table with "
                      "the same flow name. Write to another path or rename "
                      "the flow; a full refresh of the sink helps once its "
                      "generation's txn versions (generation * 2^32 + "
                      "batch) pass the table's.",
                      p.table, b->flow, (long long)seen,
                      (long long)txn_version(b));
    if (!rc)
        rc = weir__conn_describe(conn, sql, &p.cols, &p.n_cols, &p.arena, err);
    if (!rc)
        rc = plan_schema(&p, b, err);
    if (!rc)
        rc = copy_batch(&p, conn, b, sql, rows, err);
    if (rc && err)
        weir__error_prefix(err, "Delta sink %s: ", b->sink);
    if (have_log)
        weir__delta_log_free(&p.log);
    free(p.table);
    weir__arena_free(&p.arena);
    return rc;
}

/* ---- publish ---------------------------------------------------------------- */

typedef struct manifest {
    weir_json *root;
    weir_dschema schema;
    const char **parts;
    size_t n_parts;
    const weir_json *files; /* array of {path, partitionValues, rows} */
    int64_t rows;
} manifest;

/* *found is false when there is no manifest (published or never staged). */
static int read_manifest(manifest *m, bool *found, weir_arena *a,
                         const weir_sink_batch *b, weir_error *err)
{
    char path[4400];
    weir__sink_stage_path(path, sizeof(path), b, ".delta.json");
    memset(m, 0, sizeof(*m));
    *found = weir__fs_is_file(path);
    if (!*found)
        return 0;
    char *text = NULL;
    size_t len = 0;
    int rc = weir__fs_read(&text, &len, path, err);
    char *kept = rc ? NULL : weir__arena_strndup(a, text, len);
    free(text);
    if (!rc && !kept)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__json_parse(&m->root, a, kept, len, err);
    const char *schema = rc ? NULL : weir__json_get_str(m->root, "schemaString");
    const weir_json *parts = rc ? NULL : weir__json_get(m->root, "partitionColumns");
    m->files = rc ? NULL : weir__json_get(m->root, "files");
    const weir_json *rows = rc ? NULL : weir__json_get(m->root, "rows");
    m->rows = rows && rows->type == WEIR_JSON_NUMBER
                  ? strtoll(rows->text, NULL, 10)
                  : 0;
    if (!rc && (!schema || !parts || parts->type != WEIR_JSON_ARRAY ||
                !m->files || m->files->type != WEIR_JSON_ARRAY))
        rc = WEIR_ERR(err, WEIR_ECORRUPT, "SINK_STAGED_DATA_LOST",
                      "the manifest %s is damaged", path);
    if (!rc)
        rc = weir__delta_schema_parse(&m->schema, a, schema, err);
    if (!rc) {
        m->parts = weir__arena_array(a, parts->len + 1, sizeof(char *));
        for (size_t i = 0; m->parts && i < parts->len; i++)
            m->parts[m->n_parts++] = parts->items[i]->text;
        if (!m->parts)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return rc;
}

void weir__delta_put_metadata(weir_buf *c, const weir_delta_log *l,
                              const weir_dschema *schema,
                              const char *const *parts, size_t n_parts,
                              int64_t now_ms)
{
    const weir_json *old = l->metadata;
    char id[37];
    weir__uuid(id);
    weir_buf s = WEIR_BUF_INIT;
    weir__delta_schema_render(&s, schema);
    weir__buf_puts(c, "{\"metaData\":{\"id\":");
    weir__buf_put_json_string(c, old ? weir__json_get_str(old, "id") : id);
    static const char *const keep[] = { "name", "description", NULL };
    for (size_t k = 0; old && keep[k]; k++) {
        const weir_json *v = weir__json_get(old, keep[k]);
        if (v) {
            weir__buf_printf(c, ",\"%s\":", keep[k]);
            weir__sink_json_write(c, v);
        }
    }
    weir__buf_puts(c, ",\"format\":");
    const weir_json *fmt = old ? weir__json_get(old, "format") : NULL;
    if (fmt)
        weir__sink_json_write(c, fmt);
    else
        weir__buf_puts(c, "{\"provider\":\"parquet\",\"options\":{}}");
    weir__buf_puts(c, ",\"schemaString\":");
    weir__buf_put_json_string(c, weir__buf_cstr(&s));
    weir__buf_puts(c, ",\"partitionColumns\":[");
    for (size_t k = 0; k < n_parts; k++) {
        weir__buf_puts(c, k ? "," : "");
        weir__buf_put_json_string(c, parts[k]);
    }
    weir__buf_puts(c, "],\"configuration\":");
    const weir_json *conf = old ? weir__json_get(old, "configuration") : NULL;
    if (conf)
        weir__sink_json_write(c, conf);
    else
        weir__buf_puts(c, "{}");
    const weir_json *created = old ? weir__json_get(old, "createdTime") : NULL;
    weir__buf_puts(c, ",\"createdTime\":");
    if (created)
        weir__sink_json_write(c, created);
    else
        weir__buf_printf(c, "%lld", (long long)now_ms);
    weir__buf_puts(c, "}}\n");
    weir__buf_free(&s);
}

static int put_adds(weir_buf *c, const char *table, const manifest *m,
                    int64_t *bytes, weir_error *err)
{
    for (size_t i = 0; i < m->files->len; i++) {
        const weir_json *f = m->files->items[i];
        const char *rel = weir__json_get_str(f, "path");
        const weir_json *rows = weir__json_get(f, "rows");
        char *abs = rel ? weir__path_join(table, rel) : NULL;
        weir_file_info st = { NULL, 0, 0 };
        int rc = abs ? weir__fs_stat(&st, abs, err)
                     : WEIR_ERR(err, WEIR_ECORRUPT, "SINK_STAGED_DATA_LOST",
                                "a staged Delta file has no path");
        free(abs);
        if (rc) {
            if (rc == WEIR_ENOTFOUND)
                rc = WEIR_ERR(err, WEIR_ECORRUPT, "SINK_STAGED_DATA_LOST",
                              "staged data file %s/%s is missing", table, rel);
            return rc;
        }
        free(st.path);
        *bytes += (int64_t)st.size;
        weir__buf_puts(c, "{\"add\":{\"path\":\"");
        weir__sink_put_uri_path(c, rel);
        weir__buf_puts(c, "\",\"partitionValues\":");
        weir__sink_json_write(c, weir__json_get(f, "partitionValues"));
        weir__buf_printf(c, ",\"size\":%llu,\"modificationTime\":%lld,"
                            "\"dataChange\":true,\"stats\":",
                         (unsigned long long)st.size,
                         (long long)(st.mtime_us / 1000));
        weir_buf stats = WEIR_BUF_INIT;
        weir__buf_puts(&stats, "{\"numRecords\":");
        if (rows && rows->type == WEIR_JSON_NUMBER)
            weir__buf_put(&stats, rows->text, rows->text_len);
        else
            weir__buf_puts(&stats, "0");
        weir__buf_putc(&stats, '}');
        weir__buf_put_json_string(c, weir__buf_cstr(&stats));
        weir__buf_free(&stats);
        weir__buf_puts(c, "}}\n");
    }
    return 0;
}

/* The actions of the batch's commit on top of log l. */
static int build_commit(weir_buf *c, const weir_sink_batch *b,
                        const weir_delta_log *l, const manifest *m,
                        const char *table, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_dschema merged = m->schema;
    size_t added = 0;
    int rc = 0;
    if (l->version >= 0) {
        bool same = m->n_parts == l->n_partition_cols;
        for (size_t k = 0; same && k < m->n_parts; k++)
            same = weir__str_ieq(m->parts[k], l->partition_cols[k]);
        if (!same)
            rc = WEIR_ERR(err, WEIR_EINVAL, "DELTA_PARTITION_COLUMNS_MISMATCH",
                          "the Delta table %s changed its partition columns "
                          "since the batch was written",
                          table);
        if (!rc && !b->overwrite)
            rc = weir__delta_schema_merge(&merged, &added, &a, &l->schema,
                                          &m->schema, merge_schema(b), err);
    }
    int64_t now_ms = weir__now_us() / 1000;
    int64_t v = txn_version(b);
    int64_t bytes = 0;
    weir_buf adds = WEIR_BUF_INIT;
    if (!rc)
        rc = put_adds(&adds, table, m, &bytes, err);
    if (!rc) {
        char id[37];
        weir__uuid(id);
        weir__buf_printf(c, "{\"commitInfo\":{\"timestamp\":%lld,",
                         (long long)now_ms);
        if (b->overwrite) {
            weir__buf_puts(c, "\"operation\":\"WRITE\",\"operationParameters\""
                              ":{\"mode\":\"Overwrite\"}");
        } else {
            weir__buf_puts(c, "\"operation\":\"STREAMING UPDATE\","
                              "\"operationParameters\":{\"outputMode\":"
                              "\"Append\",\"queryId\":");
            weir__buf_put_json_string(c, b->flow);
            weir__buf_printf(c, ",\"epochId\":\"%lld\"}",
                             (long long)b->batch_id);
        }
        if (l->version >= 0)
            weir__buf_printf(c, ",\"readVersion\":%lld", (long long)l->version);
        weir__buf_printf(c, ",\"isolationLevel\":\"Serializable\","
                            "\"isBlindAppend\":%s,\"operationMetrics\":{"
                            "\"numAddedFiles\":\"%zu\",\"numOutputRows\":"
                            "\"%lld\",\"numOutputBytes\":\"%lld\"},"
                            "\"engineInfo\":\"weir/" WEIR_VERSION
                            "\",\"txnId\":\"%s\",\"userMetadata\":",
                         added || l->version < 0 || b->overwrite ? "false"
                                                                 : "true",
                         m->files->len, (long long)m->rows, (long long)bytes,
                         id);
        weir__buf_put_json_string(c, b->update_id);
        weir__buf_puts(c, "}}\n");
        if (l->version < 0)
            weir__buf_puts(c, "{\"protocol\":{\"minReaderVersion\":1,"
                              "\"minWriterVersion\":2}}\n");
        if (l->version < 0 || added || b->overwrite)
            weir__delta_put_metadata(c, l, &merged, m->parts, m->n_parts, now_ms);
        weir__buf_puts(c, "{\"txn\":{\"appId\":");
        weir__buf_put_json_string(c, b->flow);
        weir__buf_printf(c, ",\"version\":%lld,\"lastUpdated\":%lld}}\n",
                         (long long)v, (long long)now_ms);
        if (b->overwrite && l->version >= 0)
            rc = weir__delta_put_removes(c, l, now_ms, &a, err);
        weir__buf_put(c, adds.ptr, adds.len);
    }
    if (!rc && (c->failed || adds.failed))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__buf_free(&adds);
    weir__arena_free(&a);
    return rc;
}

static int cleanup(const weir_sink_batch *b, weir_error *err)
{
    char path[4400];
    weir__sink_stage_path(path, sizeof(path), b, ".delta.json");
    int rc = weir__sink_unlink(path, err);
    return rc ? rc : weir__fs_sync_dir(b->stage_dir, err);
}

/* The log holds a txn for this flow at or past the batch: published
 * before, unless the batch's files are not in the log (then another
 * pipeline with the same flow name wrote the table). */
static int already_published(const weir_delta_log *l, const manifest *m,
                             const weir_sink_batch *b, weir_error *err)
{
    const char *first = m->files && m->files->len
                            ? weir__json_get_str(m->files->items[0], "path")
                            : NULL;
    if (!first || weir__delta_log_added(l, first))
        return 0;
    return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_TXN_CONFLICT",
                    "the Delta table %s already has a commit for flow %s at "
                    "txn version %lld or later, but not this batch's files: "
                    "another pipeline (or a deleted storage) wrote it with the "
                    "same flow name. Full refresh the sink to start a new "
                    "txn generation, or write to another path.",
                    l->table, b->flow, (long long)txn_version(b));
}

static int publish(const weir_sink_batch *b, weir_sink_pending *pending,
                   weir_error *err)
{
    (void)pending; /* stage() keeps none */
    weir_arena a = WEIR_ARENA_INIT;
    char *table = NULL;
    manifest m;
    bool found = false;
    int rc = weir__sink_target(&table, b, err);
    if (!rc)
        rc = read_manifest(&m, &found, &a, b, err);
    bool done = false;
    for (int attempt = 0; !rc && !done && attempt < MAX_COMMIT_ATTEMPTS;
         attempt++) {
        weir_delta_log l;
        rc = weir__delta_log_read(&l, table, err);
        if (!rc)
            rc = weir__delta_log_check(&l, true, err);
        if (!rc && weir__delta_log_txn(&l, b->flow) >= txn_version(b)) {
            rc = found ? already_published(&l, &m, b, err) : 0;
            done = true;
        } else if (!rc && !found) {
            rc = WEIR_ERR(err, WEIR_ECORRUPT, "SINK_STAGED_DATA_LOST",
                          "batch %lld of flow %s (generation %lld) committed "
                          "but its staged Delta files are gone",
                          (long long)b->batch_id, b->flow,
                          (long long)b->generation);
        } else if (!rc) {
            weir_buf c = WEIR_BUF_INIT;
            rc = build_commit(&c, b, &l, &m, table, err);
            if (!rc)
                rc = weir__delta_log_commit(table, l.version + 1, c.ptr, c.len,
                                            err);
            if (rc == WEIR_EEXISTS) {
                /* Another writer took the version: try the next, with
                 * the clash forgotten (a later success is a success). */
                weir__error_clear(err);
                rc = 0;
            } else if (!rc)
                done = true;
            weir__buf_free(&c);
        }
        weir__delta_log_free(&l);
    }
    if (!rc && !done)
        rc = WEIR_ERR(err, WEIR_EBUSY, "DELTA_CONCURRENT_WRITE",
                      "gave up committing to %s after %d conflicting commits",
                      table, MAX_COMMIT_ATTEMPTS);
    if (!rc)
        rc = cleanup(b, err);
    if (rc && err)
        weir__error_prefix(err, "Delta sink %s: ", b->sink);
    free(table);
    weir__arena_free(&a);
    return rc;
}

/* ---- discard ---------------------------------------------------------------- */

static int discard(const weir_sink_batch *b, weir_error *err)
{
    char man[4400], dir[4400];
    weir__sink_stage_path(man, sizeof(man), b, ".delta.json");
    char *table = NULL;
    int rc = weir__sink_target(&table, b, err);
    if (rc)
        return rc;
    batch_dir(dir, sizeof(dir), table, b);
    bool have_man = weir__fs_is_file(man);
    if (!have_man && !weir__fs_exists(dir)) {
        free(table);
        return 0;
    }
    rc = weir__fs_remove_tree(dir, err);
    if (!rc && have_man) {
        /* The batch's files that no commit refers to. */
        weir_arena a = WEIR_ARENA_INIT;
        manifest m;
        bool found;
        weir_delta_log l;
        memset(&l, 0, sizeof(l));
        rc = read_manifest(&m, &found, &a, b, err);
        if (!rc)
            rc = weir__delta_log_read(&l, table, err);
        for (size_t i = 0; !rc && found && i < m.files->len; i++) {
            const char *rel = weir__json_get_str(m.files->items[i], "path");
            char *abs = rel ? weir__path_join(table, rel) : NULL;
            if (abs && !weir__delta_log_added(&l, rel))
                rc = weir__sink_unlink(abs, err);
            free(abs);
        }
        weir__delta_log_free(&l);
        weir__arena_free(&a);
    }
    if (!rc)
        rc = cleanup(b, err);
    free(table);
    return rc;
}

/* No column checks at validation: a batch may leave out columns of an
 * existing table, partition columns included; stage() checks. */
const weir_sink_format weir__sink_delta = {
    .name = "delta",
    .validate = validate,
    .stage = stage,
    .publish = publish,
    .discard = discard,
};
