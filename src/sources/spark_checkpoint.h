/*
 * Reading a Spark Structured Streaming checkpoint folder (the
 * checkpointLocation of a query), for import_checkpoint
 * (docs/import-checkpoint.md). Only reads: the folder is never written.
 *
 *   metadata       {"id": "<query id>"}
 *   offsets/N      "v1", the batch's metadata JSON, then one line per
 *                  source: its end offset as JSON ("-" = none yet)
 *   commits/N      "v1" (or "v2"), then JSON: batch N committed
 *   sources/I/N    the file source's log of source I: "v1", then one JSON
 *                  line per file ({"path", "timestamp", "batchId"});
 *                  N.compact holds every entry up to batch N (Spark
 *                  compacts every 10 batches by default)
 *   state/         operator state (aggregations, deduplication, ...)
 *
 * The batch taken is the last one: it must have both its offsets and its
 * commit. Offset log v1 is what Spark 3.x and 4.x write.
 */
#ifndef WEIR_SOURCES_SPARK_CHECKPOINT_H
#define WEIR_SOURCES_SPARK_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

typedef enum weir_spark_source_kind {
    WEIR_SPARK_FILES, /* FileStreamSource: {"logOffset": N} */
    WEIR_SPARK_KAFKA, /* KafkaSource: {"topic": {"0": offset, ...}, ...} */
} weir_spark_source_kind;

typedef struct weir_spark_file {
    const char *path;  /* a local path (the log's file: URI decoded) */
    int64_t timestamp; /* modification time Spark saw, in ms */
} weir_spark_file;

typedef struct weir_spark_partition {
    const char *topic;
    int32_t partition;
    int64_t offset; /* the next offset to read */
} weir_spark_partition;

typedef struct weir_spark_source {
    weir_spark_source_kind kind;
    const char *offset;   /* the offset line as written */
    int64_t log_offset;   /* files: the source log's last batch */
    weir_spark_file *files; /* files: every file processed up to it
                               (weir__spark_checkpoint_files) */
    size_t n_files;
    weir_spark_partition *parts; /* kafka */
    size_t n_parts;
} weir_spark_source;

typedef struct weir_spark_checkpoint {
    const char *path;     /* the folder */
    const char *query_id; /* metadata's id */
    int64_t batch_id;     /* the last committed batch */
    weir_spark_source *sources; /* in the query's order */
    size_t n_sources;
} weir_spark_checkpoint;

/* Read the checkpoint folder dir (in arena a). Errors, each naming the
 * path: IMPORT_CHECKPOINT_NOT_FOUND (no folder, or not a checkpoint),
 * IMPORT_CHECKPOINT_INCOMPLETE (no committed batch, an offset without
 * its commit, a missing source log), IMPORT_CHECKPOINT_UNSUPPORTED (an
 * offset log version or source kind weir does not read, operator state),
 * IMPORT_CHECKPOINT_INVALID (a file that does not parse). */
int weir__spark_checkpoint_read(weir_spark_checkpoint *out, weir_arena *a,
                                const char *dir, weir_error *err);

/* Fill files of file source i from its log (sources/i/): every file it
 * processed up to its log_offset. IMPORT_CHECKPOINT_INCOMPLETE when a log
 * file is missing. */
int weir__spark_checkpoint_files(weir_spark_checkpoint *sc, size_t i,
                                 weir_arena *a, weir_error *err);

#endif
