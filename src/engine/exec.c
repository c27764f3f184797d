/*
 * Flow execution (see exec.h). Staging and publishing a sink's batches
 * are sink_flow.c's; the flow's state is src/state's.
 */
#define _GNU_SOURCE
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cdc.h"
#include "engine/common.h"
#include "engine/mv.h"
#include "engine/resolve.h"
#include "engine/sink_flow.h"
#include "engine/stateful.h"
#include "engine/write.h"
#include "sources/files.h"
#include "sources/import.h"
#include "sources/source.h"
#include "sinks/sink.h"
#include "events/events.h"
#include "store/objects.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/url.h"
#include "util/vec.h"

weir_checkpoint weir__flow_checkpoint(weir_flow_exec *x,
                                      const weir_gdataset *t)
{
    weir_checkpoint cp = { x->conn, weir__state_catalog(x->g, t), x->f->display,
                           t->display, x->update_id, &x->err };
    return cp;
}

static int flow_position(weir_flow_exec *x, const weir_gdataset *t,
                         int64_t *gen, int64_t *next_batch)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    return weir__checkpoint_position(&cp, gen, next_batch);
}

/* The flow's state is whole (weir__checkpoint_check) at generation gen
 * with next_batch batches committed; its flow_state row into fs. */
static int check_state(weir_flow_exec *x, const weir_gdataset *t,
                       int64_t gen, int64_t next_batch, bool manifest,
                       weir_flow_state *fs)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    const char *import = x->f->def ? x->f->def->import_checkpoint : NULL;
    return weir__checkpoint_check(&cp, t, x->st, import, gen, next_batch,
                                  manifest, fs);
}

/* ---- planning a batch through the source kinds (sources/source.h) ------- */

typedef struct batch_plan {
    WEIR_VEC(weir_source_batch) sources;
    weir_arena arena;
    int64_t gen, batch_id;
    weir_checkpoint cp;
    weir_source_ctx ctx;
} batch_plan;

void weir__flow_source_ctx(weir_flow_exec *x, const weir_gdataset *t,
                           weir_checkpoint *cp, weir_arena *arena,
                           weir_source_ctx *c)
{
    *cp = weir__flow_checkpoint(x, t);
    c->g = x->g;
    c->f = x->f;
    c->t = t;
    c->conn = x->conn;
    c->cp = cp;
    c->root_dir = x->root_dir;
    c->st = x->st;
    c->local_topics = x->local_kafka_sources ? x->g->default_catalog : NULL;
    c->input_tables = x->input_tables;
    c->update_id = x->update_id;
    c->arena = arena;
    c->infer = x->infer;
    c->unstable = &x->unstable;
    c->warning = x->warning;
    c->warning_size = sizeof(x->warning);
    c->note = x->note;
    c->note_size = sizeof(x->note);
    c->err = &x->err;
}

static void plan_init(weir_flow_exec *x, batch_plan *p, const weir_gdataset *t)
{
    memset(p, 0, sizeof(*p));
    weir__arena_init(&p->arena);
    weir__flow_source_ctx(x, t, &p->cp, &p->arena, &p->ctx);
}

/* After the batch was read: files that changed while it read them are
 * remembered, and the caller reads the batch again without them. */
static int check_files_stable(weir_flow_exec *x, const batch_plan *p)
{
    size_t n_new = 0;
    for (size_t i = 0; i < p->sources.len; i++) {
        weir_source_batch *b = &p->sources.items[i];
        if (b->kind->check_read && b->kind->check_read(&p->ctx, b, &n_new))
            return x->err.code;
    }
    if (!n_new)
        return 0;
    x->files_changed = true;
    return WEIR_ERR(&x->err, WEIR_ERROR, "FILE_CHANGED_DURING_READ",
                    "Flow '%s': %zu file%s changed while the update read them "
                    "(first: %s), again and again; write files elsewhere and "
                    "move them in when complete.",
                    x->f->display, n_new, n_new == 1 ? "" : "s",
                    x->unstable.paths[x->unstable.n - n_new]);
}

