/*
 * Checkpoint integrity (see weir__checkpoint_check in checkpoint.h).
 * _weir.flow_state holds one row per flow: the generation, how many
 * batches it committed in it and how many files it recorded, written in
 * each batch's transaction. Checkpoint or manifest rows that went missing
 * (edited with stock DuckDB, a restored backup of one table) would make
 * the flow read its sources again from the start: duplicates. The flow
 * stops instead.
 */
#include "state/checkpoint.h"

#include <stdio.h>
#include <string.h>

#include "state/sink.h"

typedef struct check {
    const weir_checkpoint *cp;
    const weir_gdataset *t;
    const weir_storage *st;
    const char *import;
} check;

static int state_damaged(const check *k, const char *cls, const char *what)
{
    weir_buf file = WEIR_BUF_INIT;
    weir__storage_catalog_path(&file, k->st, k->cp->catalog);
    int rc = WEIR_ERR(k->cp->err, WEIR_ERROR, cls,
                      "The %s of flow '%s' in %s (schema _weir) is missing "
                      "rows: %s. Reading its sources again would duplicate "
                      "data, so the flow stops. Restore the storage folder "
                      "from a backup, or recompute the table from scratch "
                      "with --full-refresh %s.",
                      !strcmp(cls, "CHECKPOINT_MISSING") ? "checkpoint"
                                                         : "file manifest",
                      k->cp->flow, weir__buf_cstr(&file), what,
                      k->cp->target);
    weir__buf_free(&file);
    return rc;
}

/* The checkpoints must hold every batch flow_state counts. */
static int check_batches(const check *k, const weir_flow_state *fs,
                         int64_t gen, int64_t next_batch)
{
    if (!fs->found || (fs->gen == gen && fs->batches == next_batch))
        return 0;
    char what[256];
    snprintf(what, sizeof(what),
             "the flow committed %lld batch(es) in generation %lld, its "
             "checkpoints show %lld in generation %lld",
             (long long)fs->batches, (long long)fs->gen,
             (long long)next_batch, (long long)gen);
    return state_damaged(k, "CHECKPOINT_MISSING", what);
}

/* The manifest must hold every file flow_state counts. */
static int check_manifest(const check *k, const weir_flow_state *fs,
                          int64_t gen)
{
    if (!fs->found || fs->gen != gen || fs->files == 0)
        return 0;
    int64_t n = 0;
    int rc = weir__checkpoint_manifest_count(k->cp, gen, &n);
    if (rc || n >= fs->files)
        return rc;
    char what[256];
    snprintf(what, sizeof(what),
             "the flow ingested %lld file(s) in generation %lld, the "
             "manifest (_weir.files) lists %lld",
             (long long)fs->files, (long long)gen, (long long)n);
    return state_damaged(k, "FILE_MANIFEST_MISSING", what);
}

/* What the flow wrote that its checkpoints do not account for, in *have
 * (and what they account for, in *counted). */
static int unaccounted(const check *k, int64_t gen, int64_t next_batch,
                       int64_t *have, int64_t *counted)
{
    const weir_gdataset *t = k->t;
    *have = *counted = 0;
    if (t->kind == WEIR_SINK || weir__dataset_delta(t))
        return weir__sink_batches_unrecorded(k->cp, weir__dataset_batch_key(t),
                                             gen, next_batch, have);
    if (t->kind != WEIR_STREAMING_TABLE)
        return 0;
    /* An empty table (a first update) holds nothing unaccounted for:
     * the count alone is much cheaper to plan than the accounting. */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__storage_table_ref(&q, t->catalog, t->database, t->name);
    int rc = weir__scalar_buf(k->cp->conn, &q, have, NULL, k->cp->err);
    weir__buf_free(&q);
    if (rc || *have == 0)
        return rc;
    return weir__checkpoint_accounted_rows(k->cp, counted);
}

/* A flow without a flow_state row looks like one that never ran, but its
 * state may have been deleted from both _weir tables. What the flow wrote
 * is still visible elsewhere, so that is checked before the flow reads its
 * sources from the start: a sink's batch log (_weir.sink_batches, written
 * with each checkpoint) must list no batch the checkpoints do not; a
 * streaming table (only weir appends to it) must hold no more rows than
 * the current-generation checkpoints of all its flows say they wrote. */
static int check_unrecorded(const check *k, const weir_flow_state *fs,
                            int64_t gen, int64_t next_batch)
{
    if (fs->found)
        return 0;
    int64_t have = 0, counted = 0;
    int rc = unaccounted(k, gen, next_batch, &have, &counted);
    if (rc || have <= counted)
        return rc;
    const weir_gdataset *t = k->t;
    if (k->import && t->kind == WEIR_STREAMING_TABLE)
        return WEIR_ERR(k->cp->err, WEIR_ERROR, "IMPORT_CHECKPOINT_TARGET",
                        "Flow '%s' cannot import Spark checkpoint %s: its "
                        "target %s is an existing table (it holds %lld "
                        "row(s) that the pipeline's flows did not write). "
                        "Import into a new streaming table the pipeline "
                        "creates, or into a sink.",
                        k->cp->flow, k->import, t->display, (long long)have);
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
    return state_damaged(k, "CHECKPOINT_MISSING", what);
}

int weir__checkpoint_check(const weir_checkpoint *cp, const weir_gdataset *t,
                           const weir_storage *st, const char *import,
                           int64_t gen, int64_t next_batch, bool manifest,
                           weir_flow_state *fs)
{
    check k = { cp, t, st, import };
    int rc = weir__checkpoint_flow_state(cp, fs);
    if (!rc)
        rc = check_batches(&k, fs, gen, next_batch);
    if (!rc)
        rc = check_unrecorded(&k, fs, gen, next_batch);
    if (!rc && manifest)
        rc = check_manifest(&k, fs, gen);
    return rc;
}
