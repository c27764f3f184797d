/*
 * import_checkpoint (docs/import-checkpoint.md): on a flow's first update,
 * the last committed position of a Spark Structured Streaming checkpoint
 * (spark_checkpoint.h) becomes the flow's batch 0, written through the
 * checkpoint store (state/checkpoint.h) in the transaction of the flow's
 * first batch: the files the Spark query processed go to the file manifest, the
 * Kafka offsets per partition to _weir.kafka_offsets, a checkpoint row
 * per source and the flow_state row. The flow's first batch is then
 * planned from there like any later one.
 */
#ifndef WEIR_SOURCES_IMPORT_H
#define WEIR_SOURCES_IMPORT_H

#include "sources/source.h"

/* One of the flow's streaming sources, in the order the flow reads them. */
typedef struct weir_import_source {
    const weir_input *in;
    const char *key; /* its kind's key() */
} weir_import_source;

/* Import the checkpoint folder `path` (absolute) into the flow of c as
 * batch c->batch_id of generation c->gen. The checkpoint's sources must
 * match srcs (count, kind in order, files under the source path, Kafka
 * topics subscribed): IMPORT_CHECKPOINT_MISMATCH otherwise; other errors
 * come from weir__spark_checkpoint_read. record receives the import as a
 * JSON object (path, query_id, batch_id, sources with their offsets); its
 * path is origin when not NULL (the URL of a checkpoint in object storage
 * that path is a local copy of). */
int weir__source_import(const weir_source_ctx *c, const char *path,
                        const char *origin, const weir_import_source *srcs,
                        size_t n, weir_buf *record);

#endif