/* Inputs of a flow including those of the views it reads, which stream in
 * the reader's flow; each source once. keys_only: their kinds and keys,
 * not planned. */
static int plan_inputs(weir_flow_exec *x, batch_plan *p, const weir_gflow *f,
                       int depth, bool keys_only)
{
    const weir_graph *g = x->g;
    if (depth > 64)
        return WEIR_ERR(&x->err, WEIR_ERROR, NULL, "views nest too deeply");
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        int rc = 0;
        if (in->dataset >= 0) {
            const weir_gdataset *d = &g->datasets[in->dataset];
            if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW) {
                if (d->n_flows)
                    rc = plan_inputs(x, p, &g->flows[d->flows[0]], depth + 1,
                                     keys_only);
                if (rc)
                    return rc;
                continue;
            }
        }
        if (!in->streaming)
            continue;
        weir_source_batch b;
        memset(&b, 0, sizeof(b));
        b.kind = weir__source_kind_of(in);
        b.key = b.kind->key(&p->arena, g, in, x->root_dir);
        if (!b.key)
            return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
        bool dup = false;
        for (size_t k = 0; k < p->sources.len && !dup; k++)
            dup = strcmp(p->sources.items[k].key, b.key) == 0;
        if (dup)
            continue;
        if (!keys_only)
            rc = b.kind->plan(&p->ctx, in, &b);
        if (!rc && WEIR_VEC_PUSH(&p->sources, b))
            rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
        if (rc)
            return rc;
    }
    return 0;
}

/* The flow's streaming sources in the order plan_inputs() plans them,
 * each once. */
typedef WEIR_VEC(weir_import_source) import_sources;
static int import_inputs(weir_flow_exec *x, batch_plan *p, const weir_gflow *f,
                         import_sources *out, int depth)
{
    const weir_graph *g = x->g;
    if (depth > 64)
        return WEIR_ERR(&x->err, WEIR_ERROR, NULL, "views nest too deeply");
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (in->dataset >= 0) {
            const weir_gdataset *d = &g->datasets[in->dataset];
            if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW) {
                int rc = d->n_flows ? import_inputs(x, p, &g->flows[d->flows[0]],
                                                    out, depth + 1)
                                    : 0;
                if (rc)
                    return rc;
                continue;
            }
        }
        if (!in->streaming)
            continue;
        weir_import_source s = { in, weir__source_kind_of(in)->key(
                                         &p->arena, g, in, x->root_dir) };
        if (!s.key)
            return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
        bool dup = false;
        for (size_t k = 0; k < out->len && !dup; k++)
            dup = strcmp(out->items[k].key, s.key) == 0;
        if (!dup && WEIR_VEC_PUSH(out, s))
            return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

/* The small files of a Spark checkpoint in object storage (url,
 * normalized) copied into <storage>/imports/<flow>/ (*out, malloc'd):
 * what the reader (sources/spark_checkpoint.c) reads, operator state but
 * its metadata left behind. The copy replaces the folder as a whole; the
 * import itself commits with the flow's first batch, so an update killed
 * before that copies again. */
