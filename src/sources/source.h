/*
 * Sources: what a streaming flow reads, batch by batch (STREAM t,
 * STREAM read_files(...), STREAM range(...)). One file per kind implements
 * the operations below; adding a kind is one new file and one line in the
 * registry (source.c). The engine drives every kind the same way
 * (docs/sources.md):
 *
 *   1. plan():      from the position stored in the checkpoint store
 *                   (state/checkpoint.h), discover what is new and fix the
 *                   batch's bounds [start, end).
 *   2. render():    the batch as a DuckDB relation in the flow's query.
 *   3. check_read() after the query ran (optional): is what was read
 *                   still what was planned? (It may lower the batch's
 *                   end: a Kafka range that ended early.)
 *   4. commit():    in the batch's transaction, what the kind records
 *                   besides the checkpoint row (which the engine writes
 *                   with `end` as the source's new position).
 *   analyze():      the source's schema for resolution and dry runs.
 *   release():      (optional) the batch is over, committed or not: free
 *                   what plan() holds beyond the arena.
 *
 * A full refresh needs nothing from a kind: it opens a new generation in
 * the checkpoint store, and every position is read per generation.
 */
#ifndef WEIR_SOURCES_SOURCE_H
#define WEIR_SOURCES_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "state/checkpoint.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

struct weir_infer_cache;
struct weir_source_kind;

/* What a flow's batch reads from one source. */
typedef struct weir_source_batch {
    const struct weir_source_kind *kind;
    const char *key;      /* its kind's key(): its name in checkpoints */
    int64_t start, end;   /* positions: the batch reads [start, end); end
                             is stored as the source's new position */
    int64_t epoch;        /* the source's epoch (tables), else 0 */
    int64_t new_files;    /* files this batch adds to the manifest */
    bool more;            /* the source had more than this batch takes (a
                             cap like maxOffsetsPerTrigger): the engine
                             runs another batch in the same update */
    bool appended;        /* tables: every row read before is there
                             unchanged; the batch reads the rows appended
                             since (incremental refresh relies on it) */
    bool no_sample;       /* tables, set by the caller: commit keeps the
                             fingerprint but no sample of row hashes (the
                             reader recomputes on any change) */
    void *impl;           /* the kind's own batch state, in the arena */
} weir_source_batch;

/* Files that changed while a batch read them (malloc'd paths, owned by
 * the engine's flow run): planning leaves them out. */
typedef struct weir_source_unstable {
    char **paths;
    size_t n;
} weir_source_unstable;

/* Planning and committing one batch of one flow. */
typedef struct weir_source_ctx {
    const weir_graph *g;
    const weir_gflow *f;        /* the streaming flow */
    const weir_gdataset *t;     /* its target */
    weir_conn *conn;            /* the flow's, in its open transaction */
    const weir_checkpoint *cp;  /* the flow's checkpoints */
    const char *root_dir;
    const struct weir_storage *st; /* the pipeline's storage (Delta
                                      datasets' folders) */
    bool input_tables;          /* external tables are the real storage's
                                   (weir__storage_input_table_ref: sample
                                   runs) */
    const char *local_topics;   /* Kafka: the catalog of the local topics
                                   to read instead of brokers
                                   (weir_run_options.local_kafka), or NULL */
    const char *update_id;
    int64_t gen, batch_id;
    weir_arena *arena;          /* lives as long as the batch */
    struct weir_infer_cache *infer; /* may be NULL */
    weir_source_unstable *unstable;
    char *warning;              /* the flow's WARN event text (add with
                                   weir__source_warn) */
    size_t warning_size;
    char *note;                 /* the flow's INFO event text */
    size_t note_size;
    weir_error *err;
} weir_source_ctx;

/* Rendering an input of a query for execution. */
typedef struct weir_source_read {
    const weir_graph *g;
    const weir_gflow *flow;     /* whose query holds the input (a view's
                                   flow for a source read through a view) */
    const weir_input *in;
    const char *root_dir;
    bool careful;               /* rescue what does not fit (files) */
    bool with_metadata;         /* the query uses _metadata (files) */
    bool input_tables;          /* as weir_source_ctx's */
} weir_source_read;

/* Describing an input's schema for analysis (dry runs too). */
typedef struct weir_source_analysis {
    weir_conn *conn;            /* may be NULL (no storage) */
    const char *state_catalog;  /* NULL when its storage does not exist */
    const char *flow;           /* the streaming flow's display name */
    const char *key;
    const weir_input *in;
    const char *root_dir;
    bool with_metadata;
    struct weir_infer_cache *infer;
    bool dry;                   /* a dry run: also check that the source's
                                   service answers (Kafka: the brokers) */
} weir_source_analysis;

typedef struct weir_source_kind {
    const char *name; /* "table", "files", "range" */
    /* Is this input one of the kind's? (graph/build.c classifies inputs) */
    bool (*accepts)(const weir_input *in);
    /* The source's stable key in checkpoints, in arena a: the dataset or
     * external table display name, range(...)'s text, "files:" + the
     * absolute path, or "kafka:" + the subscription. */
    const char *(*key)(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir);
    /* Fill *out (key, kind set by the caller) from the stored position. */
    int (*plan)(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *out);
    int (*render)(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err);
    /* After the batch was read: files that changed are added to
     * c->unstable and counted in *changed. NULL = nothing to check. */
    int (*check_read)(const weir_source_ctx *c, weir_source_batch *b,
                      size_t *changed);
    /* Records besides the checkpoint row. NULL = none. */
    int (*commit)(const weir_source_ctx *c, const weir_source_batch *b);
    /* JSON members of the batch's entry in flow_progress details, after
     * "source"; may set the flow's note. */
    void (*progress)(const weir_source_ctx *c, const weir_source_batch *b,
                     weir_buf *details);
    /* An empty typed relation of the source for analysis; NULL or
     * WEIR_ENOTFOUND = the query's default translation. */
    int (*analyze)(weir_buf *out, const weir_source_analysis *a,
                   weir_error *err);
    /* Every planned batch, after its query and commit or failure. NULL =
     * nothing to free. */
    void (*release)(const weir_source_ctx *c, weir_source_batch *b);
} weir_source_kind;

/* The kind of a streaming input (never NULL: tables are the default). */
const weir_source_kind *weir__source_kind_of(const weir_input *in);

/* Append a sentence to the flow's warning (cut with "..." when full). */
void weir__source_warn(const weir_source_ctx *c, const char *text);

/* Append a sentence to the flow's note (its INFO event text). */
void weir__source_note(const weir_source_ctx *c, const char *text);

/* A progress() for kinds whose position is one row number: the batch's
 * start_offset and end_offset. */
void weir__source_progress_offsets(const weir_source_ctx *c,
                                   const weir_source_batch *b, weir_buf *d);

extern const weir_source_kind weir__source_table;
extern const weir_source_kind weir__source_files;
extern const weir_source_kind weir__source_range;
extern const weir_source_kind weir__source_kafka;
extern const weir_source_kind weir__source_jdbc;
extern const weir_source_kind weir__source_delta;

#endif
