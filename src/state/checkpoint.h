/*
 * A flow's progress in the _weir schema of its state catalog
 * (docs/storage.md, docs/sources.md): the one owner of these tables.
 *
 *   _weir.checkpoints  one row per source per committed batch: the
 *                      source's key, its epoch then, and its end position
 *                      (tables and range(): a row number; files: the
 *                      count of the batch's files); full refresh adds a
 *                      marker row (batch_id -1) that opens a generation;
 *                      once flows write one row with source '__once__'.
 *   _weir.flow_state   one row per flow: generation, batches committed in
 *                      it, files recorded in it (integrity counters,
 *                      checked by weir__checkpoint_check).
 *   _weir.files        the file manifest: every file a flow ingested,
 *                      with its size and mtime then.
 *   _weir.kafka_offsets  Kafka sources: each partition's offsets after
 *                      each batch (the checkpoint row's end is their
 *                      running total).
 *   _weir.table_reads, _weir.table_sample  what streaming reads of tables
 *                      consumed (table_reads.c).
 *   _weir.jdbc_cursors database sources read by cursor column: the cursor
 *                      value each batch ended at and the hashes of the
 *                      rows it read at that value.
 *
 * Every write runs on cp->conn inside the batch's open transaction, so
 * the data and the position commit together. Source kinds
 * (sources/source.h) read and write positions only through these
 * functions. Errors go to cp->err.
 */
#ifndef WEIR_STATE_CHECKPOINT_H
#define WEIR_STATE_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "state/state.h"
#include "util/arena.h"
#include "util/buf.h"

/* "SELECT count(*) ...": how many checkpoint rows the flow has in any
 * generation (none: it never recorded a batch or a full refresh),
 * appended to q so a caller can ask it with other counts. */
void weir__checkpoint_put_row_count(weir_buf *q, const weir_checkpoint *cp);

/* The flow's current generation and its next batch id in it (0 and 0 for
 * a flow that never ran; a full refresh's marker row has batch_id -1). */
int weir__checkpoint_position(const weir_checkpoint *cp, int64_t *gen,
                              int64_t *next_batch);

/* The flow's _weir.flow_state row. */
typedef struct weir_flow_state {
    bool found;
    int64_t gen, batches, files;
} weir_flow_state;
int weir__checkpoint_flow_state(const weir_checkpoint *cp, weir_flow_state *out);
/* Record a batch in flow_state: `batches` committed in `gen`, new_files
 * more files (counted from 0 again in a new generation). */
int weir__checkpoint_set_flow_state(const weir_checkpoint *cp, int64_t gen,
                                    int64_t batches, int64_t new_files);

/* The end position of the flow's latest batch from source `key` in
 * generation gen, and the source's epoch then; *none when it never read
 * it in that generation. */
int weir__checkpoint_source_end(const weir_checkpoint *cp, int64_t gen,
                                const char *key, int64_t *end, int64_t *epoch,
                                bool *none);

/* One source's row of a batch. */
typedef struct weir_checkpoint_row {
    const char *source;
    int64_t epoch, end;
} weir_checkpoint_row;
/* Insert the rows of batch batch_id (n > 0); rows_written is the batch's
 * row count. */
int weir__checkpoint_add_batch(const weir_checkpoint *cp, int64_t gen,
                               int64_t batch_id, const weir_checkpoint_row *rows,
                               size_t n, int64_t rows_written);
/* The row a once flow writes for its single batch of the generation. */
#define WEIR_CHECKPOINT_ONCE "__once__"

/* Rows of the streaming table cp->target its flows' checkpoints account
 * for: the batches of each flow's latest generation, each once. */
int weir__checkpoint_accounted_rows(const weir_checkpoint *cp, int64_t *out);

/* ---- the file manifest ---- */

/* How many files the flow recorded in generation gen. */
int weir__checkpoint_manifest_count(const weir_checkpoint *cp, int64_t gen,
                                    int64_t *out);
/* The files the flow ingested from `source` in gen: rows of path, size,
 * mtime, by batch (the latest read last). */
int weir__checkpoint_manifest_read(const weir_checkpoint *cp, int64_t gen,
                                   const char *source, weir_rows **out);
/* Record n files of batch batch_id. */
int weir__checkpoint_manifest_add(const weir_checkpoint *cp, int64_t gen,
                                  int64_t batch_id, const char *source,
                                  const char *const *paths,
                                  const uint64_t *sizes, const int64_t *mtimes,
                                  size_t n);

/* ---- per-partition offsets of Kafka sources (_weir.kafka_offsets) ---- */

/* One partition's offsets in a batch: it read [start, end); end is where
 * the next batch starts. */
typedef struct weir_checkpoint_partition {
    const char *topic;
    int32_t partition;
    int64_t start, end;
} weir_checkpoint_partition;
/* The partitions the flow's latest batch from `source` in gen recorded:
 * rows of topic, partition, end_offset (none: the source never read in
 * gen, or lost its rows). */
int weir__checkpoint_partitions_read(const weir_checkpoint *cp, int64_t gen,
                                     const char *source, weir_rows **out);
