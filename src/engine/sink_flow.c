/*
 * Flows into sinks (see sink_flow.h): the batch of a sink flow staged by
 * its format inside the flow's transaction and logged in
 * _weir.sink_batches as committed, published after the commit, and
 * published again at the next update when a crash came in between.
 */
#include "engine/sink_flow.h"

#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "state/sink.h"
#include "util/fs.h"
#include "util/str.h"

/* What a sink format needs to name and find one batch's files. */
typedef struct sink_names {
    char stage[4096];
    char state_id[64];
    char table[4096]; /* a Delta dataset's folder */
    weir_kv options[1];
} sink_names;

/* A dataset stored as Delta is written as a delta sink whose path is the
 * dataset's folder (docs/delta.md). */
static int delta_dataset(weir_flow_exec *x, const weir_gdataset *t,
                         weir_sink_batch *b, sink_names *n)
{
    weir_buf dir = WEIR_BUF_INIT;
    weir__storage_delta_dir(&dir, x->st, t->location, t->catalog, t->database, t->name);
    int rc = dir.failed || dir.len >= sizeof(n->table)
                 ? WEIR_ERR(&x->err, WEIR_EINVAL, NULL,
                            "the folder of Delta table %s is too long",
                            t->display)
                 : 0;
    if (!rc)
        weir__str_copy(n->table, sizeof(n->table), weir__buf_cstr(&dir));
    weir__buf_free(&dir);
    n->options[0].key = "path";
    n->options[0].value = n->table;
    b->options = n->options;
    b->n_options = 1;
    b->format = "delta";
    b->redirect_root = NULL;
    b->local_topics = NULL;
    return rc;
}

static int sink_batch(weir_flow_exec *x, const weir_gdataset *t, int64_t gen,
                      int64_t batch_id, weir_sink_batch *b, sink_names *n)
{
    memset(b, 0, sizeof(*b));
    n->stage[0] = n->state_id[0] = '\0';
    b->sink = weir__dataset_batch_key(t);
    b->flow = x->f->display;
    b->format = t->format ? t->format : "";
    b->options = t->def->options;
    b->n_options = t->def->n_options;
    b->root_dir = x->root_dir;
    b->redirect_root = x->sink_root;
    b->local_topics = x->local_kafka_sinks ? x->g->default_catalog : NULL;
    /* A staging folder per flow, named after the sink, the flow and a hash
     * of the flow's name; the names are encoded so that none reaches
     * outside <storage>/sinks. */
    unsigned long h = 5381;
    for (const char *c = x->f->display; *c; c++)
        h = h * 33 + (unsigned char)*c;
    weir_buf p = WEIR_BUF_INIT;
    weir__buf_printf(&p, "%s/sinks/", x->st->root);
    weir__path_put_name(&p, weir__dataset_batch_key(t));
    weir__buf_putc(&p, '/');
    weir__path_put_name(&p, x->f->name);
    weir__buf_printf(&p, "-%08lx", h & 0xffffffffUL);
    int rc = p.failed || p.len >= sizeof(n->stage)
                 ? WEIR_ERR(&x->err, WEIR_EINVAL, NULL,
                            "the staging folder of sink %s is too long", t->name)
                 : 0;
    if (!rc)
        weir__str_copy(n->stage, sizeof(n->stage), weir__buf_cstr(&p));
    weir__buf_free(&p);
    if (!rc) {
        weir_checkpoint cp = weir__flow_checkpoint(x, t);
        rc = weir__state_id(&cp, n->state_id, sizeof(n->state_id));
    }
    if (!rc && t->kind != WEIR_SINK)
        rc = delta_dataset(x, t, b, n);
    b->stage_dir = n->stage;
    b->state_id = n->state_id;
    b->generation = gen;
    b->batch_id = batch_id;
    b->update_id = x->update_id;
    b->conn = x->conn;
    return rc;
}

/* Record batch b of the sink as published, in a transaction of its own
 * committed like every other (weir__storage_commit: one at a time, alone
 * against statements on _weir tables, refused after a failed write). */
