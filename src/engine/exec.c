/*
 * Flow execution and table materialization (see exec.h).
 */
#define _GNU_SOURCE
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/files.h"
#include "engine/resolve.h"
#include "engine/write.h"
#include "sinks/sink.h"
#include "events/events.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/vec.h"

/* WHERE target = '..' AND flow = '..' */
static void where_flow(weir_buf *b, const weir_gflow *f, const weir_gdataset *t)
{
    weir__buf_puts(b, " WHERE target = ");
    weir__buf_put_sql_string(b, t->display);
    weir__buf_puts(b, " AND flow = ");
    weir__buf_put_sql_string(b, f->display);
}

/* The flow's current generation and its next batch id in it, in one query
 * (0 and 0 for a flow that never ran; a full refresh's marker row has
 * batch_id -1). */
static int flow_position(weir_flow_exec *x, const weir_gdataset *t,
                         int64_t *gen, int64_t *next_batch)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, max(batch_id) + 1 FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "checkpoints");
    where_flow(&q, x->f, t);
    weir__buf_puts(&q, " GROUP BY generation ORDER BY generation DESC LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    weir__buf_free(&q);
    *gen = *next_batch = 0;
    if (!rc && r->n_rows) {
        const char *v;
        *gen = (v = weir__rows_get(r, 0, 0)) ? strtoll(v, NULL, 10) : 0;
        *next_batch = (v = weir__rows_get(r, 0, 1)) ? strtoll(v, NULL, 10) : 0;
    }
    weir__rows_free(r);
    return rc;
}

/* ---- checkpoint integrity ---------------------------------------------------
 * _weir.flow_state holds one row per flow: the generation, how many batches
 * it committed in it and how many files it recorded, written in each
 * batch's transaction. Checkpoint or manifest rows that went missing (edited
 * with stock DuckDB, a restored backup of one table) would make the flow
 * read its sources again from the start: duplicates. The flow stops
 * instead. */

typedef struct flow_state {
    bool found;
    int64_t gen, batches, files;
} flow_state;

static int read_flow_state(weir_flow_exec *x, const weir_gdataset *t,
                           flow_state *fs)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, batches, files FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "flow_state");
    where_flow(&q, x->f, t);
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    weir__buf_free(&q);
    memset(fs, 0, sizeof(*fs));
    if (!rc && r->n_rows) {
        fs->found = true;
        const char *v;
        fs->gen = (v = weir__rows_get(r, 0, 0)) ? strtoll(v, NULL, 10) : 0;
        fs->batches = (v = weir__rows_get(r, 0, 1)) ? strtoll(v, NULL, 10) : 0;
        fs->files = (v = weir__rows_get(r, 0, 2)) ? strtoll(v, NULL, 10) : 0;
    }
    weir__rows_free(r);
    return rc;
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
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "files");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, x->f->display);
    weir__buf_printf(&q, " AND generation = %lld", (long long)gen);
    int64_t n = 0;
    int rc = weir__scalar_buf(x->conn, &q, &n, NULL, &x->err);
    weir__buf_free(&q);
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
        /* Each batch's rows once (a batch has a row per source), in each
         * flow's latest generation. */
        weir__buf_puts(&q, "SELECT (SELECT count(*) FROM ");
        weir__phys(&q, t);
        weir__buf_puts(&q, "), (SELECT coalesce(sum(r), 0) FROM (SELECT "
                           "max(c.rows) AS r FROM ");
        weir__meta_table(&q, cat, "checkpoints");
        weir__buf_puts(&q, " AS c JOIN (SELECT flow, max(generation) AS g FROM ");
        weir__meta_table(&q, cat, "checkpoints");
        weir__buf_puts(&q, " WHERE target = ");
        weir__buf_put_sql_string(&q, t->display);
        weir__buf_puts(&q, " GROUP BY flow) AS m ON c.flow = m.flow AND "
                           "c.generation = m.g WHERE c.target = ");
        weir__buf_put_sql_string(&q, t->display);
        weir__buf_puts(&q, " AND c.batch_id >= 0 GROUP BY c.flow, c.batch_id))");
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

/* Record the batch in flow_state (in the batch's transaction). */
static int put_flow_state(weir_flow_exec *x, const weir_gdataset *t,
                          int64_t gen, int64_t batches, int64_t new_files)
{
    const char *cat = weir__state_catalog(x->g, t);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__meta_table(&q, cat, "flow_state");
    weir__buf_printf(&q, " SET generation = %lld, batches = %lld, files = "
                         "CASE WHEN generation = %lld THEN files ELSE 0 END "
                         "+ %lld, update_id = ",
                     (long long)gen, (long long)batches, (long long)gen,
                     (long long)new_files);
    weir__buf_put_sql_string(&q, x->update_id);
    where_flow(&q, x->f, t);
    int64_t changed = 0;
    int rc = q.failed ? WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(x->conn, weir__buf_cstr(&q), &changed,
                                        &x->err);
    if (!rc && changed == 0) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "INSERT INTO ");
        weir__meta_table(&q, cat, "flow_state");
        weir__buf_puts(&q, " VALUES (");
        weir__buf_put_sql_string(&q, x->f->display);
        weir__buf_puts(&q, ", ");
        weir__buf_put_sql_string(&q, t->display);
        weir__buf_printf(&q, ", %lld, %lld, %lld, ", (long long)gen,
                         (long long)batches, (long long)new_files);
        weir__buf_put_sql_string(&q, x->update_id);
        weir__buf_putc(&q, ')');
        rc = weir__exec_buf(x->conn, &q, &x->err);
    }
    weir__buf_free(&q);
    return rc;
}

