/*
 * The table source, STREAM t: a pipeline table (streaming table or
 * materialized view) or an external table. A batch reads the rows added
 * since the flow's last batch, and nothing the flow read may have changed
 * since (docs/sources.md#tables):
 *
 *   - The position is a rowid: the batch reads [start, end), end being
 *     max(rowid) + 1. DuckDB renumbers row ids when it compacts deleted
 *     rows, so the position alone cannot tell what the flow read.
 *   - After each batch the checkpoint store keeps a fingerprint of every
 *     row the flow has read (their count and the sum of hash() over the
 *     table's columns then), and a sample of their row hashes. The next
 *     plan checks the rows below the position against the fingerprint in
 *     the scan that finds the new end: equal means only appends happened.
 *   - Otherwise the sample tells what happened: every row read is still
 *     there (compaction moved new rows below the position: the rows not
 *     in the sample are new); none is (the table was replaced: all of it
 *     is new data, as Spark reads rewritten files); some are
 *     (STREAMING_SOURCE_CHANGED, unless the reader has the table property
 *     pipelines.skipChangeCommits: then the rows not read before are read
 *     and the rest is accepted as changed).
 *   - A materialized view's epoch counts its recomputations: each one is
 *     a replacement. A streaming table's epoch counts full refreshes:
 *     the rows a reader processed are gone (STREAMING_SOURCE_RESET).
 */
#include "sources/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/tables.h"
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

/* The stored table the input names; an external name is qualified with
 * the catalog and database of flow f (a table of the real storage when
 * input: sample runs). */
static void relation(weir_buf *out, const weir_graph *g, const weir_gflow *f,
                     const weir_input *in, bool input)
{
    if (in->dataset >= 0) {
        const weir_gdataset *d = &g->datasets[in->dataset];
        weir__storage_table_ref(out, d->catalog, d->database, d->name);
        return;
    }
    const weir_sql_name *n = &in->ref->name;
    const char *cat = n->n >= 3 ? n->parts[n->n - 3] : f->ctx_catalog;
    const char *db = n->n >= 2 ? n->parts[n->n - 2] : f->ctx_database;
    if (input)
        weir__storage_input_table_ref(out, cat, db, n->parts[n->n - 1]);
    else
        weir__storage_table_ref(out, cat, db, n->parts[n->n - 1]);
}

/* How a batch reads the table. */
typedef enum read_mode {
    READ_NEW,    /* rows [start, end): appended since the last batch */
    READ_ALL,    /* every row below end: the table is new to the flow */
    READ_UNSEEN  /* rows below end whose hash is not in the sample */
} read_mode;

typedef struct table_batch {
    read_mode mode;
    const char *rel;        /* the table */
    const char *hash_now;   /* hash(...) over its columns now */
    const char *hash_read;  /* over the columns the fingerprint used */
    const char *sample;     /* UNSEEN: the sample's subquery */
    bool bounded;           /* UNSEEN with a partial sample: rows whose hash
                               is above its largest are new only at or past
                               the old position */
    int64_t old_start;
    const char *bound;      /* the sample's largest hash */
    bool rebase;            /* the sample restarts from the whole table */
    weir_checkpoint_table_read fp; /* what the commit records */
} table_batch;

/* Columns as the fingerprint records them: name \x1f type, \x1e between. */
static char *columns_text(weir_arena *a, const weir_db_column *cols, size_t n)
{
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(&b, "%s%s\x1f%s", i ? "\x1e" : "", cols[i].name,
                         cols[i].type);
    char *s = b.failed ? NULL : weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

/* hash("a", "b", ...) over the columns of a columns_text(). */
static char *hash_expr(weir_arena *a, const char *columns)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, "hash(");
    for (const char *p = columns; *p;) {
        const char *sep = strchr(p, '\x1f');
        if (!sep)
            break;
        char *name = weir__arena_strndup(a, p, (size_t)(sep - p));
        if (!name)
            b.failed = true;
        else {
            if (p != columns)
                weir__buf_puts(&b, ", ");
            weir__buf_put_sql_ident(&b, name);
        }
        const char *next = strchr(sep, '\x1e');
        p = next ? next + 1 : sep + strlen(sep);
    }
    weir__buf_putc(&b, ')');
    char *s = b.failed ? NULL : weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