static int copy_checkpoint(weir_flow_exec *x, const char *url, char **out)
{
    static const char *const FILES[] = { "metadata", "offsets/*", "commits/*",
                                         "sources/*/*",
                                         "state/*/_metadata/metadata", NULL };
    weir_buf dir = WEIR_BUF_INIT;
    weir__buf_printf(&dir, "%s/imports", x->st->root);
    int rc = weir__buf_failed(&dir)
                 ? WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__fs_mkdirs(weir__buf_cstr(&dir), &x->err);
    weir__buf_putc(&dir, '/');
    weir__path_put_name(&dir, x->f->display);
    if (!rc && weir__buf_failed(&dir))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__objects_copy(x->conn, url, FILES, weir__buf_cstr(&dir),
                                &x->err);
    if (rc)
        weir__error_prefix(&x->err, "Flow '%s' cannot copy its checkpoint "
                                    "%s: ", x->f->display, url);
    *out = rc ? NULL : strdup(weir__buf_cstr(&dir));
    weir__buf_free(&dir);
    if (!rc && !*out)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* import_checkpoint, on the flow's first update: the Spark checkpoint's
 * position becomes batch 0, in the transaction of the first batch (which
 * becomes batch 1). A checkpoint in object storage is read from a local
 * copy. */
static int import_checkpoint(weir_flow_exec *x, batch_plan *p,
                             const char *path)
{
    import_sources srcs = WEIR_VEC_INIT;
    int rc = import_inputs(x, p, x->f, &srcs, 0);
    char *url = !rc && weir__url_is_remote(path) ? weir__url_normalize(path)
                                                 : NULL;
    char *abs = NULL;
    if (!rc && weir__url_is_remote(path))
        rc = url ? copy_checkpoint(x, url, &abs)
                 : WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    else if (!rc && !(abs = weir__path_absolute(path, x->root_dir)))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    weir__buf_clear(&x->imported);
    if (!rc)
        rc = weir__source_import(&p->ctx, abs, url, srcs.items, srcs.len,
                                 &x->imported);
    if (!rc) {
        snprintf(x->import_note, sizeof(x->import_note),
                 "Flow '%s' imported the Spark Structured Streaming "
                 "checkpoint %s: it continues after the query's last "
                 "committed batch instead of reading its sources from the "
                 "start.",
                 x->f->display, url ? url : abs);
        x->import_pending = true;
        p->batch_id++;
        p->ctx.batch_id = p->batch_id;
    } else {
        weir__buf_clear(&x->imported);
    }
    free(url);
    free(abs);
    WEIR_VEC_FREE(&srcs);
    return rc;
}

/* The flow's sources must be those its last batch in this generation
 * read: a source added would start from nothing while the others go on,
 * one removed would keep a position nothing reads (Spark fails such a
 * flow the same way). */
static int check_source_set(weir_flow_exec *x, batch_plan *p)
{
    if (p->batch_id == 0)
        return 0;
    int rc = plan_inputs(x, p, x->f, 0, true);
    weir_rows *r = NULL;
    if (!rc)
        rc = weir__checkpoint_batch_sources(&p->cp, p->gen, p->batch_id - 1, &r);
    bool same = !rc && r->n_rows == p->sources.len;
    for (size_t i = 0; same && i < r->n_rows; i++) {
        bool found = false;
        for (size_t k = 0; k < p->sources.len && !found; k++)
            found = !strcmp(p->sources.items[k].key, weir__rows_get(r, i, 0));
        same = found;
    }
    if (!rc && !same) {
        weir_buf was = WEIR_BUF_INIT, now = WEIR_BUF_INIT;
        for (size_t i = 0; i < r->n_rows; i++)
            weir__buf_printf(&was, "%s%s", i ? ", " : "", weir__rows_get(r, i, 0));
        for (size_t k = 0; k < p->sources.len; k++)
            weir__buf_printf(&now, "%s%s", k ? ", " : "",
                             p->sources.items[k].key);
        const char *target = x->g->datasets[x->f->target].name;
        rc = WEIR_ERR(&x->err, WEIR_ERROR, WEIR_SOURCES_CHANGED_CLASS,
                      "Flow '%s' had streaming sources added or removed. "
                      "Please perform a full refresh in order to rebuild "
                      "'%s' against the current set of sources. (Its "
                      "checkpoint has: %s; its query reads: %s. weir run "
                      "--full-refresh %s)",
                      x->f->display, x->f->display, weir__buf_cstr(&was),
                      weir__buf_cstr(&now), target);
        weir__buf_free(&was);
        weir__buf_free(&now);
    }
    weir__rows_free(r);
    p->sources.len = 0;
    return rc;
}

static bool plan_has_data(const batch_plan *p)
{
    for (size_t i = 0; i < p->sources.len; i++)
        if (p->sources.items[i].end > p->sources.items[i].start)
            return true;
    return false;
}

/* In the batch's transaction: flow_state, a checkpoint row per source
 * (its end position), then what each kind records besides. */
static int record_checkpoint(weir_flow_exec *x, const batch_plan *p)
{
    int64_t new_files = 0;
    for (size_t i = 0; i < p->sources.len; i++)
        new_files += p->sources.items[i].new_files;
    if (weir__checkpoint_set_flow_state(&p->cp, p->gen, p->batch_id + 1,
                                        new_files))
        return x->err.code;
    weir_checkpoint_row *rows =
        calloc(p->sources.len ? p->sources.len : 1, sizeof(*rows));
    if (!rows)
        return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        rows[i].source = b->key;
        rows[i].epoch = b->epoch;
        rows[i].end = b->end;
    }
    int rc = weir__checkpoint_add_batch(&p->cp, p->gen, p->batch_id, rows,
                                        p->sources.len, x->rows_written);
    free(rows);
    for (size_t i = 0; !rc && i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        if (b->kind->commit)
            rc = b->kind->commit(&p->ctx, b);
    }
    return rc;
}