/* ---- table sources -------------------------------------------------------- */

typedef struct batch_plan {
    WEIR_VEC(weir_source_batch) sources;
    weir_arena arena;
    int64_t gen, batch_id;
} batch_plan;

/* The end offset of this flow's last batch from a source in the current
 * generation, and the source's epoch then; *none when it never read it. */
static int source_offset(weir_flow_exec *x, const batch_plan *p,
                         const weir_gdataset *t, const char *key,
                         int64_t *offset, int64_t *epoch, bool *none)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT max(end_offset), arg_max(source_epoch, batch_id) "
                       "FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "checkpoints");
    where_flow(&q, x->f, t);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id >= 0 AND source = ",
                     (long long)p->gen);
    weir__buf_put_sql_string(&q, key);
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    weir__buf_free(&q);
    *offset = *epoch = 0;
    *none = true;
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0)) {
        *none = false;
        *offset = strtoll(weir__rows_get(r, 0, 0), NULL, 10);
        const char *e = weir__rows_get(r, 0, 1);
        *epoch = e ? strtoll(e, NULL, 10) : 0;
    }
    weir__rows_free(r);
    return rc;
}

static int plan_table_source(weir_flow_exec *x, batch_plan *p,
                             const weir_gdataset *t, const weir_input *in)
{
    const weir_graph *g = x->g;
    weir_source_batch b;
    memset(&b, 0, sizeof(b));
    weir_buf rel = WEIR_BUF_INIT;
    if (in->dataset >= 0) {
        const weir_gdataset *src = &g->datasets[in->dataset];
        b.key = src->display;
        weir__phys(&rel, src);
        int rc = weir__table_epoch(x->conn, src, &b.epoch, &x->err);
        if (rc) {
            weir__buf_free(&rel);
            return rc;
        }
    } else {
        b.key = in->external;
        const weir_sql_name *n = &in->ref->name;
        const char *cat = n->n >= 3 ? n->parts[n->n - 3] : x->f->ctx_catalog;
        const char *db = n->n >= 2 ? n->parts[n->n - 2] : x->f->ctx_database;
        weir__storage_table_ref(&rel, cat, db, n->parts[n->n - 1]);
    }
    /* Where this flow stopped reading the source, and at which epoch. */
    bool none = true;
    int64_t seen_epoch = 0;
    int rc = source_offset(x, p, t, b.key, &b.start, &seen_epoch, &none);
    if (!rc && !none && in->dataset >= 0 && seen_epoch != b.epoch)
        rc = WEIR_ERR(&x->err, WEIR_ERROR, "STREAMING_SOURCE_RESET",
                      "The streaming source %s was fully refreshed after "
                      "flow '%s' last read it, so the rows it already "
                      "processed are gone. Full refresh %s to rebuild it "
                      "from the current source.",
                      b.key, x->f->display, t->display);
    /* The batch ends after the last row id; a last row id before the
     * flow's offset means rows were deleted (the message quotes the rows
     * left, not the row id). */
    weir_buf q = WEIR_BUF_INIT;
    int64_t n_rows = 0;
    if (!rc) {
        weir__buf_puts(&q, "SELECT coalesce(max(rowid) + 1, 0), count(*) FROM ");
        weir__buf_puts(&q, weir__buf_cstr(&rel));
        weir_rows *r = NULL;
        rc = weir__query_buf(x->conn, &q, &r, &x->err);
        if (!rc && r->n_rows && r->n_cols == 2) {
            b.end = strtoll(weir__rows_get(r, 0, 0), NULL, 10);
            n_rows = strtoll(weir__rows_get(r, 0, 1), NULL, 10);
        }
        weir__rows_free(r);
    }
    if (!rc && b.end < b.start)
        rc = WEIR_ERR(&x->err, WEIR_ECORRUPT, "STREAMING_SOURCE_CHANGED",
                      "The streaming source %s has fewer rows (%lld) than flow "
                      "'%s' already processed (%lld): rows were deleted. "
                      "Streaming sources must be append-only; full refresh "
                      "%s to rebuild it.",
                      b.key, (long long)n_rows, x->f->display,
                      (long long)b.start, t->display);
    weir__buf_free(&q);
    weir__buf_free(&rel);
    if (!rc && WEIR_VEC_PUSH(&p->sources, b))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* ---- range sources ------------------------------------------------------------ */

/* STREAM range(...): its rows are a fixed sequence; the offset is a row
 * number, so the first batch reads them all and later ones nothing. */
static int plan_range_source(weir_flow_exec *x, batch_plan *p,
                             const weir_gdataset *t, const weir_input *in)
{
    weir_source_batch b;
    memset(&b, 0, sizeof(b));
    b.key = in->external;
    long long start, end, step;
    if (!weir__range_bounds(in->tvf, &start, &end, &step))
        return WEIR_ERR(&x->err, WEIR_ESQL, "UNSUPPORTED_STREAMING_SOURCE",
                        "STREAM range(...) needs literal integer arguments");
    long long n = step > 0 ? (end - start + step - 1) / step
                           : (start - end - step - 1) / -step;
    b.end = n > 0 ? n : 0;
    bool none;
    int64_t epoch;
    int rc = source_offset(x, p, t, b.key, &b.start, &epoch, &none);
    if (!rc && b.start > b.end)
        b.start = b.end;
    if (!rc && WEIR_VEC_PUSH(&p->sources, b))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* ---- file sources ------------------------------------------------------------ */

/* Append a sentence to the flow's warning event (cut with "..." when it
 * would not fit). */
static void add_warning(weir_flow_exec *x, const char *text)
{
    size_t have = strlen(x->warning), room = sizeof(x->warning);
    if (have + 4 >= room)
        return;
    int n = snprintf(x->warning + have, room - have, "%s%s", have ? " " : "",
                     text);
    if (n < 0 || (size_t)n >= room - have)
        memcpy(x->warning + room - 4, "...", 4);
}

static bool is_unstable(const weir_flow_exec *x, const char *path)
{
    for (size_t i = 0; i < x->n_unstable; i++)
        if (!strcmp(x->unstable[i], path))
            return true;
    return false;
}

/* Files DuckDB cannot be given by name: named in the warning, skipped. */
static void warn_unreadable(weir_flow_exec *x, const weir_file_list *bad)
{
    if (!bad->len)
        return;
    weir_buf w = WEIR_BUF_INIT;
    weir__buf_printf(&w, "Flow '%s' skipped %zu file%s whose name cannot be "
                         "read:",
                     x->f->display, bad->len, bad->len == 1 ? "" : "s");
    for (size_t i = 0; i < bad->len && i < 5; i++) {
        weir__buf_puts(&w, i ? "; " : " ");
        weir__fs_put_escaped_name(&w, bad->items[i].path);
        weir__buf_printf(&w, " (%s)",
                         weir__fs_unreadable_name(bad->items[i].path));
    }
    weir__buf_puts(&w, bad->len > 5 ? "; ..." : "");
    weir__buf_puts(&w, bad->len == 1 ? ". Rename it to ingest it."
                                     : ". Rename them to ingest them.");
    add_warning(x, weir__buf_cstr(&w));
    weir__buf_free(&w);
}

/* Files the flow ingested before, by path: their size and mtime then. */
typedef struct seen_file {
    uint64_t size;
    int64_t mtime;
} seen_file;

static int plan_file_source(weir_flow_exec *x, batch_plan *p,
                            const weir_gdataset *t, const weir_input *in)
{
    weir_source_batch b;
    memset(&b, 0, sizeof(b));
    b.is_files = true;
    b.key = weir__source_key(&p->arena, x->f, in, x->root_dir);
    b.file = weir__arena_alloc(&p->arena, sizeof(*b.file));
    if (!b.file)
        return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    weir_file_list files = { NULL, 0, 0 }, bad = { NULL, 0, 0 };
    b.file->infer = x->infer;
    int rc = weir__file_opts(&b.file->opts, in->tvf, &x->err);
    if (!rc)
        rc = weir__files_list(&files, &bad, &b.file->folder_missing,
                              x->root_dir, &b.file->opts, &x->err);
    if (rc)
        return rc;
    warn_unreadable(x, &bad);
    weir__fs_list_free(&bad);
    /* Files this flow already ingested in this generation. */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT path, size, mtime FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "files");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, x->f->display);
    weir__buf_printf(&q, " AND generation = %lld AND source = ",
                     (long long)p->gen);
    weir__buf_put_sql_string(&q, b.key);
    weir__buf_puts(&q, " ORDER BY batch_id"); /* the latest read wins */
    weir_rows *seen = NULL;
    rc = weir__query_buf(x->conn, &q, &seen, &x->err);
    weir__buf_free(&q);
    weir_map known = WEIR_MAP_INIT(false);
    seen_file *was = rc ? NULL
                        : weir__arena_array(&p->arena, seen->n_rows + 1,
                                            sizeof(*was));
    if (!rc && !was)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < seen->n_rows; i++) {
        const char *path = weir__rows_get(seen, i, 0);
        const char *size = weir__rows_get(seen, i, 1);
        const char *mtime = weir__rows_get(seen, i, 2);
        was[i].size = size ? strtoull(size, NULL, 10) : 0;
        was[i].mtime = mtime ? strtoll(mtime, NULL, 10) : 0;
        if (path && weir__map_put(&known, path, &was[i]))
            rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir_buf changed = WEIR_BUF_INIT, unstable = WEIR_BUF_INIT;
    size_t n_changed = 0, n_unstable = 0;
    if (!rc) {
        b.files = weir__arena_array(&p->arena, files.len + 1, sizeof(char *));
        b.sizes = weir__arena_array(&p->arena, files.len + 1, sizeof(uint64_t));
        b.mtimes = weir__arena_array(&p->arena, files.len + 1, sizeof(int64_t));
        for (size_t i = 0; b.files && i < files.len; i++) {
            const weir_file_info *fi = &files.items[i];
            const seen_file *old = weir__map_get(&known, fi->path);
            bool same = old && old->size == fi->size && old->mtime == fi->mtime_us;
            if (old && !same && b.file->opts.allow_overwrites)
                old = NULL; /* read again, in full */
            if (old) {
                /* Like Auto Loader, a file is ingested once; a change to
                 * it afterwards is reported, not read. */
                if (!same) {
                    weir__buf_puts(&changed, n_changed++ ? "; " : " ");
                    weir__fs_put_escaped_name(&changed, fi->path);
                    weir__buf_printf(&changed, " (%llu bytes when ingested, "
                                               "%llu now)",
                                     (unsigned long long)old->size,
                                     (unsigned long long)fi->size);
                }
                continue;
            }
            if (is_unstable(x, fi->path)) {
                weir__buf_puts(&unstable, n_unstable++ ? "; " : " ");
                weir__fs_put_escaped_name(&unstable, fi->path);
                continue;
            }
            b.files[b.n_files] = weir__arena_strdup(&p->arena, fi->path);
            b.sizes[b.n_files] = fi->size;
            b.mtimes[b.n_files] = fi->mtime_us;
            b.n_files++;
        }
        if (weir__arena_failed(&p->arena))
            rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (n_changed) {
        weir_buf w = WEIR_BUF_INIT;
        weir__buf_printf(&w, "Flow '%s': %zu file%s changed after %s ingested "
                             "and %s not read again (a file is ingested "
                             "once unless allowOverwrites is true; write "
                             "files elsewhere and move them in when "
                             "complete):%s.",
                         x->f->display, n_changed, n_changed == 1 ? "" : "s",
                         n_changed == 1 ? "it was" : "they were",
                         n_changed == 1 ? "is" : "are", weir__buf_cstr(&changed));
        add_warning(x, weir__buf_cstr(&w));
        weir__buf_free(&w);
    }
    if (n_unstable) {
        weir_buf w = WEIR_BUF_INIT;
        weir__buf_printf(&w, "Flow '%s': %zu file%s changed while this update "
                             "read %s and %s left for a later update:%s.",
                         x->f->display, n_unstable, n_unstable == 1 ? "" : "s",
                         n_unstable == 1 ? "it" : "them",
                         n_unstable == 1 ? "is" : "are",
                         weir__buf_cstr(&unstable));
        add_warning(x, weir__buf_cstr(&w));
        weir__buf_free(&w);
    }
    weir__buf_free(&changed);
    weir__buf_free(&unstable);
    weir__map_free(&known);
    weir__rows_free(seen);
    weir__fs_list_free(&files);
    /* The schema this batch reads with (stored, inferred, evolved). */
    if (!rc && b.n_files)
        rc = weir__files_plan(b.file, &p->arena, x->conn,
                              weir__state_catalog(x->g, t), x->f->display,
                              p->gen, b.key, b.files, b.n_files, &x->err);
    if (!rc && !b.n_files) {
        /* Nothing new: the stored schema (if any) shapes the empty read. */
        bool found = false;
        weir_error ignore;
        if (weir__files_plan_stored(b.file, &p->arena, x->conn,
                                    weir__state_catalog(x->g, t), x->f->display,
                                    p->gen, b.key, &found, &ignore) ||
            !found)
            b.file->schema.n = 0;
    }
    if (!rc && WEIR_VEC_PUSH(&p->sources, b))
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* After the batch was read: a file whose size or modification time is no
 * longer what the listing saw was being written while read, so the batch
 * may hold part of it. It is remembered, and the caller reads the batch
 * again without it (a later update ingests it once it is stable). */
static int check_files_stable(weir_flow_exec *x, const batch_plan *p)
{
    size_t n_new = 0;
    for (size_t i = 0; i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        for (size_t k = 0; b->is_files && k < b->n_files; k++) {
            weir_file_info now;
            weir_error ignore;
            int src = weir__fs_stat(&now, b->files[k], &ignore);
            if (src == WEIR_ENOTFOUND)
                continue; /* moved away after it was read: it was complete */
            if (!src) {
                free(now.path);
                if (now.size == b->sizes[k] && now.mtime_us == b->mtimes[k])
                    continue;
            }
            char *copy = strdup(b->files[k]);
            char **grown = copy ? realloc(x->unstable, (x->n_unstable + 1) *
                                                           sizeof(char *))
                                : NULL;
            if (!grown) {
                free(copy);
                return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
            }
            x->unstable = grown;
            x->unstable[x->n_unstable++] = copy;
            n_new++;
        }
    }
    if (!n_new)
        return 0;
    x->files_changed = true;
    return WEIR_ERR(&x->err, WEIR_ERROR, "FILE_CHANGED_DURING_READ",
                    "Flow '%s': %zu file%s changed while the update read them "
                    "(first: %s), again and again; write files elsewhere and "
                    "move them in when complete.",
                    x->f->display, n_new, n_new == 1 ? "" : "s",
                    x->unstable[x->n_unstable - n_new]);
}

/* Inputs of a flow including those of the views it reads, which stream in
 * the reader's flow. */
static int plan_inputs(weir_flow_exec *x, batch_plan *p, const weir_gdataset *t,
                       const weir_gflow *f, int depth)
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
                    rc = plan_inputs(x, p, t, &g->flows[d->flows[0]], depth + 1);
                if (rc)
                    return rc;
                continue;
            }
        }
        if (!in->streaming)
            continue;
        const char *key = in->is_files
                              ? weir__source_key(&p->arena, f, in, x->root_dir)
                          : in->dataset >= 0 ? g->datasets[in->dataset].display
                                             : in->external;
        if (in->is_range) {
            bool seen = false;
            for (size_t k = 0; k < p->sources.len && !seen; k++)
                seen = strcmp(p->sources.items[k].key, key) == 0;
            if (!seen && (rc = plan_range_source(x, p, t, in)))
                return rc;
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < p->sources.len && !dup; k++)
            dup = key && strcmp(p->sources.items[k].key, key) == 0;
        if (dup)
            continue;
        rc = in->is_files ? plan_file_source(x, p, t, in)
                          : plan_table_source(x, p, t, in);
        if (rc)
            return rc;
    }
    return 0;
}

