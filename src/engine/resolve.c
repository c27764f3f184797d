/*
 * Resolver callbacks for the SQL translator (see resolve.h).
 */
#include "resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/files.h"
#include "sources/jdbc.h"
#include "sinks/sink.h"
#include "state/state.h"
#include "store/watch.h"
#include "util/fs.h"
#include "util/str.h"

/* One level of translation: the flow whose query is being rendered. */
typedef struct level {
    const weir_resolve_ctx *ctx;
    const weir_gflow *flow;
    int depth;
} level;

static int translate_flow_at(weir_buf *out, const weir_resolve_ctx *ctx,
                             const weir_gflow *f, int depth, weir_error *err);

void weir__resolve_table_name(weir_buf *out, const weir_resolve_ctx *ctx,
                              const weir_gdataset *d)
{
    if (ctx->mode == WEIR_RESOLVE_ANALYZE) {
        /* An empty relation with the dataset's resolved schema. */
        weir__buf_puts(out, "(SELECT ");
        for (size_t i = 0; i < d->schema.n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            weir__buf_puts(out, "CAST(NULL AS ");
            weir__buf_puts(out, d->schema.cols[i].duck_type);
            weir__buf_puts(out, ") AS ");
            weir__buf_put_sql_ident(out, d->schema.cols[i].name);
        }
        if (!d->schema.n)
            weir__buf_puts(out, "NULL AS \"__weir_empty\"");
        weir__buf_puts(out, " WHERE false)");
    } else {
        weir__storage_table_ref(out, d->catalog, d->database, d->name);
    }
}

static const weir_input *find_input(const weir_gflow *f, const void *node,
                                    bool files)
{
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (files ? (in->tvf && in->tvf->node == node)
                  : (in->ref && in->ref->node == node))
            return in;
    }
    return NULL;
}

/* The batch of a streaming input, rendered by its source kind. */
static int render_batch(weir_buf *out, const level *lv, const weir_input *in,
                        weir_error *err)
{
    const weir_resolve_ctx *ctx = lv->ctx;
    const weir_source_kind *kind = weir__source_kind_of(in);
    weir_arena a = WEIR_ARENA_INIT;
    const char *key = kind->key(&a, ctx->g, in, ctx->root_dir);
    const weir_source_batch *b = NULL;
    for (size_t i = 0; key && !b && i < ctx->n_batches; i++)
        if (strcmp(ctx->batches[i].key, key) == 0)
            b = &ctx->batches[i];
    int rc = b ? 0
               : WEIR_ERR(err, WEIR_ERROR, NULL,
                          "internal error: no batch for %s source %s",
                          kind->name, key ? key : "");
    weir__arena_free(&a);
    if (rc)
        return rc;
    weir_source_read r = { ctx->g, lv->flow, in, ctx->root_dir,
                           ctx->careful_files, false, ctx->input_tables };
    if (in->tvf)
        r.with_metadata = weir__query_uses_metadata(lv->flow->query);
    return b->kind->render(out, &r, b, err);
}

/* Whether catalog.db.name is a table or view of the storage; *view
 * tells a view. */
