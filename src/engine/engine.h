/*
 * The run engine: resolving a validated graph against DuckDB (schemas of
 * every flow and dataset), and running updates: refresh selection, full
 * refresh, table materialization, flow scheduling with retries, exactly-once
 * streaming flows, materialized-view recomputation, events. See
 * docs/engine.md for the protocol.
 */
#ifndef WEIR_ENGINE_H
#define WEIR_ENGINE_H

#include "graph/graph.h"
#include "store/db.h"
#include "store/storage.h"
#include "weir.h"

typedef struct weir_engine_opts {
    const char *pipeline_name;
    const char *storage;  /* absolute storage folder */
    const char *root_dir; /* base of relative file paths */
    weir_db_config db;
    weir_log_fn on_log;
    void *log_payload;
    int64_t sample_rows; /* > 0: each external input is read up to this
                            many rows (weir_run_options.sample_rows) */
    /* Redirected sinks (weir test, sample runs): sinks with a path write
     * below sink_root (absolute; NULL = their destination), Kafka sinks
     * append to the storage's local topics (store/topics.h). */
    const char *sink_root;
    bool local_kafka_sinks;
    bool local_kafka_sources; /* Kafka sources read the local topics
                                 (weir_run_options.local_kafka) */
    const char *input_storage; /* sample runs: the real storage (absolute),
                                  whose external tables the flows read
                                  (read-only); NULL = this storage's */
    weir_storage *held;  /* an open storage of `storage` in RUN mode to run
                            on instead of opening one (borrowed: it stays
                            open); NULL = open and close one. Not for dry
                            runs */
} weir_engine_opts;

/*
 * Resolve the graph (every flow's output schema, every dataset's schema,
 * expectation conditions) and, unless run->dry, execute an update.
 * Errors in the graph go to diags and return WEIR_EGRAPH. Returns 0 when
 * the update ran, whatever its outcome (see out->state).
 */
int weir__engine_run(weir_graph *g, const weir_engine_opts *opts,
                     const weir_run_options *run, weir_run_result *out,
                     weir__diags *diags, weir_error *err);

/*
 * Store n events of an update that ran elsewhere in the event log of
 * storage (absolute folder), under a new update id (written to
 * update_id), with their own timestamps (record.c).
 */
int weir__engine_record(const char *storage, const weir_db_config *db,
                        const weir_event *events, size_t n,
                        char update_id[40], weir_error *err);

#endif