static bool plan_has_data(const batch_plan *p)
{
    for (size_t i = 0; i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        if (b->is_files ? b->n_files > 0 : b->end > b->start)
            return true;
    }
    return false;
}

static int record_checkpoint(weir_flow_exec *x, const batch_plan *p,
                             const weir_gdataset *t)
{
    const char *cat = weir__state_catalog(x->g, t);
    int64_t new_files = 0;
    for (size_t i = 0; i < p->sources.len; i++)
        if (p->sources.items[i].is_files)
            new_files += (int64_t)p->sources.items[i].n_files;
    if (put_flow_state(x, t, p->gen, p->batch_id + 1, new_files))
        return x->err.code;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__meta_table(&q, cat, "checkpoints");
    weir__buf_puts(&q, " VALUES ");
    for (size_t i = 0; i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        int64_t end = b->is_files ? (int64_t)b->n_files : b->end;
        if (i)
            weir__buf_puts(&q, ", ");
        weir__buf_putc(&q, '(');
        weir__buf_put_sql_string(&q, x->f->display);
        weir__buf_puts(&q, ", ");
        weir__buf_put_sql_string(&q, t->display);
        weir__buf_printf(&q, ", %lld, %lld, ", (long long)p->gen,
                         (long long)p->batch_id);
        weir__buf_put_sql_string(&q, b->key);
        weir__buf_printf(&q, ", %lld, %lld, %lld, now()::TIMESTAMP, ",
                         (long long)b->epoch, (long long)end,
                         (long long)x->rows_written);
        weir__buf_put_sql_string(&q, x->update_id);
        weir__buf_putc(&q, ')');
    }
    int rc = weir__exec_buf(x->conn, &q, &x->err);
    /* New or evolved schemas of file sources. */
    for (size_t i = 0; !rc && i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        if (!b->file || !b->file->store_schema || !b->n_files)
            continue;
        weir__buf_clear(&q);
        weir__files_store_schema(&q, b->file, cat, x->f->display, p->gen,
                                 b->key, x->update_id);
        rc = weir__exec_buf(x->conn, &q, &x->err);
    }
    /* The file manifest, in chunks to keep statements reasonable. */
    for (size_t i = 0; !rc && i < p->sources.len; i++) {
        const weir_source_batch *b = &p->sources.items[i];
        for (size_t k = 0; !rc && k < b->n_files; k += 500) {
            weir__buf_clear(&q);
            weir__buf_puts(&q, "INSERT INTO ");
            weir__meta_table(&q, cat, "files");
            weir__buf_puts(&q, " VALUES ");
            for (size_t j = k; j < b->n_files && j < k + 500; j++) {
                if (j > k)
                    weir__buf_puts(&q, ", ");
                weir__buf_putc(&q, '(');
                weir__buf_put_sql_string(&q, x->f->display);
                weir__buf_printf(&q, ", %lld, ", (long long)p->gen);
                weir__buf_put_sql_string(&q, b->key);
                weir__buf_puts(&q, ", ");
                weir__buf_put_sql_string(&q, b->files[j]);
                weir__buf_printf(&q, ", %llu, %lld, %lld, ",
                                 (unsigned long long)b->sizes[j],
                                 (long long)b->mtimes[j], (long long)p->batch_id);
                weir__buf_put_sql_string(&q, x->update_id);
                weir__buf_putc(&q, ')');
            }
            rc = weir__exec_buf(x->conn, &q, &x->err);
        }
    }
    weir__buf_free(&q);
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
        if (b->is_files && b->file && b->file->folder_missing) {
            weir__buf_puts(d, ", \"new_files\": 0, \"missing\": true}");
            snprintf(x->note, sizeof(x->note),
                     "Flow '%s': the source path %s does not exist yet; it "
                     "read nothing and will pick files up once they arrive.",
                     x->f->display, b->key + strlen("files:"));
        }
        else if (b->is_files)
            weir__buf_printf(d, ", \"new_files\": %zu%s}", b->n_files,
                             b->file && b->file->store_schema
                                 ? ", \"schema_changed\": true"
                                 : "");
        else
            weir__buf_printf(d, ", \"start_offset\": %lld, \"end_offset\": %lld}",
                             (long long)b->start, (long long)b->end);
    }
    weir__buf_puts(d, "]}");
}