static void plan_details(weir_flow_exec *x, const batch_plan *p)
{
    weir_buf *d = &x->details;
    weir__buf_printf(d, ", \"checkpoint\": {\"generation\": %lld, "
                        "\"batch_id\": %lld, \"sources\": [",
                     (long long)p->gen, (long long)p->batch_id);
    for (size_t i = 0; i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        weir__buf_puts(d, i ? ", {\"source\": " : "{\"source\": ");
        weir__buf_put_json_string(d, b->key);
        b->kind->progress(&p->ctx, b, d);
        weir__buf_putc(d, '}');
    }
    weir__buf_puts(d, "]}");
}

/* Columns the batch has and the table lacks (a file source's schema
 * evolved in this update, or an upstream table gained columns) are added
 * to the table in the flow's transaction, as additive evolution. */
static int add_missing_columns(weir_flow_exec *x, const weir_gdataset *t,
                               const weir_db_column *cols, size_t n);

static int add_new_columns(weir_flow_exec *x, const weir_gdataset *t,
                           const char *sql)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    int rc = weir__conn_describe(x->conn, sql, &cols, &n, &a, &x->err);
    if (!rc)
        rc = add_missing_columns(x, t, cols, n);
    weir__arena_free(&a);
    return rc;
}

/* Add the columns of cols that t lacks. */
static int add_missing_columns(weir_flow_exec *x, const weir_gdataset *t,
                               const weir_db_column *cols, size_t n)
{
    weir_arena a = WEIR_ARENA_INIT;
    int rc = 0;
    /* The table's columns: describing a query is a prepare, much cheaper
     * than filtering duckdb_columns() over every attached table. */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT * FROM ");
    weir__phys(&q, t);
    weir_db_column *have = NULL;
    size_t n_have = 0;
    if (!rc)
        rc = q.failed ? WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_describe(x->conn, weir__buf_cstr(&q), &have,
                                            &n_have, &a, &x->err);
    weir__buf_clear(&q);
    for (size_t i = 0; !rc && i < n; i++) {
        bool found = false;
        for (size_t r = 0; r < n_have && !found; r++)
            found = weir__str_ieq(have[r].name, cols[i].name);
        if (found)
            continue;
        weir__buf_puts(&q, "ALTER TABLE ");
        weir__phys(&q, t);
        weir__buf_puts(&q, " ADD COLUMN ");
        weir__buf_put_sql_ident(&q, cols[i].name);
        weir__buf_putc(&q, ' ');
        weir__column_type(&q, strcmp(cols[i].type, "\"NULL\"") ? cols[i].type
                                                               : "INTEGER");
        weir__buf_putc(&q, ';');
    }
    if (!rc && q.len) {
        x->altered = true;
        rc = weir__exec_buf(x->conn, &q, &x->err);
    }
    weir__buf_free(&q);
    weir__arena_free(&a);
    return rc;
}