static int table_exists(const weir_resolve_ctx *ctx, const char *catalog,
                        const char *db, const char *name, bool *out,
                        bool *view, weir_error *err)
{
    *out = *view = false;
    char alias[300 + sizeof(WEIR_INPUT_ALIAS_SUFFIX)];
    if (ctx->input_tables && ctx->st) {
        /* Sample runs: the real storage's, when it has the catalog. */
        if (!weir__storage_has_input(ctx->st, catalog))
            return 0;
        weir__storage_input_alias(alias, sizeof(alias), catalog);
    } else if (!ctx->st || !weir__storage_has_catalog(ctx->st, catalog)) {
        return 0;
    } else {
        weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    }
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT coalesce(max(CASE WHEN v THEN 2 ELSE 1 END), 0) FROM "
                       "(SELECT database_name d, schema_name s, table_name t, "
                       "false v FROM duckdb_tables() UNION ALL SELECT "
                       "database_name, schema_name, view_name, true FROM "
                       "duckdb_views()) WHERE lower(d) = lower(");
    weir__buf_put_sql_string(&q, alias);
    weir__buf_puts(&q, ") AND lower(s) = lower(");
    weir__buf_put_sql_string(&q, db);
    weir__buf_puts(&q, ") AND lower(t) = lower(");
    weir__buf_put_sql_string(&q, name);
    weir__buf_puts(&q, ")");
    int64_t n = 0;
    int rc = weir__conn_scalar_i64(ctx->st->conn, weir__buf_cstr(&q), &n, NULL,
                                   err);
    weir__buf_free(&q);
    *out = n > 0;
    *view = n == 2;
    return rc;
}

/* A direct file query such as parquet.`/data/x`. */
static int path_read(weir_buf *out, const level *lv, const weir_sql_relref *ref,
                     weir_error *err)
{
    const char *fmt = ref->name.parts[0];
    const char *path = ref->name.parts[1];
    int rc;
    if (weir__str_ieq(fmt, "delta")) {
        char *abs = weir__path_absolute(path, lv->ctx->root_dir);
        rc = weir__delta_render_scan(out, abs ? abs : path, err);
        free(abs);
    } else {
        weir_buf rel = WEIR_BUF_INIT;
        rc = weir__sql_render_path_read(&rel, fmt, path, ref->name.pos,
                                        lv->ctx->root_dir, err);
        if (!rc && weir__str_ieq(fmt, "json") && lv->ctx->probe)
            rc = weir__conn_sort_columns(lv->ctx->probe, &rel, err);
        weir__buf_puts(out, weir__buf_cstr(&rel));
        weir__buf_free(&rel);
    }
    if (rc)
        weir__sql_error_at(err, lv->flow->origin.src, ref->name.pos);
    return rc;
}

/* `weir run --sample N`: an external input (external table, path read,
 * file, Kafka or table source) read in execution becomes its first N rows.
 * Every kind is wrapped here, after it rendered, so no kind knows about
 * sampling; pipeline datasets and range() are never limited. */
static bool sampled(const weir_resolve_ctx *ctx)
{
    return ctx->mode == WEIR_RESOLVE_EXECUTE && ctx->sample_rows > 0;
}

static void sample_open(weir_buf *out, const weir_resolve_ctx *ctx, bool on)
{
    if (on && sampled(ctx))
        weir__buf_puts(out, "(SELECT * FROM ");
}

static void sample_close(weir_buf *out, const weir_resolve_ctx *ctx, bool on)
{
    if (on && sampled(ctx))
        weir__buf_printf(out, " LIMIT %lld)", (long long)ctx->sample_rows);
}

/* An external relation, rendered by the kind or the default, sampled. */
static int external_relation(weir_buf *out, const level *lv,
                             const weir_sql_relref *ref, const weir_input *in,
                             const char *cat, const char *db,
                             const char *name, weir_error *err)
{
    const weir_resolve_ctx *ctx = lv->ctx;
    int rc = 0;
    bool batch = (ref->streaming || ctx->batch_tables) &&
                 ctx->mode == WEIR_RESOLVE_EXECUTE;
    sample_open(out, ctx, true);
    if (!name && !(batch && in->source == WEIR_INPUT_DELTA))
        rc = path_read(out, lv, ref, err); /* STREAM delta.`p`: its log */
    else if (batch)
        rc = render_batch(out, lv, in, err);
    else if (ctx->input_tables)
        weir__storage_input_table_ref(out, cat, db, name);
    else
        weir__storage_table_ref(out, cat, db, name);
    sample_close(out, ctx, true);
    return rc;
}