/* Columns the batch has and the table lacks (a file source's schema
 * evolved in this update, or an upstream table gained columns) are added
 * to the table in the flow's transaction, as additive evolution. */
static int add_new_columns(weir_flow_exec *x, const weir_gdataset *t,
                           const char *sql)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    int rc = weir__conn_describe(x->conn, sql, &cols, &n, &a, &x->err);
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
        weir__buf_printf(&q, " %s;",
                         strcmp(cols[i].type, "\"NULL\"") ? cols[i].type
                                                           : "INTEGER");
    }
    if (!rc && q.len)
        rc = weir__exec_buf(x->conn, &q, &x->err);
    weir__buf_free(&q);
    weir__arena_free(&a);
    return rc;
}

static int insert_rows(weir_flow_exec *x, const weir_gdataset *t,
                       const weir_source_batch *batches, size_t n_batches)
{
    weir_resolve_ctx ctx = { WEIR_RESOLVE_EXECUTE, x->g, x->st, x->root_dir,
                             batches, n_batches, false, x->infer };
    ctx.careful_files = x->careful_files;
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__resolve_flow_sql(&sql, &ctx, x->f, &x->err);
    if (!rc && sql.failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && t->kind == WEIR_STREAMING_TABLE)
        rc = add_new_columns(x, t, weir__buf_cstr(&sql));
    if (!rc)
        rc = weir__write_batch(x, t, weir__buf_cstr(&sql), false);
    weir__buf_free(&sql);
    return rc;
}

