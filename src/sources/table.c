/*
 * The table source, STREAM t: a pipeline table or an external table read
 * as an append-only log. Its position is a rowid; a batch reads the rows
 * [start, end) added since the flow's last batch. A pipeline table has an
 * epoch (_weir.tables) that a full refresh of it bumps: the rows a reader
 * processed are then gone (STREAMING_SOURCE_RESET); fewer rows than the
 * stored position means rows were deleted (STREAMING_SOURCE_CHANGED).
 */
#include "sources/source.h"

#include "store/storage.h"

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_TABLE;
}

static const char *key(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir)
{
    (void)a;
    (void)root_dir;
    return in->dataset >= 0 ? g->datasets[in->dataset].display : in->external;
}

/* The table's epoch in _weir.tables (0 when unknown). */
static int table_epoch(weir_conn *c, const weir_gdataset *d, int64_t *out,
                       weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT coalesce(max(epoch), 0) FROM ");
    weir__meta_table(&q, d->catalog, "tables");
    weir__buf_puts(&q, " WHERE name = ");
    weir__buf_put_sql_string(&q, d->display);
    int rc = weir__scalar_buf(c, &q, out, NULL, err);
    weir__buf_free(&q);
    return rc;
}

/* The stored table the input names; an external name is qualified with
 * the catalog and database of flow f. */
static void relation(weir_buf *out, const weir_graph *g, const weir_gflow *f,
                     const weir_input *in)
{
    if (in->dataset >= 0) {
        const weir_gdataset *d = &g->datasets[in->dataset];
        weir__storage_table_ref(out, d->catalog, d->database, d->name);
        return;
    }
    const weir_sql_name *n = &in->ref->name;
    const char *cat = n->n >= 3 ? n->parts[n->n - 3] : f->ctx_catalog;
    const char *db = n->n >= 2 ? n->parts[n->n - 2] : f->ctx_database;
    weir__storage_table_ref(out, cat, db, n->parts[n->n - 1]);
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    weir_buf rel = WEIR_BUF_INIT;
    int rc = 0;
    /* External names resolve in the streaming flow's own context. */
    relation(&rel, c->g, c->f, in);
    if (in->dataset >= 0)
        rc = table_epoch(c->conn, &c->g->datasets[in->dataset], &b->epoch,
                         c->err);
    /* Where this flow stopped reading the source, and at which epoch. */
    bool none = true;
    int64_t seen_epoch = 0;
    if (!rc)
        rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &seen_epoch, &none);
    if (!rc && !none && in->dataset >= 0 && seen_epoch != b->epoch)
        rc = WEIR_ERR(c->err, WEIR_ERROR, "STREAMING_SOURCE_RESET",
                      "The streaming source %s was fully refreshed after "
                      "flow '%s' last read it, so the rows it already "
                      "processed are gone. Full refresh %s to rebuild it "
                      "from the current source.",
                      b->key, c->f->display, c->t->display);
    /* The batch ends after the last row id; a last row id before the
     * flow's offset means rows were deleted (the message quotes the rows
     * left, not the row id). */
    weir_buf q = WEIR_BUF_INIT;
    int64_t n_rows = 0;
    if (!rc) {
        weir__buf_puts(&q, "SELECT coalesce(max(rowid) + 1, 0) FROM ");
        weir__buf_puts(&q, weir__buf_cstr(&rel));
        rc = weir__scalar_buf(c->conn, &q, &b->end, NULL, c->err);
    }
    if (!rc && b->end < b->start) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "SELECT count(*) FROM ");
        weir__buf_puts(&q, weir__buf_cstr(&rel));
        rc = weir__scalar_buf(c->conn, &q, &n_rows, NULL, c->err);
    }
    if (!rc && b->end < b->start)
        rc = WEIR_ERR(c->err, WEIR_ECORRUPT, "STREAMING_SOURCE_CHANGED",
                      "The streaming source %s has fewer rows (%lld) than flow "
                      "'%s' already processed (%lld): rows were deleted. "
                      "Streaming sources must be append-only; full refresh "
                      "%s to rebuild it.",
                      b->key, (long long)n_rows, c->f->display,
                      (long long)b->start, c->t->display);
    weir__buf_free(&q);
    weir__buf_free(&rel);
    return rc;
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    (void)err;
    weir__buf_puts(out, "(SELECT * FROM ");
    relation(out, r->g, r->flow, r->in);
    weir__buf_printf(out, " WHERE rowid >= %lld AND rowid < %lld)",
                     (long long)b->start, (long long)b->end);
    return 0;
}

const weir_source_kind weir__source_table = {
    "table", accepts, key, plan, render, NULL, NULL,
    weir__source_progress_offsets, NULL
};