static int on_relation(void *payload, const weir_sql_relref *ref,
                       weir_buf *out, weir_error *err)
{
    const level *lv = payload;
    const weir_resolve_ctx *ctx = lv->ctx;
    const weir_graph *g = ctx->g;
    if (weir__watch_stopped(ctx->cancel))
        return WEIR_ERR(err, WEIR_ECANCELED, NULL,
                        "the update was cancelled while it planned");
    const weir_input *in = find_input(lv->flow, ref->node, false);
    if (!in)
        return WEIR_ERR(err, WEIR_ERROR, NULL,
                        "internal error: unknown table reference");
    if (in->source == WEIR_INPUT_JDBC) { /* a database catalog's table */
        const weir_sql_name *n = &ref->name;
        weir_conn *c = ctx->probe ? ctx->probe : ctx->st ? ctx->st->conn : NULL;
        sample_open(out, ctx, true);
        int rc = weir__jdbc_render_catalog(out, c, g->conf, g->n_conf, n->parts[0],
                                           n->parts[1], n->parts[2], ctx->root_dir,
                                           err);
        sample_close(out, ctx, true);
        if (rc && !err->path[0])
            weir__sql_error_at(err, lv->flow->origin.src, n->pos);
        return rc;
    }
    if (in->dataset >= 0) {
        const weir_gdataset *d = &g->datasets[in->dataset];
        if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW) {
            if (!d->n_flows || !d->resolved)
                return WEIR_ERR(err, WEIR_EGRAPH, WEIR_UPSTREAM_FAILURE,
                                "view %s could not be resolved", d->display);
            weir__buf_putc(out, '(');
            int rc = translate_flow_at(out, ctx, &g->flows[d->flows[0]],
                                       lv->depth + 1, err);
            weir__buf_putc(out, ')');
            return rc;
        }
        if (ctx->mode == WEIR_RESOLVE_ANALYZE && !d->resolved)
            return WEIR_ERR(err, WEIR_EGRAPH, WEIR_UPSTREAM_FAILURE,
                            "dataset %s could not be resolved", d->display);
        if ((ref->streaming || ctx->batch_tables) &&
            ctx->mode == WEIR_RESOLVE_EXECUTE)
            return render_batch(out, lv, in, err);
        weir__resolve_table_name(out, ctx, d);
        return 0;
    }
    /* External. */
    if (ref->name.n == 2 && strchr(in->external, '`'))
        return external_relation(out, lv, ref, in, NULL, NULL, NULL, err);
    const weir_sql_name *n = &ref->name;
    const char *cat = n->n >= 3 ? n->parts[n->n - 3] : lv->flow->ctx_catalog;
    const char *db = n->n >= 2 ? n->parts[n->n - 2] : lv->flow->ctx_database;
    const char *name = n->parts[n->n - 1];
    if (ctx->mode == WEIR_RESOLVE_ANALYZE) {
        bool ok, view;
        int rc = table_exists(ctx, cat, db ? db : "", name, &ok, &view, err);
        if (rc)
            return rc;
        if (ok && view && ref->streaming) {
            /* A streaming read needs an append-only table to take offsets
             * in; Spark refuses permanent views too. */
            WEIR_ERR(err, WEIR_EGRAPH, "INCOMPATIBLE_BATCH_VIEW_READ",
                     "View %s is a permanent view outside the pipeline, which "
                     "cannot be read as a stream (Spark: not supported by "
                     "streaming reading APIs such as DataStreamReader.table); "
                     "read it without STREAM, or stream from the table it "
                     "reads.",
                     in->external);
            weir__sql_error_at(err, lv->flow->origin.src, n->pos);
            return WEIR_EGRAPH;
        }
        if (!ok) {
            weir_buf shown = WEIR_BUF_INIT;
            for (size_t i = 0; i < n->n; i++) {
                if (i)
                    weir__buf_putc(&shown, '.');
                weir__buf_printf(&shown, "`%s`", n->parts[i]);
            }
            WEIR_ERR(err, WEIR_EGRAPH, "TABLE_OR_VIEW_NOT_FOUND",
                     "The table or view %s cannot be found. Verify the "
                     "spelling and correctness of the schema and catalog. "
                     "If you did not qualify the name with a schema, verify "
                     "the current_schema() output, or qualify the name with "
                     "the correct schema and catalog.",
                     weir__buf_cstr(&shown));
            weir__buf_free(&shown);
            weir__sql_error_at(err, lv->flow->origin.src, n->pos);
            return WEIR_EGRAPH;
        }
    }
    return external_relation(out, lv, ref, in, cat, db, name, err);
}