void weir__flow_resolve_ctx(weir_flow_exec *x, const weir_source_batch *batches,
                            size_t n_batches, bool careful, bool batch_tables,
                            weir_resolve_ctx *out)
{
    weir_resolve_ctx ctx = { .mode = WEIR_RESOLVE_EXECUTE,
                             .g = x->g,
                             .st = x->st,
                             .root_dir = x->root_dir,
                             .batches = batches,
                             .n_batches = n_batches,
                             .careful_files = careful && x->careful_files,
                             .infer = x->infer,
                             .sample_rows = x->sample_rows,
                             .input_tables = x->input_tables,
                             .probe = x->conn,
                             .batch_tables = batch_tables,
                             .fresh = x->fresh,
                             .cancel = x->cancel };
    if (x->op_node) {
        ctx.subst[0].node = x->op_node;
        ctx.subst[0].rows = WEIR_OP_ROWS;
        ctx.n_subst = 1;
    }
    *out = ctx;
}

int weir__flow_sql(weir_flow_exec *x, const weir_source_batch *batches,
                   size_t n_batches, bool careful, bool batch_tables,
                   weir_buf *sql)
{
    weir_resolve_ctx ctx;
    weir__flow_resolve_ctx(x, batches, n_batches, careful, batch_tables, &ctx);
    int rc = weir__resolve_flow_sql(sql, &ctx, x->f, &x->err);
    if (!rc && sql->failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

bool weir__flow_reads_fresh(const weir_flow_exec *x, const weir_gflow *f,
                            int depth)
{
    if (!x->fresh || depth > 64)
        return false;
    for (size_t i = 0; i < f->n_inputs; i++) {
        int di = f->inputs[i].dataset;
        const weir_gdataset *d = di >= 0 ? &x->g->datasets[di] : NULL;
        if (d && (d->kind == WEIR_TEMPORARY_VIEW ||
                  d->kind == WEIR_PERSISTED_VIEW)) {
            if (!d->n_flows ||
                !weir__flow_reads_fresh(x, &x->g->flows[d->flows[0]], depth + 1))
                return false;
        } else if (d && !x->fresh[di]) {
            return false;
        }
    }
    return true;
}

static int insert_rows(weir_flow_exec *x, const weir_gdataset *t,
                       const weir_source_batch *batches, size_t n_batches)
{
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__flow_sql(x, batches, n_batches, true, false, &sql);
    if (!rc && t->kind == WEIR_STREAMING_TABLE)
        rc = add_new_columns(x, t, weir__buf_cstr(&sql));
    if (!rc)
        rc = weir__write_batch(x, t, weir__buf_cstr(&sql), false);
    weir__buf_free(&sql);
    return rc;
}

/* An AUTO CDC flow's batch: its query yields the changes, applied to the
 * target by key and sequence (engine/cdc.c) in the batch's transaction. */
static int apply_changes(weir_flow_exec *x, const weir_gdataset *t,
                         const batch_plan *p)
{
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__flow_sql(x, p->sources.items, p->sources.len, true, false,
                            &sql);
    x->altered = true; /* the changes' columns decide the target's */
    /* The batch's columns decide the target's: a file source may have
     * gained some since the update's analysis. */
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_schema src = { NULL, 0 }, schema = { NULL, 0 };
    if (!rc)
        rc = weir__conn_describe(x->conn, weir__buf_cstr(&sql), &cols, &n, &a,
                                 &x->err);
    if (!rc && !(src.cols = weir__arena_array(&a, n + 1, sizeof(*src.cols))))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        weir_column c = { cols[i].name, cols[i].type, NULL, true, NULL };
        src.cols[src.n++] = c;
    }
    if (!rc)
        rc = weir__cdc_target_schema(&schema, &a, x->conn, x->f, &src,
                                     weir__buf_cstr(&sql), &x->err);
    weir_db_column *want = rc ? NULL
                              : weir__arena_array(&a, schema.n + 1, sizeof(*want));
    if (!rc && !want)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < schema.n; i++) {
        want[i].name = schema.cols[i].name;
        want[i].type = schema.cols[i].duck_type;
    }
    if (!rc)
        rc = add_missing_columns(x, t, want, schema.n);
    weir_cdc_metrics m = { 0, 0, 0 };
    if (!rc)
        rc = weir__cdc_apply(x->conn, x->g, x->f, t, &schema,
                             weir__buf_cstr(&sql), p->batch_id == 0, &m,
                             &x->err);
    weir__arena_free(&a);
    weir__buf_free(&sql);
    if (!rc) {
        /* rows_written bounds the table's rows (check_unrecorded). */
        x->rows_written = m.upserted;
        x->cdc.upserted += m.upserted;
        x->cdc.deleted += m.deleted;
        x->cdc.ignored += m.ignored;
    }
    return rc;
}

