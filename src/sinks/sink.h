/*
 * Sinks: external destinations that streaming append flows write to
 * (CREATE SINK name USING format OPTIONS (...)). One file per format
 * implements the operations below; adding a format is one new file and one
 * line in the registry (sink.c). The engine drives the exactly-once
 * protocol (docs/sinks.md):
 *
 *   1. In the flow's DuckDB transaction: stage() writes the batch where no
 *      reader sees it yet, then the checkpoint and a `committed` row in
 *      _weir.sink_batches commit together.
 *   2. After the commit: publish() makes the staged batch visible, then
 *      the row becomes `published`.
 *   3. At the start of every update, for each sink flow: batches that
 *      committed but were not published are published again (publish is
 *      idempotent), and staged data of batches that never committed is
 *      discarded.
 *
 * A format may also start publishing while it stages (Kafka sends the
 * records into a transaction it leaves open): stage() then hands the
 * engine a pending handle, which the engine passes to publish() once the
 * batch committed, or to release() when it did not (or may not have). The
 * staged data alone must always be enough to publish the batch (step 3).
 */
#ifndef WEIR_SINKS_SINK_H
#define WEIR_SINKS_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/error.h"

/* One batch of one flow into one sink. */
typedef struct weir_sink_batch {
    const char *sink;      /* the sink's name */
    const char *flow;      /* the flow's display name (Delta txn appId) */
    const char *format;    /* lower case, e.g. "delta" */
    const weir_kv *options; /* as written in OPTIONS (...) */
    size_t n_options;
    const char *root_dir;  /* base for a relative `path` option */
    const char *redirect_root; /* when set, the destination is below this
                                  folder instead (weir_run_options
                                  .sink_root; sample runs) */
    const char *local_topics; /* Kafka: the catalog of the local topics to
                                 append to instead of brokers
                                 (weir_run_options.local_kafka; sample
                                 runs), or NULL */
    const char *stage_dir; /* a folder owned by weir for this flow's
                              staging: <storage>/sinks/<sink>/<flow-hash>
                              (created by the engine) */
    const char *state_id;  /* the random id of the catalog state that
                              holds the flow's checkpoints ("" unknown):
                              new when that state is recreated */
    int64_t generation;    /* checkpoint generation of the flow */
    int64_t batch_id;      /* 0, 1, 2, ... within the generation */
    const char *update_id;
    bool overwrite;        /* delta: the batch replaces the table's rows
                              and schema in its commit (a Delta
                              materialized view's refresh) */
    weir_conn *conn;       /* the flow's connection: stage() runs in its
                              open transaction, publish() outside any;
                              what writes to object storage (an s3://
                              `path`) goes through it */
} weir_sink_batch;

/* What a format keeps of one staged batch in memory between stage() and
 * publish() (Kafka: the producer whose open transaction holds the batch's
 * records). Opaque: defined by the format that makes it (sinks/kafka.c). */
typedef struct weir_sink_pending weir_sink_pending;

typedef struct weir_sink_format {
    const char *name;
    /* Check the options when the graph is validated (dry runs too):
     * required `path`, known option names and values. */
    int (*validate)(const weir_kv *options, size_t n_options,
                    weir_error *err);
    /* Then, once the sink's schema is resolved, check the options against
     * the columns its flows write (e.g. partitionBy names some of them,
     * not all; Kafka's value column is a string or binary). NULL =
     * nothing to check. */
    int (*check_columns)(const weir_kv *options, size_t n_options,
                         const weir_column *columns, size_t n_columns,
                         weir_error *err);
    /* Write the rows of `sql` (DuckDB SQL of the flow's batch) so that no
     * reader of the sink sees them yet; *rows receives the count. Runs on
     * the flow's connection inside its open transaction. pending: NULL
     * when the caller keeps no state; else *pending is NULL on entry, and
     * a format that keeps state sets it to a handle the caller owns from
     * then on and passes to exactly one publish() or release() (on
     * failure, *pending stays NULL). */
    int (*stage)(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err);
    /* Make the staged batch visible. Idempotent: a batch already published
     * (even partly, by a run that crashed) ends published exactly once.
     * pending: what stage() returned for this batch in this process, or
     * NULL (recovery: the staged data only); publish() frees it whatever
     * it returns. */
    int (*publish)(const weir_sink_batch *b, weir_sink_pending *pending,
                   weir_error *err);
    /* Free a pending handle of a batch that did not commit, or whose
     * commit failed (it may have committed): nothing of it becomes
     * visible from the handle, and the staged data stays where it is (the
     * next update publishes it if the batch committed, discard() removes
     * it otherwise). NULL is fine. NULL for formats that never return a
     * pending handle. */
    void (*release)(weir_sink_pending *pending);
    /* Remove what stage() wrote for a batch that never committed. Missing
     * staged data is fine. */
    int (*discard)(const weir_sink_batch *b, weir_error *err);
    /* Dry runs: check that the destination answers, within a bounded
     * time (a Kafka broker). NULL = nothing to check. */
    int (*probe)(const weir_kv *options, size_t n_options,
                 weir_error *err);
} weir_sink_format;

/* The format with this name (case-insensitive), or NULL. */
const weir_sink_format *weir__sink_format(const char *name);

/* Append a relation reading the Delta Lake table in the folder `path`
 * (absolute) through its transaction log, as DuckDB SQL: a parenthesised
 * SELECT of the table's columns (in its schema's order, timestamps as
 * TIMESTAMP in UTC) over only the active data files, with partition
 * values taken from the log; a typed empty relation when the table has no
 * files. Errors: WEIR_ESQL with DELTA_TABLE_NOT_FOUND (no commits),
 * DELTA_CHECKPOINT_NOT_SUPPORTED, DELTA_UNSUPPORTED_PROTOCOL, I/O. Used by
 * delta.`path`, delta_scan('path') and read_delta('path'). */
int weir__delta_render_scan(weir_buf *out, const char *path, weir_error *err);

/* A dataset stored as a Delta table in the folder `table` (absolute;
 * docs/delta.md), brought to the dataset's columns and epoch (the count of
 * its full refreshes, as DuckDB committed it) before its flows run: a
 * table without a log is created with the columns and partition columns;
 * one whose log has not seen `epoch` is overwritten (its files removed,
 * the new schema); with evolve, one lacking some of the columns gains
 * them (a materialized view's refresh brings its own schema). At most one
 * commit, none when the table is there already; a retry after a crash
 * does what is left. The flows' batches go through the delta sink format
 * (stage, publish) with `path` set to the folder. */
int weir__delta_dataset_sync(const char *table, const weir_column *cols,
                             size_t n, const char *const *parts,
                             size_t n_parts, int64_t epoch, bool evolve,
                             weir_error *err);

/* A Delta materialized view's refresh: the rows of `sql` replace the
 * table's (b->options' path) in one commit (remove of every active file,
 * the batch's files and schema, a txn of b->flow one past the log's), so
 * readers see the old rows or the new, never part. b->batch_id is set
 * here; b->stage_dir must exist. Runs on conn in its open transaction;
 * the commit is made before it returns (a refresh is recomputed whole, so
 * nothing depends on DuckDB's commit). *rows receives the count. */
int weir__delta_dataset_overwrite(weir_conn *conn, weir_sink_batch *b,
                                  const char *sql, int64_t *rows,
                                  weir_error *err);

#endif