/* Record every partition of batch batch_id (n may be 0). */
int weir__checkpoint_partitions_add(const weir_checkpoint *cp, int64_t gen,
                                    int64_t batch_id, const char *source,
                                    const weir_checkpoint_partition *parts,
                                    size_t n);

/* ---- cursors of database sources (_weir.jdbc_cursors) ---- */

/* The cursor value (DuckDB's text of it) the flow's latest batch from
 * `source` in gen ended at, in arena a; NULL when it never read it in gen. */
int weir__checkpoint_cursor_read(const weir_checkpoint *cp, int64_t gen,
                                 const char *source, weir_arena *a,
                                 const char **value);
/* Append a subquery (one UBIGINT column, hash) of the row hashes the
 * flow's latest batch from `source` in gen recorded at its cursor value. */
void weir__checkpoint_put_cursor_hashes(weir_buf *q, const weir_checkpoint *cp,
                                        int64_t gen, const char *source);
/* Record batch batch_id's cursor value and the row hashes `hashes_sql`
 * selects (one UBIGINT column; an empty result records the value alone). */
int weir__checkpoint_cursor_add(const weir_checkpoint *cp, int64_t gen,
                                int64_t batch_id, const char *source,
                                const char *value, const char *hashes_sql);

/* ---- what streaming reads of tables consumed ----
 * (_weir.table_reads, _weir.table_sample; docs/sources.md#tables)
 * After each batch of a table source: the columns its rows were hashed
 * over, the count and the sum of hash() of every row the flow has read
 * (the fingerprint, checked at the next plan), and a sample of their
 * distinct row hashes, the smallest WEIR_CHECKPOINT_SAMPLE_MAX. */

#define WEIR_CHECKPOINT_SAMPLE_MAX 100000

typedef struct weir_checkpoint_table_read {
    bool found;          /* false: nothing recorded for the latest batch */
    const char *columns; /* name \x1f type, columns separated by \x1e */
    int64_t rows;
    const char *hash;    /* the sum, as text */
    bool complete;       /* the sample holds every distinct row hash */
} weir_checkpoint_table_read;
/* What the flow's latest batch from `source` in gen recorded; strings in
 * arena a. */
int weir__checkpoint_table_read(const weir_checkpoint *cp, int64_t gen,
                                const char *source, weir_arena *a,
                                weir_checkpoint_table_read *out);
/* Append a subquery of the sample's hashes (one column, hash). */
void weir__checkpoint_put_sample(weir_buf *q, const weir_checkpoint *cp,
                                 int64_t gen, const char *source);
/* Record batch batch_id: the fingerprint r (found is ignored), and the
 * hashes `hashes_sql` selects (one UBIGINT column, about `batch_rows`
 * rows: an estimate that only steers the cost) added to the sample;
 * `rebase` empties the sample first (the flow's earlier generations
 * too), else r->complete is the sample's state before the batch.
 * The recorded `complete` is whether the sample kept every hash.
 * hashes_sql NULL keeps no sample (an incomplete, empty one): a reader
 * that recomputes on any change needs only the fingerprint. */
int weir__checkpoint_table_add(const weir_checkpoint *cp, int64_t gen,
                               int64_t batch_id, const char *source,
                               const weir_checkpoint_table_read *r,
                               bool rebase, const char *hashes_sql,
                               int64_t batch_rows);

/* The sources the flow's batch batch_id of gen read: rows of source. */
int weir__checkpoint_batch_sources(const weir_checkpoint *cp, int64_t gen,
                                   int64_t batch_id, weir_rows **out);

/* ---- full refresh and relocation ---- */

/* Append "; ..." statements that open a new generation for each flow of
 * target (flow display names) and clear their flow_state rows. */
void weir__checkpoint_put_reset(weir_buf *q, const char *catalog,
                                const char *target,
                                const char *const *flows, size_t n_flows,
                                const char *update_id);

/* The same for every flow that has checkpoints of target, whatever the
 * graph now says (a table dropped because its dataset became a view: a
 * flow into a table of that name later reads its sources from the start). */
void weir__checkpoint_put_reset_target(weir_buf *q, const char *catalog,
                                       const char *target,
                                       const char *update_id);

/* Append the statements that move file source keys and manifest paths at
 * or under `from` to `to`, in the _weir schema of the attached catalog
 * `alias`. */
void weir__checkpoint_put_relocate(weir_buf *q, const char *alias,
                                   const char *from, const char *to);

/* ---- integrity ---- */

/* Read the flow's flow_state row into fs and check it against its
 * checkpoints into t, at generation gen with next_batch batches committed:
 * they hold every batch the row counts; without a row, t (a sink's batch
 * log, a streaming table's rows) holds nothing the checkpoints do not
 * account for; with manifest, the file manifest holds every file the row
 * counts. Messages name the state's file in st; import is the flow's
 * import_checkpoint, or NULL. Returns 0 or the code in cp->err
 * (CHECKPOINT_MISSING, FILE_MANIFEST_MISSING, IMPORT_CHECKPOINT_TARGET). */
int weir__checkpoint_check(const weir_checkpoint *cp, const weir_gdataset *t,
                           const weir_storage *st, const char *import,
                           int64_t gen, int64_t next_batch, bool manifest,
                           weir_flow_state *fs);

#endif