static int exec_streaming(weir_flow_exec *x, const weir_gdataset *t)
{
    batch_plan p;
    plan_init(x, &p, t);
    int rc = flow_position(x, t, &p.gen, &p.batch_id);
    p.ctx.gen = p.gen;
    p.ctx.batch_id = p.batch_id;
    weir_flow_state fs;
    if (!rc)
        rc = check_state(x, t, p.gen, p.batch_id, true, &fs);
    /* import_checkpoint: only into a flow without any checkpoint (its
     * first update; after a full refresh the flow has a new, empty one). */
    const char *import = x->f->def ? x->f->def->import_checkpoint : NULL;
    if (!rc && import && !fs.found && p.gen == 0 && p.batch_id == 0)
        rc = import_checkpoint(x, &p, import);
    if (!rc)
        rc = check_source_set(x, &p);
    if (!rc)
        rc = plan_inputs(x, &p, x->f, 0, false);
    for (size_t i = 0; !rc && i < p.sources.len; i++)
        x->more |= p.sources.items[i].more;
    if (!rc && !plan_has_data(&p)) {
        x->no_new_data = true;
    } else if (!rc && (rc = weir__stateful_step(x, t, p.gen, p.sources.items,
                                                p.sources.len)) != 0) {
        weir__files_explain_error(&x->err);
    } else if (!rc && (t->kind == WEIR_SINK || weir__dataset_delta(t))) {
        const weir_sink_format *fmt = weir__sink_format(t->format);
        rc = fmt ? weir__sink_flow_stage(x, t, p.gen, p.batch_id,
                                         p.sources.items, p.sources.len, fmt)
                 : WEIR_ERR(&x->err, WEIR_EINVAL, "UNSUPPORTED_SINK_FORMAT",
                            "sink format '%s' is not supported",
                            t->format ? t->format : "");
        if (!rc)
            rc = check_files_stable(x, &p);
        if (rc)
            weir__files_explain_error(&x->err);
        if (!rc)
            rc = record_checkpoint(x, &p);
    } else if (!rc && x->f->cdc) {
        rc = apply_changes(x, t, &p);
        if (rc)
            weir__files_explain_error(&x->err);
        if (!rc)
            rc = check_files_stable(x, &p);
        if (!rc)
            rc = record_checkpoint(x, &p);
    } else if (!rc) {
        rc = insert_rows(x, t, p.sources.items, p.sources.len);
        if (rc)
            weir__files_explain_error(&x->err);
        if (!rc)
            rc = check_files_stable(x, &p);
        if (!rc)
            rc = record_checkpoint(x, &p);
    }
    if (!rc)
        plan_details(x, &p);
    for (size_t i = 0; i < p.sources.len; i++)
        if (p.sources.items[i].kind->release)
            p.sources.items[i].kind->release(&p.ctx, &p.sources.items[i]);
    WEIR_VEC_FREE(&p.sources);
    weir__arena_free(&p.arena);
    return rc;
}