/* ---- sinks ----------------------------------------------------------------- */

/* What a sink format needs to name and find one batch's files. */
typedef struct sink_names {
    char stage[4096];
    char state_id[64];
} sink_names;

/* The random id of the catalog state holding the target's checkpoints
 * (storage.c makes it with the _weir schema); "" when there is none. */
static int state_id(weir_flow_exec *x, const weir_gdataset *t, char *out,
                    size_t size)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT value FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "meta");
    weir__buf_puts(&q, " WHERE key = 'state_id' ORDER BY value LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    weir__buf_free(&q);
    out[0] = '\0';
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0))
        weir__str_copy(out, size, weir__rows_get(r, 0, 0));
    weir__rows_free(r);
    return rc;
}

static int sink_batch(weir_flow_exec *x, const weir_gdataset *t, int64_t gen,
                      int64_t batch_id, weir_sink_batch *b, sink_names *n)
{
    memset(b, 0, sizeof(*b));
    n->stage[0] = n->state_id[0] = '\0';
    b->sink = t->name;
    b->flow = x->f->display;
    b->format = t->def->format ? t->def->format : "";
    b->options = t->def->options;
    b->n_options = t->def->n_options;
    b->root_dir = x->root_dir;
    /* A staging folder per flow, named after the sink, the flow and a hash
     * of the flow's name; the names are encoded so that none reaches
     * outside <storage>/sinks. */
    unsigned long h = 5381;
    for (const char *c = x->f->display; *c; c++)
        h = h * 33 + (unsigned char)*c;
    weir_buf p = WEIR_BUF_INIT;
    weir__buf_printf(&p, "%s/sinks/", x->st->root);
    weir__path_put_name(&p, t->name);
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
    if (!rc)
        rc = state_id(x, t, n->state_id, sizeof(n->state_id));
    b->stage_dir = n->stage;
    b->state_id = n->state_id;
    b->generation = gen;
    b->batch_id = batch_id;
    b->update_id = x->update_id;
    return rc;
}

