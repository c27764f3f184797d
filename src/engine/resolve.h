/*
 * Translating a flow's Spark SQL into the DuckDB SQL that runs it: every
 * table reference and file source of the query (and of the views it reads,
 * inlined recursively) becomes a physical DuckDB relation. In analysis mode
 * pipeline tables are empty relations of their resolved schemas; in
 * execution mode they are the stored tables, and streaming reads are
 * limited to the rows or files a flow has not processed yet.
 */
#ifndef WEIR_ENGINE_RESOLVE_H
#define WEIR_ENGINE_RESOLVE_H

#include <stdint.h>

#include "graph/graph.h"
#include "sources/source.h"
#include "store/storage.h"
#include "util/buf.h"

/* err->error_class used when a read fails because an upstream flow could
 * not be resolved (the reader is a downstream failure, not a direct one). */
#define WEIR_UPSTREAM_FAILURE "__UPSTREAM_FAILURE__"

typedef enum weir_resolve_mode {
    WEIR_RESOLVE_ANALYZE,
    WEIR_RESOLVE_EXECUTE
} weir_resolve_mode;

typedef struct weir_resolve_ctx {
    weir_resolve_mode mode;
    const weir_graph *g;
    weir_storage *st;
    const char *root_dir;
    const weir_source_batch *batches; /* execution of streaming flows */
    size_t n_batches;
    bool careful_files; /* file sources rescue what does not fit */
    struct weir_infer_cache *infer; /* file schemas inferred (may be NULL) */
    int64_t sample_rows; /* execution: > 0 reads at most this many rows of
                            each external input (weir run --sample) */
    bool input_tables;   /* external tables are the real storage's, attached
                            read-only (weir__storage_attach_input: sample
                            runs) */
    /* The connection the translator may describe expressions on (the
     * caller's own; NULL: none): the types of decimal results, fields of
     * arrays and set operations depend on it. */
    weir_conn *probe;
    /* Execution: table inputs with a batch in batches read it though the
     * query does not stream them (incremental refresh of a materialized
     * view reads its inputs' new rows). */
    bool batch_tables;
    /* Execution: per dataset, whether its table has exactly its resolved
     * schema (weir_flow_exec.fresh; may be NULL), so its types are known
     * without asking DuckDB. */
    const bool *fresh;
    /* Execution of a stateful flow (engine/stateful.c): queries read as
     * DuckDB relations instead (the operator's output in the flow's
     * query; its input's rows in the queries of its plan). */
    struct weir_resolve_subst {
        const weir_sql_query *node;
        const char *rows; /* a DuckDB relation */
    } subst[4];
    size_t n_subst;
    /* The update's cancel watch (store/watch.h; may be NULL): once it is
     * stopped, translation stops at its next type probe or table with
     * WEIR_ECANCELED. */
    const struct weir_watch *cancel;
} weir_resolve_ctx;

/* Translate flow f's query to DuckDB SQL appended to out. */
int weir__resolve_flow_sql(weir_buf *out, const weir_resolve_ctx *ctx,
                           const weir_gflow *f, weir_error *err);
/* Translate query q, a part of flow f's query (or one built from its
 * parts: weir_sql_state_plan), as f's own would be. */
int weir__resolve_query_sql(weir_buf *out, const weir_resolve_ctx *ctx,
                            const weir_gflow *f, const weir_sql_query *q,
                            weir_error *err);

/* Append the DuckDB relation of a pipeline table: the stored table, or in
 * analysis mode an empty relation with its schema. */
void weir__resolve_table_name(weir_buf *out, const weir_resolve_ctx *ctx,
                              const weir_gdataset *d);

#endif
