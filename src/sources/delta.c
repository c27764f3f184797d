/*
 * The Delta source: a streaming read of a Delta table, STREAM t of a
 * dataset weir stores as Delta (docs/delta.md) or STREAM delta.`path` of a
 * table another writer keeps (spark.readStream.format("delta").load(path)).
 * It follows the table's log as Spark's Delta source does
 * (docs/delta.md#streaming-reads):
 *
 *   - The position is a log version: a batch reads [start, end), the
 *     data files added by the commits start .. end - 1, end being the
 *     latest version + 1. The first batch reads the table as its latest
 *     version holds it (its active files).
 *   - A commit in the range that removes data (an overwrite, a full
 *     refresh, a delete) cannot be followed: it is Delta's
 *     DELTA_SOURCE_TABLE_IGNORE_CHANGES when it also adds rows, else
 *     DELTA_SOURCE_IGNORE_DELETE, unless the reader has the table property
 *     pipelines.skipChangeCommits, which skips such commits whole (their
 *     adds too), as Spark's skipChangeCommits option does.
 *
 * The position commits with the batch's rows in the flow's transaction
 * (the engine's checkpoint row), so a crash reads each version once.
 */
#include "sources/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/delta.h"
#include "state/tables.h"
#include "store/storage.h"
#include "util/fs.h"
#include "util/str.h"

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_DELTA;
}

/* The table's folder, absolute, in arena a: a dataset's under the
 * storage, or the path of delta.`path` (relative to root_dir). */
static const char *folder(weir_arena *a, const weir_source_ctx *c,
                          const weir_input *in)
{
    weir_buf dir = WEIR_BUF_INIT;
    if (in->dataset >= 0) {
        const weir_gdataset *d = &c->g->datasets[in->dataset];
        weir__storage_delta_dir(&dir, c->st, d->location, d->catalog, d->database, d->name);
    } else {
        char *abs = weir__path_absolute(in->ref->name.parts[1], c->root_dir);
        weir__buf_puts(&dir, abs ? abs : in->ref->name.parts[1]);
        free(abs);
    }
    const char *s = dir.failed ? NULL : weir__arena_strdup(a, weir__buf_cstr(&dir));
    weir__buf_free(&dir);
    return s;
}

static const char *key(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir)
{
    if (in->dataset >= 0)
        return g->datasets[in->dataset].display;
    char *abs = weir__path_absolute(in->ref->name.parts[1], root_dir);
    const char *k = weir__arena_printf(a, "delta:%s",
                                       abs ? abs : in->ref->name.parts[1]);
    free(abs);
    return k;
}

static int oom(const weir_source_ctx *c)
{
    return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
}

/* The first commit of versions [start, end) that removes data, or NULL. */
static const weir_delta_removal *first_removal(const weir_delta_log *l,
                                               int64_t start, int64_t end)
{
    for (size_t i = 0; i < l->removals.len; i++)
        if (l->removals.items[i].version >= start &&
            l->removals.items[i].version < end)
            return &l->removals.items[i];
    return NULL;
}

static bool removes_at(const weir_delta_log *l, int64_t version)
{
    return first_removal(l, version, version + 1) != NULL;
}

/* A commit of the batch's range changed or deleted rows: Spark's error,
 * or (skipChangeCommits) a warning that its commits are skipped. */
static int changed(const weir_source_ctx *c, const weir_delta_log *l,
                   const char *src, const weir_delta_removal *r)
{
    bool adds = weir__delta_log_version_adds(l, r->version);
    if (c->t->skip_change_commits) {
        char msg[1024];
        snprintf(msg, sizeof(msg),
                 "Version %lld of the Delta table %s changed or deleted rows "
                 "(it removes %s); pipelines.skipChangeCommits is set on %s, "
                 "so flow '%s' skips each such commit whole.",
                 (long long)r->version, src, r->path, c->t->display,
                 c->f->display);
        weir__source_warn(c, msg);
        return 0;
    }
    if (adds)
        return WEIR_ERR(c->err, WEIR_ERROR,
                        "DELTA_SOURCE_TABLE_IGNORE_CHANGES",
                        "Flow '%s' reads the Delta table %s as a stream, and "
                        "its version %lld rewrites rows (it removes %s and "
                        "adds files): a stream takes only appended rows. To "
                        "skip such commits, set the table property "
                        "'pipelines.skipChangeCommits' = 'true' on %s; to "
                        "read the table as it is now, run a full refresh of "
                        "%s (weir run --full-refresh %s); to follow every "
                        "change, read it in a materialized view. The table "
                        "is at %s.",
                        c->f->display, src, (long long)r->version, r->path,
                        c->t->display, c->t->display, c->t->display, l->table);
    return WEIR_ERR(c->err, WEIR_ERROR, "DELTA_SOURCE_IGNORE_DELETE",
                    "Flow '%s' reads the Delta table %s as a stream, and its "
                    "version %lld deletes rows (it removes %s): a stream "
                    "takes only appended rows. To skip such commits, set "
                    "the table property 'pipelines.skipChangeCommits' = "
                    "'true' on %s, or run a full refresh of %s (weir run "
                    "--full-refresh %s). The table is at %s.",
                    c->f->display, src, (long long)r->version, r->path,
                    c->t->display, c->t->display, c->t->display, l->table);
}

