/*
 * Executing one flow of an update on its own DuckDB connection: a
 * streaming flow appends the rows and files it has not processed yet and
 * commits them together with its new checkpoint in one transaction; a
 * materialized view is recomputed and replaced in one transaction; a once
 * flow appends its batch query a single time per generation. Checkpoint
 * protocol: docs/storage.md.
 */
#ifndef WEIR_ENGINE_EXEC_H
#define WEIR_ENGINE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/resolve.h"
#include "graph/graph.h"
#include "sources/source.h"
#include "store/storage.h"
#include "util/buf.h"

typedef struct weir_flow_exec {
    /* in */
    const weir_graph *g;
    const weir_gflow *f;
    weir_storage *st;
    weir_conn *conn;
    const char *root_dir;
    const char *sink_root; /* sinks write below it (weir_engine_opts), or
                              NULL */
    bool input_tables; /* external tables are the real storage's (sample
                          runs: weir_engine_opts.input_storage) */
    bool local_kafka_sinks;   /* Kafka sinks, sources use the storage's */
    bool local_kafka_sources; /* local topics (weir_engine_opts) */
    const char *update_id;
    struct weir_infer_cache *infer; /* file schemas of this update */
    int64_t sample_rows; /* > 0: external inputs read at most this many
                            rows (weir run --sample) */
    /* Per dataset (may be NULL): its table was created by this update's
     * materialize step, with the dataset's resolved schema, and no flow
     * changed its columns since (schedule.c clears an entry after a flow
     * that set `altered`). Such a table's columns are known without
     * DuckDB, and a materialized view fills its new table instead of
     * creating it again (engine/mv.c). Read-only here: an entry is only read once
     * every flow writing that table has ended. */
    const bool *fresh;
    /* Per dataset (may be NULL): the rows this update's flows committed
     * into a fresh table so far, all of them when every flow writing it
     * has ended; -1 when unknown (a flow into it failed). */
    const int64_t *fresh_rows;
    /* The update's cancel watch (store/watch.h; may be NULL): the flow's
     * translation stops at its next type probe once it is stopped (the
     * scheduler interrupts DuckDB's statements). */
    const struct weir_watch *cancel;
    /* out */
    int64_t rows_written;
    bool altered;     /* the flow may have changed its table's columns */
    bool idle;        /* a once flow that already ran in this generation */
    bool no_new_data; /* a streaming flow found nothing new */
    bool more;        /* a source has more than the batch took: run another */
    weir_buf details; /* JSON members added to flow_progress (", ..." form) */
    weir_error err;
    /* a sink batch staged and committed, to publish after the commit */
    const struct weir_sink_format *sink_format;
    int64_t sink_gen, sink_batch_id;
    /* what the sink's format keeps of the batch it staged (sink.h): owned
       here until passed to its publish() or release(); NULL when none */
    struct weir_sink_pending *sink_pending;
    bool careful_files; /* read file sources rescuing what does not fit */
    char note[512];     /* an INFO event for the flow, e.g. a missing folder */
    char warning[1024]; /* a WARN event, e.g. files skipped or changed */
    /* files that changed while a batch read them: left out of this
     * update's batch (malloc'd paths, freed by weir__flow_exec) */
    weir_source_unstable unstable;
    bool files_changed; /* the last attempt met such a file */
    /* import_checkpoint: the import committed with the flow's first batch
     * (a JSON object, empty when none) and its event's message */
    weir_buf imported;
    char import_note[1024];
    bool import_pending; /* this batch's transaction holds an import */
    /* AUTO CDC flows: what the update's batches applied */
    struct {
        int64_t upserted, deleted, ignored;
    } cdc;
    /* Materialized views: how the refresh was done (engine/mv.c) and why,
     * for the planning_information event; "" for other flows. */
    char technique[48];
    char technique_reason[768];
    /* A stateful flow's batch: the operator whose output rows the batch's
     * stateful step computed (engine/stateful.h); NULL otherwise. */
    const weir_sql_query *op_node;
    /* ... and what the update's batches did with its state, for the
     * flow's progress (has: a batch ran the operator). */
    struct weir_op_progress {
        bool has;
        const char *name;        /* Spark's operatorName */
        int64_t rows_total;      /* state rows after the last batch */
        int64_t dropped;         /* late rows dropped, all batches */
        bool has_watermark;
        int64_t watermark_ms;
    } op, op_batch;              /* op_batch: the batch being run, folded
                                    into op when it commits */
} weir_flow_exec;

/* Run the flow. Returns 0 or the code in x->err; on failure nothing of the
 * flow's batch is visible and its checkpoint has not moved. */
int weir__flow_exec(weir_flow_exec *x);

/* Flow x's query as DuckDB SQL for this execution, appended to sql:
 * reading batches (NULL, 0 for a batch flow), file sources read carefully
 * (rescuing what does not fit) when careful and the update asks for it;
 * with batch_tables, table inputs that have a batch read it though the
 * query does not stream them (weir_resolve_ctx.batch_tables). */
int weir__flow_sql(weir_flow_exec *x, const weir_source_batch *batches,
                   size_t n_batches, bool careful, bool batch_tables,
                   weir_buf *sql);
/* The translation context weir__flow_sql uses (engine/resolve.h). */
void weir__flow_resolve_ctx(weir_flow_exec *x, const weir_source_batch *batches,
                            size_t n_batches, bool careful, bool batch_tables,
                            weir_resolve_ctx *out);

/* Whether every pipeline table flow f reads (through views too) is fresh
 * (x->fresh): then its query's columns are those the update's analysis
 * resolved, as analysis types the other inputs (external tables, files)
 * the way execution reads them. */
bool weir__flow_reads_fresh(const weir_flow_exec *x, const weir_gflow *f,
                            int depth);

/* The checkpoints of x's flow into t (errors go to x->err). */
weir_checkpoint weir__flow_checkpoint(weir_flow_exec *x,
                                      const weir_gdataset *t);

/* The source context (sources/source.h) of x's flow into t: its
 * checkpoint, set in *cp, the arena its batches live in, and x's warning
 * and note for what the sources say (gen and batch_id are the caller's). */
void weir__flow_source_ctx(weir_flow_exec *x, const weir_gdataset *t,
                           weir_checkpoint *cp, weir_arena *arena,
                           weir_source_ctx *c);

/* The class of a streaming flow whose sources differ from its checkpoint's
 * (Spark has the message but no class). Not retried. */
#define WEIR_SOURCES_CHANGED_CLASS "STREAMING_SOURCES_ADDED_OR_REMOVED"

#endif