static int exec_once(weir_flow_exec *x, const weir_gdataset *t)
{
    /* A once flow's batch is batch 0 of its generation. */
    int64_t gen = 0, done = 0;
    int rc = flow_position(x, t, &gen, &done);
    weir_flow_state fs;
    if (!rc)
        rc = check_state(x, t, gen, done ? 1 : 0, false, &fs);
    if (rc)
        return rc;
    if (done) {
        x->idle = true;
        return 0;
    }
    rc = insert_rows(x, t, NULL, 0);
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    if (!rc)
        rc = weir__checkpoint_set_flow_state(&cp, gen, 1, 0);
    if (!rc) {
        weir_checkpoint_row row = { WEIR_CHECKPOINT_ONCE, 0, 0 };
        rc = weir__checkpoint_add_batch(&cp, gen, 0, &row, 1, x->rows_written);
    }
    return rc;
}

static int run_once(weir_flow_exec *x, const weir_gdataset *t);
static int run_stable(weir_flow_exec *x, const weir_gdataset *t);

/* Roll the batch's transaction back and open a new one, with the batch's
 * details, counts and messages cleared, to read the batch again. */
static int batch_restart(weir_flow_exec *x)
{
    weir__conn_rollback(x->conn);
    weir__sink_flow_release(x);
    weir__buf_clear(&x->details);
    x->rows_written = 0;
    x->warning[0] = '\0';
    x->note[0] = '\0';
    x->import_pending = false;
    weir__buf_clear(&x->imported);
    int rc = weir__conn_begin(x->conn, &x->err);
    if (!rc)
        weir__error_clear(&x->err);
    return rc;
}

/* One batch of the flow in its own transaction. */
static int exec_batch(weir_flow_exec *x, const weir_gdataset *t)
{
    x->rows_written = 0;
    x->idle = x->no_new_data = x->more = false;
    x->op_node = NULL;
    memset(&x->op_batch, 0, sizeof(x->op_batch));
    x->sink_format = NULL;
    x->careful_files = false;
    x->files_changed = false;
    x->import_pending = false;
    int rc = weir__conn_begin(x->conn, &x->err);
    if (rc)
        return rc;
    rc = run_stable(x, t);
    if (rc && !x->careful_files && !x->files_changed &&
        weir__flow_reads_files(x->g, x->f, 0)) {
        /* A file did not fit the fast reader (a malformed record, a value
         * of another type): read this batch again, rescuing them. */
        x->careful_files = true;
        rc = batch_restart(x);
        if (!rc)
            rc = run_stable(x, t);
    }
    /* An import commits though the first batch found nothing new. */
    bool commit = !x->idle && (!x->no_new_data || x->import_pending);
    if (!rc && commit)
        rc = weir__storage_commit(x->st, x->conn, &x->err);
    if (!rc && commit && x->op_batch.has) {
        int64_t dropped = x->op.dropped + x->op_batch.dropped;
        x->op = x->op_batch;
        x->op.dropped = dropped;
    }
    if (rc || !commit)
        weir__conn_rollback(x->conn);
    if (rc && x->import_pending)
        weir__buf_clear(&x->imported); /* rolled back with its batch */
    if (!rc && x->sink_format)
        rc = weir__sink_flow_publish(x, t);
    weir__sink_flow_release(x);
    for (size_t i = 0; i < x->unstable.n; i++)
        free(x->unstable.paths[i]);
    free(x->unstable.paths);
    x->unstable.paths = NULL;
    x->unstable.n = 0;
    return rc;
}