static int on_tvf(void *payload, const weir_sql_tvf *call, weir_buf *out,
                  weir_error *err)
{
    const level *lv = payload;
    const weir_resolve_ctx *ctx = lv->ctx;
    const weir_input *in = find_input(lv->flow, call->node, true);
    if (!in)
        return WEIR_ENOTFOUND; /* range(), explode(), ...: the default */
    if (in->source == WEIR_INPUT_JDBC && !call->streaming) {
        weir_conn *c = ctx->probe ? ctx->probe : ctx->st ? ctx->st->conn : NULL;
        sample_open(out, ctx, true);
        int rc = weir__jdbc_render(out, c, call, ctx->root_dir,
                                   lv->flow->origin.src, err);
        sample_close(out, ctx, true);
        return rc;
    }
    const weir_source_kind *kind = weir__source_kind_of(in);
    bool sample = kind != &weir__source_range;
    if (call->streaming && ctx->mode == WEIR_RESOLVE_EXECUTE) {
        sample_open(out, ctx, sample);
        int rc = render_batch(out, lv, in, err);
        sample_close(out, ctx, sample);
        return rc;
    }
    if (call->streaming && !kind->analyze)
        return WEIR_ENOTFOUND; /* the query's own translation */
    if (call->streaming) {
        /* Resolution: the kind describes the source's schema. */
        const weir_gflow *top = lv->flow;
        weir_arena a = WEIR_ARENA_INIT;
        weir_source_analysis an;
        memset(&an, 0, sizeof(an));
        an.conn = ctx->st ? ctx->st->conn : NULL;
        if (top->target >= 0) {
            const weir_gdataset *t = &ctx->g->datasets[top->target];
            an.state_catalog = weir__state_catalog(ctx->g, t);
            if (!ctx->st || !weir__storage_has_catalog(ctx->st, an.state_catalog))
                an.state_catalog = NULL;
        }
        an.flow = top->display;
        an.key = kind->key(&a, ctx->g, in, ctx->root_dir);
        an.in = in;
        an.root_dir = ctx->root_dir;
        an.with_metadata = weir__query_uses_metadata(lv->flow->query);
        an.infer = ctx->infer;
        an.dry = ctx->st && ctx->st->mode == WEIR_STORAGE_DRY;
        int rc = kind->analyze(out, &an, err);
        weir__arena_free(&a);
        if (rc && rc != WEIR_ENOTFOUND && !err->path[0])
            weir__sql_error_at(err, lv->flow->origin.src, call->pos);
        return rc;
    }
    sample_open(out, ctx, sample);
    int rc = weir__sql_render_read_files(out, call, NULL, 0, ctx->root_dir, err);
    sample_close(out, ctx, sample);
    if (rc && !err->path[0])
        weir__sql_error_at(err, lv->flow->origin.src, call->pos);
    return rc;
}

static int on_expr_type(void *payload, const char *sql, weir_buf *out)
{
    const level *lv = payload;
    if (weir__watch_stopped(lv->ctx->cancel))
        return -1; /* on_relation ends the translation */
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error ignore;
    int rc = lv->ctx->probe ? weir__conn_describe(lv->ctx->probe, sql, &cols, &n,
                                                  &a, &ignore)
                            : WEIR_ENOTFOUND;
    for (size_t i = 0; !rc && i < n; i++)
        weir__buf_printf(out, "%s%s", i ? "\n" : "", cols[i].type);
    weir__arena_free(&a);
    return rc;
}

