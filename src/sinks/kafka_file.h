/*
 * The Kafka sink's staged batch (sinks/kafka.c): a file of the batch's
 * records, written a DuckDB data chunk at a time while the batch is staged
 * and read a record at a time when it is published. Each record written is
 * also handed back as the sink sends it, decoded from the very bytes that
 * went to the file, so that what is sent while staging and what a
 * recovery sends from the file are the same records.
 *
 * The format: 8 bytes of magic, then one frame per record and a last
 * frame for the end; numbers little-endian. A record's frame: u32 length
 * of its body (below 0xFFFFFFFF), the body, u32 CRC-32 of the body. A
 * body: i32 partition (-1 none, INT32_MIN a negative one of the data), i64
 * timestamp in ms (-1 none), then topic, key, value and headers, each an
 * i32 length (-1 for NULL) and as many bytes. The headers are text,
 * "<hex name>:<'-' or '=' and hex value>,...". The end's frame:
 * 0xFFFFFFFF, i64 record count, u32 CRC-32 of the count. A file without
 * its end, with a wrong checksum or a frame that does not parse is
 * damaged (KAFKA_SINK_STAGE_DAMAGED).
 */
#ifndef WEIR_SINKS_KAFKA_FILE_H
#define WEIR_SINKS_KAFKA_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "kafka/kafka.h"
#include "store/db.h"
#include "util/error.h"

/* ---- writing ------------------------------------------------------------- */

typedef struct weir_kafka_stage_writer weir_kafka_stage_writer;

/* Create (or truncate) the file at path and write its magic. path is
 * copied. */
int weir__kafka_stage_create(weir_kafka_stage_writer **out, const char *path,
                             weir_error *err);

/* Append row `row` of the cursor's current chunk, whose columns are the
 * staging query's: topic, partition (INTEGER), key, value, headers (the
 * text above), timestamp (BIGINT ms). When rec is not NULL, *rec receives
 * the record as written (valid until the next call on w). Errors: a
 * record too large for a frame (KAFKA_SINK_WRITE_FAILED), I/O. */
int weir__kafka_stage_append(weir_kafka_stage_writer *w,
                             const weir_db_cursor *k, size_t row,
                             const weir_kafka_record **rec, weir_error *err);

/* Records appended so far. */
int64_t weir__kafka_stage_count(const weir_kafka_stage_writer *w);

/* Write the end, flush, fsync and close the file (the caller fsyncs its
 * folder). */
int weir__kafka_stage_finish(weir_kafka_stage_writer *w, weir_error *err);

/* Free w; a file not finished is closed as it is (the caller removes it).
 * NULL is fine. */
void weir__kafka_stage_writer_free(weir_kafka_stage_writer *w);

/* ---- reading ------------------------------------------------------------- */

typedef struct weir_kafka_stage_reader weir_kafka_stage_reader;

/* Open the staged file at path and check its magic; *out is NULL (and 0
 * returned) when there is no such file. path is copied. */
int weir__kafka_stage_open(weir_kafka_stage_reader **out, const char *path,
                           weir_error *err);

/* The next record into *rec (valid until the next call on r), NULL after
 * the last one once the end frame checked out. */
int weir__kafka_stage_next(weir_kafka_stage_reader *r,
                           const weir_kafka_record **rec, weir_error *err);

void weir__kafka_stage_reader_free(weir_kafka_stage_reader *r); /* NULL ok */

#endif