/* Does the table still have every column `was` lists, with its type? */
static bool columns_kept(const char *was, const char *now)
{
    for (const char *p = was; *p;) {
        const char *end = strchr(p, '\x1e');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool found = false;
        for (const char *q = now; *q && !found;) {
            const char *qe = strchr(q, '\x1e');
            size_t ql = qe ? (size_t)(qe - q) : strlen(q);
            found = ql == len && !strncmp(p, q, len);
            q = qe ? qe + 1 : q + ql;
        }
        if (!found)
            return false;
        p = end ? end + 1 : p + len;
    }
    return true;
}

static int oom(const weir_source_ctx *c)
{
    return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
}

/* One scan: rows and hash sum below `start` over hash_read, of the whole
 * table over hash_now, and max(rowid) + 1. cells: 0 rows below, 1 their
 * hash, 2 rows, 3 hash, 4 end. */
static int scan(const weir_source_ctx *c, const table_batch *t, int64_t start,
                weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT;
    bool same = !strcmp(t->hash_now, t->hash_read);
    weir__buf_printf(&q, "SELECT count(*) FILTER (WHERE rowid < %lld), "
                         "CAST(coalesce(sum(hr) FILTER (WHERE rowid < %lld), 0) "
                         "AS VARCHAR), count(*), CAST(coalesce(sum(%s), 0) AS "
                         "VARCHAR), coalesce(max(rowid) + 1, 0) FROM (SELECT "
                         "rowid, %s AS hr",
                     (long long)start, (long long)start, same ? "hr" : "hn",
                     t->hash_read);
    if (!same)
        weir__buf_printf(&q, ", %s AS hn", t->hash_now);
    weir__buf_printf(&q, " FROM %s)", t->rel);
    int rc = weir__query_buf(c->conn, &q, out, c->err);
    weir__buf_free(&q);
    return rc;
}