static void where_sink_flow(weir_buf *q, const weir_flow_exec *x,
                            const weir_gdataset *t)
{
    weir__buf_puts(q, " WHERE sink = ");
    weir__buf_put_sql_string(q, t->name);
    weir__buf_puts(q, " AND flow = ");
    weir__buf_put_sql_string(q, x->f->display);
}

/* Publish batches whose checkpoint committed but whose publication was not
 * recorded (a crash in between). Runs outside the flow's transaction. */
static int sink_recover(weir_flow_exec *x, const weir_gdataset *t,
                        const weir_sink_format *fmt)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, batch_id FROM ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "sink_batches");
    where_sink_flow(&q, x, t);
    weir__buf_puts(&q, " AND state = 'committed' ORDER BY generation, batch_id");
    weir_rows *r = NULL;
    int rc = weir__query_buf(x->conn, &q, &r, &x->err);
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        weir_sink_batch b;
        sink_names names;
        rc = sink_batch(x, t, strtoll(weir__rows_get(r, i, 0), NULL, 10),
                        strtoll(weir__rows_get(r, i, 1), NULL, 10), &b, &names);
        if (!rc)
            rc = fmt->publish(&b, &x->err);
        if (!rc) {
            weir__buf_clear(&q);
            weir__buf_puts(&q, "UPDATE ");
            weir__meta_table(&q, weir__state_catalog(x->g, t), "sink_batches");
            weir__buf_puts(&q, " SET state = 'published'");
            where_sink_flow(&q, x, t);
            weir__buf_printf(&q, " AND generation = %lld AND batch_id = %lld",
                             (long long)b.generation, (long long)b.batch_id);
            rc = weir__exec_buf(x->conn, &q, &x->err);
        }
    }
    weir__rows_free(r);
    weir__buf_free(&q);
    return rc;
}

/* Stage the batch and record it as committed (same transaction as the
 * checkpoint). */