static int mark_published(weir_flow_exec *x, const weir_gdataset *t,
                          const weir_sink_batch *b)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    int rc = weir__conn_begin(x->conn, &x->err);
    if (!rc)
        rc = weir__sink_batch_published(&cp, weir__dataset_batch_key(t), b->generation,
                                        b->batch_id);
    if (!rc)
        rc = weir__storage_commit(x->st, x->conn, &x->err);
    if (rc)
        weir__conn_rollback(x->conn);
    return rc;
}

int weir__sink_flow_recover(weir_flow_exec *x, const weir_gdataset *t,
                            const weir_sink_format *fmt)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    weir_rows *r = NULL;
    int rc = weir__sink_batches_unpublished(&cp, weir__dataset_batch_key(t), &r);
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        weir_sink_batch b;
        sink_names names;
        rc = sink_batch(x, t, strtoll(weir__rows_get(r, i, 0), NULL, 10),
                        strtoll(weir__rows_get(r, i, 1), NULL, 10), &b, &names);
        if (!rc)
            rc = fmt->publish(&b, NULL, &x->err);
        if (!rc)
            rc = mark_published(x, t, &b);
    }
    weir__rows_free(r);
    return rc;
}

int weir__sink_flow_stage(weir_flow_exec *x, const weir_gdataset *t,
                          int64_t gen, int64_t batch_id,
                          const weir_source_batch *batches, size_t n_batches,
                          const weir_sink_format *fmt)
{
    weir_sink_batch b;
    sink_names names;
    if (sink_batch(x, t, gen, batch_id, &b, &names))
        return x->err.code;
    const char *stage = names.stage;
    weir_error ignore;
    fmt->discard(&b, &ignore); /* leftovers of a crashed attempt */
    /* Half-written files a killed writer left there: nobody else writes
     * in a flow's stage folder while this update holds the storage. */
    weir__fs_remove_atomic_temps(stage);
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__flow_sql(x, batches, n_batches, true, false, &sql);
    if (!rc) {
        rc = weir__fs_mkdirs(stage, &x->err);
        if (!rc)
            rc = fmt->stage(x->conn, &b, weir__buf_cstr(&sql), &x->rows_written,
                            &x->sink_pending, &x->err);
    }
    if (!rc) {
        weir_checkpoint cp = weir__flow_checkpoint(x, t);
        rc = weir__sink_batch_add(&cp, weir__dataset_batch_key(t), gen, batch_id,
                                  x->rows_written);
    }
    weir__buf_free(&sql);
    if (!rc) {
        x->sink_format = fmt;
        x->sink_gen = gen;
        x->sink_batch_id = batch_id;
    }
    return rc;
}

int weir__sink_flow_publish(weir_flow_exec *x, const weir_gdataset *t)
{
    weir_sink_batch b;
    sink_names names;
    weir_sink_pending *pending = x->sink_pending;
    x->sink_pending = NULL;
    int rc = sink_batch(x, t, x->sink_gen, x->sink_batch_id, &b, &names);
    if (!rc)
        rc = x->sink_format->publish(&b, pending, &x->err);
    else if (pending)
        x->sink_format->release(pending);
    if (rc)
        return rc; /* recovered by the next update */
    return mark_published(x, t, &b);
}

void weir__sink_flow_release(weir_flow_exec *x)
{
    if (!x->sink_pending)
        return;
    const weir_gdataset *t = &x->g->datasets[x->f->target];
    weir__sink_format(t->format)->release(x->sink_pending);
    x->sink_pending = NULL;
}

int weir__sink_flow_overwrite(weir_flow_exec *x, const weir_gdataset *t,
                              const char *sql)
{
    weir_sink_batch b;
    sink_names names;
    if (sink_batch(x, t, 0, 0, &b, &names))
        return x->err.code;
    int rc = weir__fs_mkdirs(names.stage, &x->err);
    if (!rc)
        rc = weir__delta_dataset_overwrite(x->conn, &b, sql, &x->rows_written,
                                           &x->err);
    return rc;
}