int weir__flow_exec(weir_flow_exec *x)
{
    const weir_gdataset *t = &x->g->datasets[x->f->target];
    weir__error_clear(&x->err);
    x->rows_written = 0;
    x->note[0] = '\0';
    x->warning[0] = '\0';
    int rc = 0;
    if (t->kind == WEIR_SINK || weir__dataset_delta(t)) {
        const weir_sink_format *fmt = weir__sink_format(t->format);
        if (fmt)
            rc = weir__sink_flow_recover(x, t, fmt);
        if (rc)
            return rc;
    }
    /* A source with more than one batch takes (maxOffsetsPerTrigger)
     * gets more batches in this update, each committed on its own, like
     * Spark's Trigger.AvailableNow; the details list them all. */
    int64_t rows = 0, batches = 0;
    memset(&x->cdc, 0, sizeof(x->cdc));
    memset(&x->op, 0, sizeof(x->op));
    weir_buf all = WEIR_BUF_INIT, last = WEIR_BUF_INIT;
    static const char member[] = ", \"checkpoint\": ";
    for (;;) {
        rc = exec_batch(x, t);
        if (rc || x->idle || x->no_new_data)
            break;
        rows += x->rows_written;
        const char *d = weir__buf_cstr(&x->details);
        if (!strncmp(d, member, sizeof(member) - 1)) {
            d += sizeof(member) - 1;
            weir__buf_printf(&all, "%s%s", batches ? ", " : "", d);
            weir__buf_clear(&last);
            weir__buf_puts(&last, d);
        }
        batches++;
        if (!x->more)
            break;
        weir__buf_clear(&x->details);
    }
    if (batches) {
        /* What the update committed, though a later batch found nothing
         * new or failed. */
        x->rows_written = rows;
        x->no_new_data = false;
    }
    if (batches > 1 && !rc) {
        weir__buf_clear(&x->details);
        weir__buf_printf(&x->details, "%s%s, \"batches\": [%s]", member,
                         weir__buf_cstr(&last), weir__buf_cstr(&all));
    }
    if (batches && x->f->cdc)
        weir__buf_printf(&x->details,
                         ", \"auto_cdc\": {\"upserted\": %lld, \"deleted\": "
                         "%lld, \"ignored\": %lld}",
                         (long long)x->cdc.upserted, (long long)x->cdc.deleted,
                         (long long)x->cdc.ignored);
    if (batches)
        weir__stateful_progress(x, &x->details);
    weir__buf_free(&all);
    weir__buf_free(&last);
    /* The outcome is rc (the scheduler reads x->err): an error a step
     * recorded and then recovered from is not the flow's. */
    if (!rc)
        weir__error_clear(&x->err);
    else if (!x->err.code)
        WEIR_ERR(&x->err, rc, NULL, "flow %s failed", x->f->display);
    return rc;
}

/* Attempts of a batch: files that change while read are left out, and the
 * batch is read again without them (a bounded number of times). */
static int run_stable(weir_flow_exec *x, const weir_gdataset *t)
{
    int rc = run_once(x, t);
    for (int attempt = 0; rc && x->files_changed && attempt < 3; attempt++) {
        x->files_changed = false;
        rc = batch_restart(x);
        if (!rc)
            rc = run_once(x, t);
    }
    return rc;
}

static int run_once(weir_flow_exec *x, const weir_gdataset *t)
{
    int rc;
    if (x->f->once)
        rc = exec_once(x, t);
    else if (t->kind == WEIR_MATERIALIZED_VIEW)
        rc = weir__mv_refresh(x, t);
    else if (t->kind == WEIR_STREAMING_TABLE || t->kind == WEIR_SINK)
        rc = exec_streaming(x, t);
    else
        rc = WEIR_ERR(&x->err, WEIR_EINVAL, "UNSUPPORTED_FLOW_TARGET",
                      "flows into a %s are not supported",
                      weir__kind_name(t->kind));
    return rc;
}