/* At analysis a dataset of the graph is read as its resolved schema (see
 * weir__resolve_table_name), so its types are known without DuckDB; so
 * are those of a table the update created with that schema (ctx->fresh)
 * when it is read whole. */
static int on_relation_types(void *payload, const weir_sql_relref *ref,
                             weir_buf *out)
{
    const level *lv = payload;
    const weir_resolve_ctx *ctx = lv->ctx;
    const weir_input *in = find_input(lv->flow, ref->node, false);
    if (!in || in->dataset < 0)
        return WEIR_ENOTFOUND;
    if (ctx->mode != WEIR_RESOLVE_ANALYZE &&
        (!ctx->fresh || !ctx->fresh[in->dataset] || ref->streaming ||
         ctx->batch_tables))
        return WEIR_ENOTFOUND;
    const weir_gdataset *d = &ctx->g->datasets[in->dataset];
    if (!d->resolved)
        return WEIR_ENOTFOUND;
    for (size_t i = 0; i < d->schema.n; i++)
        weir__buf_printf(out, "%s%s", i ? "\n" : "", d->schema.cols[i].duck_type);
    return 0;
}

/* A streaming file source read by a query that names _metadata carries
 * it (see render_batch): hidden from `*`, as in Spark. */
static const char *on_tvf_hidden(void *payload, const weir_sql_tvf *call)
{
    const level *lv = payload;
    const weir_input *in = find_input(lv->flow, call->node, true);
    if (!in || !call->streaming || weir__source_kind_of(in) != &weir__source_files ||
        !weir__query_uses_metadata(lv->flow->query))
        return NULL;
    return "_metadata";
}

/* A stateful operator's query is read as the rows it output, the rows of
 * its plan's placeholders as the relations the engine gave them. */
static int on_query(void *payload, const weir_sql_query *q, weir_buf *out,
                    weir_error *err)
{
    (void)err;
    const level *lv = payload;
    for (size_t i = 0; i < lv->ctx->n_subst; i++)
        if (lv->ctx->subst[i].node == q) {
            weir__buf_printf(out, "SELECT * FROM %s", lv->ctx->subst[i].rows);
            return 0;
        }
    return WEIR_ENOTFOUND;
}

static int translate_at(weir_buf *out, const weir_resolve_ctx *ctx,
                        const weir_gflow *f, const weir_sql_query *q,
                        int depth, weir_error *err)
{
    if (depth > 64)
        return WEIR_ERR(err, WEIR_EGRAPH, "CIRCULAR_DEPENDENCY",
                        "views nest more than 64 levels deep at %s",
                        f->display);
    level lv = { ctx, f, depth };
    weir_sql_resolver r = { .relation = on_relation,
                            .tvf = on_tvf,
                            .payload = &lv,
                            .expr_type = on_expr_type,
                            .relation_types = on_relation_types,
                            .tvf_hidden = on_tvf_hidden,
                            .time_zone = weir__flow_time_zone(f),
                            .query = on_query };
    return weir__sql_translate_query(out, q, &r, err);
}

static int translate_flow_at(weir_buf *out, const weir_resolve_ctx *ctx,
                             const weir_gflow *f, int depth, weir_error *err)
{
    return translate_at(out, ctx, f, f->query, depth, err);
}

int weir__resolve_flow_sql(weir_buf *out, const weir_resolve_ctx *ctx,
                           const weir_gflow *f, weir_error *err)
{
    return translate_flow_at(out, ctx, f, 0, err);
}

int weir__resolve_query_sql(weir_buf *out, const weir_resolve_ctx *ctx,
                            const weir_gflow *f, const weir_sql_query *q,
                            weir_error *err)
{
    return translate_at(out, ctx, f, q, 0, err);
}
