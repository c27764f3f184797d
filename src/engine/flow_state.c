/*
 * Checkpoint integrity (see flow_state.h). _weir.flow_state holds one row
 * per flow: the generation, how many batches it committed in it and how
 * many files it recorded, written in each batch's transaction. Checkpoint
 * or manifest rows that went missing (edited with stock DuckDB, a restored
 * backup of one table) would make the flow read its sources again from the
 * start: duplicates. The flow stops instead.
 */
#include "engine/flow_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

typedef weir_flow_state flow_state;

static int read_flow_state(weir_flow_exec *x, const weir_gdataset *t,
                           flow_state *fs)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    return weir__checkpoint_flow_state(&cp, fs);
}

static int state_damaged(weir_flow_exec *x, const weir_gdataset *t,
                         const char *cls, const char *what)
{
    return WEIR_ERR(&x->err, WEIR_ERROR, cls,
                    "The %s of flow '%s' in %s/%s.duckdb (schema _weir) is "
                    "missing rows: %s. Reading its sources again would "
                    "duplicate data, so the flow stops. Restore the storage "
                    "folder from a backup, or recompute the table from "
                    "scratch with --full-refresh %s.",
                    !strcmp(cls, "CHECKPOINT_MISSING") ? "checkpoint"
                                                       : "file manifest",
                    x->f->display, x->st->root,
                    weir__state_catalog(x->g, t), what, t->display);
}

/* The checkpoints must hold every batch flow_state counts. */
static int check_batches(weir_flow_exec *x, const weir_gdataset *t,
                         const flow_state *fs, int64_t gen, int64_t next_batch)
{
    if (!fs->found || (fs->gen == gen && fs->batches == next_batch))
        return 0;
    char what[256];
    snprintf(what, sizeof(what),
             "the flow committed %lld batch(es) in generation %lld, its "
             "checkpoints show %lld in generation %lld",
             (long long)fs->batches, (long long)fs->gen,
             (long long)next_batch, (long long)gen);
    return state_damaged(x, t, "CHECKPOINT_MISSING", what);
}

/* The manifest must hold every file flow_state counts. */
static int check_manifest(weir_flow_exec *x, const weir_gdataset *t,
                          const flow_state *fs, int64_t gen)
{
    if (!fs->found || fs->gen != gen || fs->files == 0)
        return 0;
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    int64_t n = 0;
    int rc = weir__checkpoint_manifest_count(&cp, gen, &n);
    if (rc || n >= fs->files)
        return rc;
    char what[256];
    snprintf(what, sizeof(what),
             "the flow ingested %lld file(s) in generation %lld, the "
             "manifest (_weir.files) lists %lld",
             (long long)fs->files, (long long)gen, (long long)n);
    return state_damaged(x, t, "FILE_MANIFEST_MISSING", what);
}

/* A flow without a flow_state row looks like one that never ran, but its
 * state may have been deleted from both _weir tables. What the flow wrote
 * is still visible elsewhere, so that is checked before the flow reads its
 * sources from the start: a sink's batch log (_weir.sink_batches, written
 * with each checkpoint) must list no batch the checkpoints do not; a
 * streaming table (only weir appends to it) must hold no more rows than
 * the current-generation checkpoints of all its flows say they wrote. */
static int check_unrecorded(weir_flow_exec *x, const weir_gdataset *t,
                            const flow_state *fs, int64_t gen,
                            int64_t next_batch)
{
    if (fs->found)
        return 0;
    const char *cat = weir__state_catalog(x->g, t);
    weir_buf q = WEIR_BUF_INIT;
    if (t->kind == WEIR_SINK) {
        weir__buf_puts(&q, "SELECT count(*), 0 FROM ");
        weir__meta_table(&q, cat, "sink_batches");
        weir__buf_puts(&q, " WHERE sink = ");
        weir__buf_put_sql_string(&q, t->name);
        weir__buf_puts(&q, " AND flow = ");
        weir__buf_put_sql_string(&q, x->f->display);
        weir__buf_printf(&q, " AND (generation > %lld OR (generation = %lld "
                             "AND batch_id >= %lld))",
                         (long long)gen, (long long)gen, (long long)next_batch);
    } else if (t->kind == WEIR_STREAMING_TABLE) {
        /* An empty table (a first update) holds nothing unaccounted for:
         * the count alone is much cheaper to plan than the accounting. */
        int64_t rows = 0;
        weir__buf_puts(&q, "SELECT count(*) FROM ");
        weir__phys(&q, t);
        int rc = weir__scalar_buf(x->conn, &q, &rows, NULL, &x->err);
        weir__buf_clear(&q);
        if (rc || rows == 0) {
            weir__buf_free(&q);
            return rc;
        }
        /* Each batch's rows once (a batch has a row per source), in each
         * flow's latest generation. */
        weir__buf_printf(&q, "SELECT %lld, ", (long long)rows);
        weir__checkpoint_put_accounted_rows(&q, cat, t->display);
    } else {
        return 0;
    }
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    weir__buf_free(&q);
    int64_t have = 0, counted = 0;
    if (!rc && r->n_rows == 1) {
        const char *v;
        have = (v = weir__rows_get(r, 0, 0)) ? strtoll(v, NULL, 10) : 0;
        counted = (v = weir__rows_get(r, 0, 1)) ? strtoll(v, NULL, 10) : 0;
    }
    weir__rows_free(r);
    if (rc || have <= counted)
        return rc;
    const char *import = x->f->def ? x->f->def->import_checkpoint : NULL;
    if (import && t->kind == WEIR_STREAMING_TABLE)
        return WEIR_ERR(&x->err, WEIR_ERROR, "IMPORT_CHECKPOINT_TARGET",
                        "Flow '%s' cannot import Spark checkpoint %s: its "
                        "target %s is an existing table (it holds %lld "
                        "row(s) that the pipeline's flows did not write). "
                        "Import into a new streaming table the pipeline "
                        "creates, or into a sink.",
                        x->f->display, import, t->display, (long long)have);
    char what[512];
    if (t->kind == WEIR_SINK)
        snprintf(what, sizeof(what),
                 "_weir.sink_batches lists %lld batch(es) of the flow that "
                 "its checkpoints (generation %lld, %lld batch(es)) do not",
                 (long long)have, (long long)gen, (long long)next_batch);
    else
        snprintf(what, sizeof(what),
                 "the table holds %lld row(s), but the checkpoints of its "
                 "flows account for %lld, and the flow has no record in "
                 "_weir.flow_state (rows added outside the pipeline's flows "
                 "look the same)",
                 (long long)have, (long long)counted);
    return state_damaged(x, t, "CHECKPOINT_MISSING", what);
}

int weir__flow_state_check(weir_flow_exec *x, const weir_gdataset *t,
                           int64_t gen, int64_t next_batch, bool manifest,
                           weir_flow_state *fs)
{
    int rc = read_flow_state(x, t, fs);
    if (!rc)
        rc = check_batches(x, t, fs, gen, next_batch);
    if (!rc)
        rc = check_unrecorded(x, t, fs, gen, next_batch);
    if (!rc && manifest)
        rc = check_manifest(x, t, fs, gen);
    return rc;
}

/* Record the batch in flow_state (in the batch's transaction). */
int weir__flow_state_put(weir_flow_exec *x, const weir_gdataset *t,
                         int64_t gen, int64_t batches, int64_t new_files)
{
    weir_checkpoint cp = weir__flow_checkpoint(x, t);
    return weir__checkpoint_put_flow_state(&cp, gen, batches, new_files);
}