static int sink_stage(weir_flow_exec *x, const weir_gdataset *t,
                      const batch_plan *p, const weir_sink_format *fmt)
{
    weir_sink_batch b;
    sink_names names;
    if (sink_batch(x, t, p->gen, p->batch_id, &b, &names))
        return x->err.code;
    const char *stage = names.stage;
    weir_error ignore;
    fmt->discard(&b, &ignore); /* leftovers of a crashed attempt */
    weir_resolve_ctx ctx = { WEIR_RESOLVE_EXECUTE, x->g, x->st, x->root_dir,
                             p->sources.items, p->sources.len, false, x->infer };
    ctx.careful_files = x->careful_files;
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__resolve_flow_sql(&sql, &ctx, x->f, &x->err);
    if (!rc && sql.failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc) {
        rc = weir__fs_mkdirs(stage, &x->err);
        if (!rc)
            rc = fmt->stage(x->conn, &b, weir__buf_cstr(&sql), &x->rows_written,
                            &x->err);
    }
    if (!rc) {
        weir__buf_clear(&sql);
        weir__buf_puts(&sql, "INSERT INTO ");
        weir__meta_table(&sql, weir__state_catalog(x->g, t), "sink_batches");
        weir__buf_puts(&sql, " VALUES (");
        weir__buf_put_sql_string(&sql, x->f->display);
        weir__buf_puts(&sql, ", ");
        weir__buf_put_sql_string(&sql, t->name);
        weir__buf_printf(&sql, ", %lld, %lld, 'committed', ",
                         (long long)p->gen, (long long)p->batch_id);
        weir__buf_put_sql_string(&sql, x->update_id);
        weir__buf_printf(&sql, ", now()::TIMESTAMP, %lld)",
                         (long long)x->rows_written);
        rc = weir__exec_buf(x->conn, &sql, &x->err);
    }
    weir__buf_free(&sql);
    if (!rc) {
        x->sink_format = fmt;
        x->sink_gen = p->gen;
        x->sink_batch_id = p->batch_id;
    }
    return rc;
}

/* After the commit: make the batch visible and record it. */
static int sink_publish(weir_flow_exec *x, const weir_gdataset *t)
{
    weir_sink_batch b;
    sink_names names;
    int rc = sink_batch(x, t, x->sink_gen, x->sink_batch_id, &b, &names);
    if (!rc)
        rc = x->sink_format->publish(&b, &x->err);
    if (rc)
        return rc; /* recovered by the next update */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__meta_table(&q, weir__state_catalog(x->g, t), "sink_batches");
    weir__buf_puts(&q, " SET state = 'published'");
    where_sink_flow(&q, x, t);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id = %lld",
                     (long long)b.generation, (long long)b.batch_id);
    rc = weir__exec_buf(x->conn, &q, &x->err);
    weir__buf_free(&q);
    return rc;
}

static int exec_streaming(weir_flow_exec *x, const weir_gdataset *t)
{
    batch_plan p;
    memset(&p, 0, sizeof(p));
    weir__arena_init(&p.arena);
    int rc = flow_position(x, t, &p.gen, &p.batch_id);
    flow_state fs;
    if (!rc)
        rc = read_flow_state(x, t, &fs);
    if (!rc)
        rc = check_batches(x, t, &fs, p.gen, p.batch_id);
    if (!rc)
        rc = check_unrecorded(x, t, &fs, p.gen, p.batch_id);
    if (!rc)
        rc = check_manifest(x, t, &fs, p.gen);
    if (!rc)
        rc = plan_inputs(x, &p, t, x->f, 0);
    if (!rc && !plan_has_data(&p)) {
        x->no_new_data = true;
    } else if (!rc && t->kind == WEIR_SINK) {
        const weir_sink_format *fmt = weir__sink_format(t->def->format);
        rc = fmt ? sink_stage(x, t, &p, fmt)
                 : WEIR_ERR(&x->err, WEIR_EINVAL, "UNSUPPORTED_SINK_FORMAT",
                            "sink format '%s' is not supported",
                            t->def->format ? t->def->format : "");
        if (!rc)
            rc = check_files_stable(x, &p);
        if (rc)
            weir__files_explain_error(&x->err);
        if (!rc)
            rc = record_checkpoint(x, &p, t);
    } else if (!rc) {
        rc = insert_rows(x, t, p.sources.items, p.sources.len);
        if (rc)
            weir__files_explain_error(&x->err);
        if (!rc)
            rc = check_files_stable(x, &p);
        if (!rc)
            rc = record_checkpoint(x, &p, t);
    }
    if (!rc)
        plan_details(x, &p);
    WEIR_VEC_FREE(&p.sources);
    weir__arena_free(&p.arena);
    return rc;
}

static int exec_once(weir_flow_exec *x, const weir_gdataset *t)
{
    /* A once flow's batch is batch 0 of its generation. */
    int64_t gen = 0, done = 0;
    int rc = flow_position(x, t, &gen, &done);
    flow_state fs;
    if (!rc)
        rc = read_flow_state(x, t, &fs);
    if (!rc)
        rc = check_batches(x, t, &fs, gen, done ? 1 : 0);
    if (!rc)
        rc = check_unrecorded(x, t, &fs, gen, done ? 1 : 0);
    if (rc)
        return rc;
    if (done) {
        x->idle = true;
        return 0;
    }
    rc = insert_rows(x, t, NULL, 0);
    if (!rc)
        rc = put_flow_state(x, t, gen, 1, 0);
    if (!rc) {
        weir_buf q = WEIR_BUF_INIT;
        weir__buf_puts(&q, "INSERT INTO ");
        weir__meta_table(&q, weir__state_catalog(x->g, t), "checkpoints");
        weir__buf_puts(&q, " VALUES (");
        weir__buf_put_sql_string(&q, x->f->display);
        weir__buf_puts(&q, ", ");
        weir__buf_put_sql_string(&q, t->display);
        weir__buf_printf(&q, ", %lld, 0, '__once__', 0, 0, %lld, "
                             "now()::TIMESTAMP, ",
                         (long long)gen, (long long)x->rows_written);
        weir__buf_put_sql_string(&q, x->update_id);
        weir__buf_putc(&q, ')');
        rc = weir__exec_buf(x->conn, &q, &x->err);
        weir__buf_free(&q);
    }
    return rc;
}