/* The files the batch reads: the active ones (a first read), else those
 * the versions [start, end) added, less the skipped commits'. */
static int batch_files(const weir_source_ctx *c, const weir_delta_log *l,
                       const weir_source_batch *b, bool first,
                       weir_delta_add ***files, size_t *n)
{
    if (first)
        return weir__delta_log_active(l, files, n, c->arena, c->err);
    *n = 0;
    *files = weir__arena_array(c->arena, l->adds.len + 1, sizeof(**files));
    if (!*files)
        return oom(c);
    for (size_t i = 0; i < l->adds.len; i++) {
        weir_delta_add *f = l->adds.items[i];
        if (f->version >= b->start && f->version < b->end && f->data_change &&
            !removes_at(l, f->version))
            (*files)[(*n)++] = f;
    }
    return 0;
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    const char *dir = folder(c->arena, c, in);
    if (!dir)
        return oom(c);
    bool none = true;
    int64_t epoch = 0;
    /* A dataset's epoch is recorded, not checked (its log tells a full
     * refresh): a reader moved to the table source when the dataset
     * leaves Delta then finds its position is of another epoch. */
    int rc = in->dataset >= 0 ? weir__tables_epoch(c->conn,
                                                   &c->g->datasets[in->dataset],
                                                   &b->epoch, c->err)
                              : 0;
    if (!rc)
        rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &epoch, &none);
    weir_delta_log l;
    if (!rc)
        rc = weir__delta_log_read(&l, dir, c->err);
    else
        return rc;
    if (!rc && l.version < 0)
        rc = WEIR_ERR(c->err, WEIR_ESQL, "DELTA_TABLE_NOT_FOUND",
                      "Flow '%s' streams from %s, which is not a Delta table "
                      "(%s has no _delta_log commits)",
                      c->f->display, b->key, dir);
    if (!rc)
        rc = weir__delta_log_check(&l, false, c->err);
    if (!rc && none)
        b->start = 0;
    b->end = l.version + 1;
    if (!rc && b->start > b->end)
        rc = WEIR_ERR(c->err, WEIR_ERROR, "DELTA_SOURCE_VERSION_MISSING",
                      "Flow '%s' read the Delta table %s up to version %lld, "
                      "but its log now ends at version %lld (the table was "
                      "replaced). Run a full refresh of %s to read it "
                      "again.",
                      c->f->display, b->key, (long long)b->start - 1,
                      (long long)l.version, c->t->display);
    const weir_delta_removal *r = NULL;
    while (!rc && !none && (r = first_removal(&l, r ? r->version + 1 : b->start,
                                               b->end)) != NULL)
        rc = changed(c, &l, b->key, r);
    weir_delta_add **files = NULL;
    size_t n = 0;
    if (!rc)
        rc = batch_files(c, &l, b, none, &files, &n);
    weir_buf sql = WEIR_BUF_INIT;
    if (!rc)
        rc = weir__delta_render_files(&sql, &l, files, n, c->err);
    if (!rc && !(b->impl = weir__arena_strdup(c->arena, weir__buf_cstr(&sql))))
        rc = oom(c);
    weir__buf_free(&sql);
    weir__delta_log_free(&l);
    return rc;
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    (void)r;
    (void)err;
    weir__buf_puts(out, b->impl);
    return 0;
}

static void progress(const weir_source_ctx *c, const weir_source_batch *b,
                     weir_buf *d)
{
    (void)c;
    weir__buf_printf(d, ", \"start_version\": %lld, \"end_version\": %lld",
                     (long long)b->start, (long long)b->end);
}

const weir_source_kind weir__source_delta = {
    .name = "delta",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .progress = progress,
};