static int64_t cell(const weir_rows *r, size_t col)
{
    const char *v = weir__rows_get(r, 0, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

/* skippable: the reader's pipelines.skipChangeCommits would let it go on. */
static int changed(const weir_source_ctx *c, const char *key,
                   const char *what, bool skippable)
{
    const char *t = c->t->display;
    char skip[512] = "";
    if (skippable)
        snprintf(skip, sizeof(skip),
                 "; to go on with the rows not read yet and ignore the "
                 "change, set the table property "
                 "'pipelines.skipChangeCommits' = 'true' on %s", t);
    return WEIR_ERR(c->err, WEIR_ERROR, "STREAMING_SOURCE_CHANGED",
                    "The streaming source %s changed rows that flow '%s' "
                    "already processed (%s). Streaming reads of a table "
                    "take the rows appended to it, or all of it when it is "
                    "replaced; rows updated or deleted in place would be "
                    "lost or read twice. To rebuild %s from the current "
                    "source, run a full refresh of it (weir run "
                    "--full-refresh %s)%s.",
                    key, c->f->display, what, t, t, skip);
}

/* The fingerprint of the rows the flow read no longer matches: compare
 * the table with the sample. */
static int classify(const weir_source_ctx *c, const weir_source_batch *b,
                    table_batch *t, const weir_checkpoint_table_read *was,
                    bool skip)
{
    weir_buf sample = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    weir__checkpoint_put_sample(&sample, c->cp, c->gen, b->key);
    /* Rows of the table among those read: their count and hash sum; the
     * sample's largest hash. */
    weir__buf_printf(&q, "SELECT count(*), CAST(coalesce(sum(h), 0) AS "
                         "VARCHAR), (SELECT CAST(max(hash) AS VARCHAR) FROM "
                         "%s) FROM (SELECT %s AS h FROM %s) WHERE h IN %s",
                     weir__buf_cstr(&sample), t->hash_read, t->rel,
                     weir__buf_cstr(&sample));
    weir_rows *r = NULL;
    int rc = weir__query_buf(c->conn, &q, &r, c->err);
    weir__buf_free(&q);
    int64_t kept = 0;
    const char *kept_hash = "0", *bound = NULL;
    if (!rc && r->n_rows) {
        kept = cell(r, 0);
        kept_hash = weir__arena_strdup(c->arena, weir__rows_get(r, 0, 1));
        bound = weir__arena_strdup(c->arena, weir__rows_get(r, 0, 2));
        if (!kept_hash)
            rc = oom(c);
    }
    weir__rows_free(r);
    t->sample = weir__arena_strdup(c->arena, weir__buf_cstr(&sample));
    weir__buf_free(&sample);
    if (!rc && !t->sample)
        rc = oom(c);
    if (rc)
        return rc;
    char what[512];
    if (was->complete && kept == was->rows && !strcmp(kept_hash, was->hash)) {
        /* Every row read is still there: DuckDB moved new rows below the
         * position. */
        t->mode = READ_UNSEEN;
        return 0;
    }
    if (was->complete && kept == 0) {
        t->mode = READ_ALL;
        snprintf(what, sizeof(what),
                 "The streaming source %s was replaced (none of the %lld "
                 "row(s) flow '%s' read is left): its rows are read as new "
                 "data.",
                 b->key, (long long)was->rows, c->f->display);
        weir__source_note(c, what);
        return 0;
    }
    if (was->complete)
        snprintf(what, sizeof(what),
                 "%lld of the %lld row(s) it read are left unchanged",
                 (long long)kept, (long long)was->rows);
    else
        snprintf(what, sizeof(what),
                 "the rows it read are not all there; with more than %d "
                 "distinct rows read, weir keeps a sample of them and "
                 "cannot tell a replacement from a change",
                 WEIR_CHECKPOINT_SAMPLE_MAX);
    if (!skip)
        return changed(c, b->key, what, true);
    t->mode = READ_UNSEEN;
    t->bounded = !was->complete;
    t->bound = bound;
    char msg[1024];
    snprintf(msg, sizeof(msg),
             "The streaming source %s changed rows that flow '%s' already "
             "processed (%s); pipelines.skipChangeCommits is set, so the "
             "change is ignored and only rows not read before are read%s.",
             b->key, c->f->display, what,
             t->bounded ? " (beyond the sample: rows at or past the old "
                          "position)"
                        : "");
    weir__source_warn(c, msg);
    return 0;
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    table_batch *t = weir__arena_alloc(c->arena, sizeof(*t));
    if (!t)
        return oom(c);
    memset(t, 0, sizeof(*t));
    b->impl = t;
    const weir_gdataset *d = in->dataset >= 0 ? &c->g->datasets[in->dataset]
                                              : NULL;
    weir_buf rel = WEIR_BUF_INIT;
    /* External names resolve in the streaming flow's own context. */
    relation(&rel, c->g, c->f, in, c->input_tables);
    t->rel = weir__arena_strdup(c->arena, weir__buf_cstr(&rel));
    weir__buf_free(&rel);
    if (!t->rel)
        return oom(c);
    int rc = d ? weir__tables_epoch(c->conn, d, &b->epoch, c->err) : 0;
    /* Where this flow stopped reading the source, and at which epoch. */
    bool none = true;
    int64_t seen_epoch = 0;
    if (!rc)
        rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &seen_epoch, &none);
    bool recomputed = !rc && !none && d && seen_epoch != b->epoch &&
                      d->kind == WEIR_MATERIALIZED_VIEW;
    if (!rc && !none && d && seen_epoch != b->epoch && !recomputed)
        return WEIR_ERR(c->err, WEIR_ERROR, "STREAMING_SOURCE_RESET",
                        "The streaming source %s was fully refreshed after "
                        "flow '%s' last read it, so the rows it already "
                        "processed are gone. Full refresh %s to rebuild it "
                        "from the current source.",
                        b->key, c->f->display, c->t->display);
    /* The table's columns now, and what the flow recorded last. */
    weir_db_column *cols = NULL;
    size_t n_cols = 0;
    if (!rc) {
        weir_buf q = WEIR_BUF_INIT;
        weir__buf_printf(&q, "SELECT * FROM %s", t->rel);
        rc = weir__conn_describe(c->conn, weir__buf_cstr(&q), &cols, &n_cols,
                                 c->arena, c->err);
        weir__buf_free(&q);
    }
    weir_checkpoint_table_read was;
    memset(&was, 0, sizeof(was));
    if (!rc && !none && !recomputed)
        rc = weir__checkpoint_table_read(c->cp, c->gen, b->key, c->arena, &was);
    if (rc)
        return rc;
    t->fp.columns = columns_text(c->arena, cols, n_cols);
    t->hash_now = t->fp.columns ? hash_expr(c->arena, t->fp.columns) : NULL;
    t->hash_read = t->hash_now;
    if (!t->hash_now)
        return oom(c);
    bool skip = c->t->skip_change_commits;
    if (was.found && !columns_kept(was.columns, t->fp.columns))
        return changed(c, b->key, "a column it read was dropped, renamed or "
                                  "changed type", false);
    if (was.found) {
        t->hash_read = hash_expr(c->arena, was.columns);
        if (!t->hash_read)
            return oom(c);
    }
    if (none || recomputed)
        b->start = 0;
    weir_rows *r = NULL;
    rc = scan(c, t, b->start, &r);
    if (!rc && r->n_rows != 1)
        rc = WEIR_ERR(c->err, WEIR_ERROR, NULL, "no fingerprint of %s", b->key);
    if (rc) {
        weir__rows_free(r);
        return rc;
    }
    int64_t below = cell(r, 0);
    const char *below_hash = weir__rows_get(r, 0, 1);
    t->fp.rows = cell(r, 2);
    t->fp.hash = weir__arena_strdup(c->arena, weir__rows_get(r, 0, 3));
    b->end = cell(r, 4);
    bool prefix_same = was.found && below == was.rows && below_hash &&
                       !strcmp(below_hash, was.hash);
    weir__rows_free(r);
    if (!t->fp.hash)
        return oom(c);
    t->old_start = b->start;
    t->rebase = strcmp(t->hash_now, t->hash_read) != 0;
    if (none || recomputed) {
        t->mode = READ_ALL;
        t->rebase = true;
        if (recomputed) {
            char msg[512];
            snprintf(msg, sizeof(msg),
                     "The materialized view %s was recomputed: flow '%s' "
                     "reads its rows as new data.",
                     b->key, c->f->display);
            weir__source_note(c, msg);
        }
    } else if (!was.found) {
        /* A position from storage written before fingerprints were kept:
         * trust it, and record what the flow has read from now on. */
        t->mode = READ_NEW;
        t->rebase = true;
        if (b->end < b->start)
            return changed(c, b->key, "it has fewer rows than the flow's "
                                      "position", false);
    } else if (prefix_same) {
        t->mode = READ_NEW;
        if (b->end < b->start)
            b->end = b->start; /* compacted: nothing new */
    } else {
        rc = classify(c, b, t, &was, skip);
        if (rc)
            return rc;
        t->rebase = true;
        t->fp.complete = was.complete;
        if (t->mode != READ_NEW)
            b->start = 0;
        /* Something to record even when no row is new. */
        if (b->end <= b->start)
            b->end = b->start + 1;
        return 0;
    }
    t->fp.complete = was.complete;
    b->appended = t->mode == READ_NEW && was.found;
    return 0;
}

/* The rows of the batch, as a WHERE condition over the table. */
static void put_filter(weir_buf *out, const weir_source_batch *b,
                       const table_batch *t)
{
    if (t->mode == READ_NEW) {
        weir__buf_printf(out, "rowid >= %lld AND rowid < %lld",
                         (long long)b->start, (long long)b->end);
        return;
    }
    weir__buf_printf(out, "rowid < %lld", (long long)b->end);
    if (t->mode != READ_UNSEEN)
        return;
    weir__buf_printf(out, " AND %s NOT IN %s", t->hash_read, t->sample);
    if (t->bounded)
        weir__buf_printf(out, " AND (%s <= CAST(%s AS UBIGINT) OR rowid >= "
                              "%lld)",
                         t->hash_read, t->bound ? t->bound : "0",
                         (long long)t->old_start);
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    (void)err;
    const table_batch *t = b->impl;
    weir__buf_puts(out, "(SELECT * FROM ");
    relation(out, r->g, r->flow, r->in, r->input_tables);
    weir__buf_puts(out, " WHERE ");
    put_filter(out, b, t);
    weir__buf_putc(out, ')');
    return 0;
}

/* The fingerprint of the table as the batch saw it, and the hashes of the
 * rows it read added to the sample (all rows when it restarts). */
static int commit(const weir_source_ctx *c, const weir_source_batch *b)
{
    const table_batch *t = b->impl;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "SELECT %s FROM %s WHERE ", t->hash_now, t->rel);
    if (t->rebase)
        weir__buf_printf(&q, "rowid < %lld", (long long)b->end);
    else
        weir__buf_printf(&q, "rowid >= %lld AND rowid < %lld",
                         (long long)b->start, (long long)b->end);
    int rc = q.failed ? oom(c)
                      : weir__checkpoint_table_add(c->cp, c->gen, c->batch_id,
                                                   b->key, &t->fp, t->rebase,
                                                   b->no_sample
                                                       ? NULL
                                                       : weir__buf_cstr(&q),
                                                   t->rebase ? b->end
                                                             : b->end - b->start);
    weir__buf_free(&q);
    return rc;
}

const weir_source_kind weir__source_table = {
    .name = "table",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .commit = commit,
    .progress = weir__source_progress_offsets,
};