static int exec_mv(weir_flow_exec *x, const weir_gdataset *t)
{
    weir_resolve_ctx ctx = { WEIR_RESOLVE_EXECUTE, x->g, x->st, x->root_dir,
                             NULL, 0, false, x->infer };
    weir_buf sql = WEIR_BUF_INIT;
    int rc = weir__resolve_flow_sql(&sql, &ctx, x->f, &x->err);
    if (!rc && sql.failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && t->def->n_columns) {
        /* A declared schema: recreate the table with it, then append. */
        weir_buf ddl = WEIR_BUF_INIT;
        weir__buf_puts(&ddl, "CREATE OR REPLACE TABLE ");
        weir__phys(&ddl, t);
        weir__buf_putc(&ddl, ' ');
        weir__column_defs(&ddl, &t->schema);
        rc = weir__exec_buf(x->conn, &ddl, &x->err);
        weir__buf_free(&ddl);
        if (!rc)
            rc = weir__write_batch(x, t, weir__buf_cstr(&sql), false);
    } else if (!rc) {
        rc = weir__write_batch(x, t, weir__buf_cstr(&sql), true);
    }
    weir__buf_clear(&sql);
    weir__comments(&sql, t);
    if (!rc && sql.len > 2) {
        /* weir__comments() starts with "; " */
        rc = weir__conn_exec(x->conn, weir__buf_cstr(&sql) + 2, NULL, &x->err);
    }
    /* rows_written: the CREATE TABLE's count, or the INSERT's rows. */
    weir__buf_free(&sql);
    return rc;
}

static int run_once(weir_flow_exec *x, const weir_gdataset *t);
static int run_stable(weir_flow_exec *x, const weir_gdataset *t);

int weir__flow_exec(weir_flow_exec *x)
{
    const weir_gdataset *t = &x->g->datasets[x->f->target];
    weir__error_clear(&x->err);
    x->rows_written = 0;
    x->idle = x->no_new_data = false;
    x->sink_format = NULL;
    x->careful_files = false;
    x->files_changed = false;
    x->note[0] = '\0';
    int rc = 0;
    if (t->kind == WEIR_SINK) {
        const weir_sink_format *fmt = weir__sink_format(t->def->format);
        if (fmt)
            rc = sink_recover(x, t, fmt);
        if (rc)
            return rc;
    }
    x->warning[0] = '\0';
    rc = weir__conn_begin(x->conn, &x->err);
    if (rc)
        return rc;
    rc = run_stable(x, t);
    if (rc && !x->careful_files && !x->files_changed &&
        weir__flow_reads_files(x->g, x->f, 0)) {
        /* A file did not fit the fast reader (a malformed record, a value
         * of another type): read this batch again, rescuing them. */
        weir__conn_rollback(x->conn);
        weir__buf_clear(&x->details);
        x->careful_files = true;
        x->rows_written = 0;
        x->warning[0] = '\0';
        x->note[0] = '\0';
        rc = weir__conn_begin(x->conn, &x->err);
        if (!rc) {
            weir__error_clear(&x->err);
            rc = run_stable(x, t);
        }
    }
    if (!rc && !x->idle && !x->no_new_data)
        rc = weir__storage_commit(x->st, x->conn, &x->err);
    if (rc || x->idle || x->no_new_data)
        weir__conn_rollback(x->conn);
    if (!rc && x->sink_format)
        rc = sink_publish(x, t);
    for (size_t i = 0; i < x->n_unstable; i++)
        free(x->unstable[i]);
    free(x->unstable);
    x->unstable = NULL;
    x->n_unstable = 0;
    return rc;
}

/* Attempts of a batch: files that change while read are left out, and the
 * batch is read again without them (a bounded number of times). */
static int run_stable(weir_flow_exec *x, const weir_gdataset *t)
{
    int rc = run_once(x, t);
    for (int attempt = 0; rc && x->files_changed && attempt < 3; attempt++) {
        weir__conn_rollback(x->conn);
        weir__buf_clear(&x->details);
        x->files_changed = false;
        x->rows_written = 0;
        x->warning[0] = '\0';
        x->note[0] = '\0';
        rc = weir__conn_begin(x->conn, &x->err);
        if (!rc) {
            weir__error_clear(&x->err);
            rc = run_once(x, t);
        }
    }
    return rc;
}

static int run_once(weir_flow_exec *x, const weir_gdataset *t)
{
    int rc;
    if (x->f->once)
        rc = exec_once(x, t);
    else if (t->kind == WEIR_MATERIALIZED_VIEW)
        rc = exec_mv(x, t);
    else if (t->kind == WEIR_STREAMING_TABLE || t->kind == WEIR_SINK)
        rc = exec_streaming(x, t);
    else
        rc = WEIR_ERR(&x->err, WEIR_EINVAL, "UNSUPPORTED_FLOW_TARGET",
                      "flows into a %s are not supported",
                      weir__kind_name(t->kind));
    return rc;
}

