/*
 * Kafka: weir's client of Apache Kafka brokers, used by the Kafka source
 * (sources/kafka.c) and sink (sinks/kafka.c). librdkafka stays behind this
 * header: callers see opaque handles and weir errors only.
 *
 * Client settings come from a source's or sink's options: every
 * `kafka.<name>` option is passed to librdkafka as <name> (security
 * settings included), and weir bounds every network wait (see client.c) so
 * that an unreachable broker is an error naming its address, never a hang.
 */
#ifndef WEIR_KAFKA_KAFKA_H
#define WEIR_KAFKA_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/kv.h"

/* How long weir waits for a broker's answer before an error (ms), unless
 * the `kafka.socket.timeout.ms` option says otherwise. */
#define WEIR_KAFKA_TIMEOUT_MS 10000

/* Is `key` (case-insensitive) a client setting, `kafka.<name>`? */
bool weir__kafka_is_client_option(const char *key);

/* Check the client settings among options without connecting: each
 * `kafka.<name>` must be a librdkafka setting with a valid value. Errors:
 * WEIR_ESQL with INVALID_KAFKA_OPTION naming the option. `bootstrap` is
 * the broker list when the caller has it from another option (NULL: from
 * `kafka.bootstrap.servers`, which is then required). */
int weir__kafka_check_options(const weir_kv *options, size_t n,
                              const char *bootstrap, weir_error *err);

/* Ask the brokers for metadata within the timeout: an unreachable or
 * refusing broker is WEIR_EIO with KAFKA_BROKER_UNREACHABLE and the
 * address. For dry runs and the start of a batch. */
int weir__kafka_probe(const weir_kv *options, size_t n,
                      const char *bootstrap, weir_error *err);

/* ---- the consumer of the Kafka source (consumer.c) ----------------------
 * One client per batch plan: metadata, watermarks, then the messages of
 * fixed offset ranges. It never joins a consumer group and never commits
 * offsets to Kafka: the source's offsets live in weir's checkpoints. */
typedef struct weir_kafka_consumer weir_kafka_consumer;

/* A consumer with the client settings of options (see
 * weir__kafka_check_options); nothing is sent yet. It prefetches up to
 * 64 MiB of messages (queued.max.messages.kbytes, unless the options set
 * it). */
int weir__kafka_consumer_open(weir_kafka_consumer **out,
                              const weir_kv *options, size_t n,
                              const char *bootstrap, weir_error *err);
void weir__kafka_consumer_close(weir_kafka_consumer *c); /* NULL: nothing */

/* One partition of a topic and its offsets. */
typedef struct weir_kafka_partition {
    const char *topic; /* borrowed (consumer: valid until the next call or
                          close; callers: their own) */
    int32_t partition;  /* -1: the topic's metadata is in error */
    int64_t start, end; /* fetching: the range [start, end) */
    const char *error;  /* partition -1: why (e.g. no leader yet) */
} weir_kafka_partition;

/* The cluster's topics (internal ones like __consumer_offsets left out)
 * and their partitions, from one metadata request: *out (n_out entries,
 * start and end 0) is valid until the next call or close. A topic whose
 * metadata is in error (other than not existing) is one entry with
 * partition -1 and the error. An unreachable
 * broker is WEIR_EIO with KAFKA_BROKER_UNREACHABLE and the address. */
int weir__kafka_partitions(weir_kafka_consumer *c,
                           const weir_kafka_partition **out, size_t *n_out,
                           weir_error *err);

/* The low and high watermarks of a partition (with isolation.level
 * read_committed, the default, the high one is the last stable offset). */
int weir__kafka_watermarks(weir_kafka_consumer *c, const char *topic,
                           int32_t partition, int64_t *low, int64_t *high,
                           weir_error *err);

/* A message as fetched (all borrowed for the callback). */
typedef struct weir_kafka_header {
    const char *key;
    const void *value; /* NULL: a null value */
    size_t value_len;
} weir_kafka_header;
typedef struct weir_kafka_message {
    const char *topic;
    int32_t partition;
    int64_t offset;
    const void *key, *value; /* NULL: null */
    size_t key_len, value_len;
    int64_t timestamp_ms;
    int timestamp_type; /* Spark's: 0 CreateTime, 1 LogAppendTime, -1 none */
    const weir_kafka_header *headers;
    size_t n_headers; /* only when fetched with headers */
} weir_kafka_message;
typedef int (*weir_kafka_on_message)(void *payload,
                                     const weir_kafka_message *m,
                                     weir_error *err);

/* Reading the messages of the ranges [start, end) of parts, pulled a few
 * at a time (the source's scan reads them while the flow's query runs):
 * begin assigns the ranges (parts stays borrowed until end); next passes
 * at most max messages to on_message, in offset order per partition
 * (*delivered of them), and sets *finished once every range is read; end
 * unassigns (close does too).
 *
 * A partition is done when the consumer's position reaches end, not by
 * counting messages (transaction markers and aborted messages leave gaps
 * under read_committed). A range whose end is not readable (under
 * read_committed, past the last stable offset while a transaction is
 * open) ends where the partition's readable messages end: parts[i].end is
 * lowered to it. No answer for the timeout is KAFKA_BROKER_UNREACHABLE;
 * an offset that no longer exists is KAFKA_OFFSET_OUT_OF_RANGE (the
 * source plans again). */
int weir__kafka_fetch_begin(weir_kafka_consumer *c, weir_kafka_partition *parts,
                            size_t n, bool with_headers, weir_error *err);
int weir__kafka_fetch_next(weir_kafka_consumer *c, size_t max,
                           weir_kafka_on_message on_message, void *payload,
                           size_t *delivered, bool *finished, weir_error *err);
void weir__kafka_fetch_end(weir_kafka_consumer *c);

/* ---- transactional producer (producer.c): the Kafka sink ---------------- */

/* One message to publish (headers: weir_kafka_header above). key NULL: no
 * key; value NULL: a null value. */
typedef struct weir_kafka_record {
    const char *topic;
    int32_t partition;    /* -1: the partitioner's choice (murmur2 of the key,
                             as Java clients and Spark, unless the option
                             kafka.partitioner says otherwise); below -1:
                             invalid (an error when sent) */
    const void *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    const weir_kafka_header *headers;
    size_t n_headers;
    int64_t timestamp_ms; /* -1: the time of sending */
} weir_kafka_record;

/* A transactional producer whose transactional.id is also the id of the
 * consumer group in which each transaction records how far it got (the
 * marker, an offset committed in the same transaction as the messages). */
typedef struct weir_kafka_txn weir_kafka_txn;

/* Connect and initialise transactions for `id`: this fences any other
 * producer with that id and aborts a transaction a killed process left
 * open (or waits until one it committed is complete). Bounded waits; an
 * unreachable broker is WEIR_EIO with KAFKA_BROKER_UNREACHABLE and the
 * address, other failures KAFKA_SINK_WRITE_FAILED. options: as for
 * weir__kafka_conf (they may not set transactional.id and friends: the
 * sink refuses those); borrowed until weir__kafka_txn_close(). */
int weir__kafka_txn_open(weir_kafka_txn **out, const weir_kv *options,
                         size_t n, const char *id, weir_error *err);

/* The marker committed for `topic` partition 0 in the id's group, as read
 * by read_committed consumers (committed transactions only); -1 when none. */
int weir__kafka_txn_marker(weir_kafka_txn *t, const char *topic, int64_t *out,
                           weir_error *err);

/* Begin a transaction, then send records into it (the record's memory is
 * copied). Errors: an unknown topic or partition, a message too large,
 * delivery failures (KAFKA_SINK_WRITE_FAILED). */
int weir__kafka_txn_begin(weir_kafka_txn *t, weir_error *err);
int weir__kafka_txn_send(weir_kafka_txn *t, const weir_kafka_record *r,
                         weir_error *err);

/* Deliver everything sent, record marker (> 0) for `topic` partition 0
 * with the text `note` in the group, and commit the transaction: the
 * messages and the marker become visible together, or not at all (a
 * failure aborts the transaction). */
int weir__kafka_txn_commit(weir_kafka_txn *t, const char *topic,
                           int64_t marker, const char *note, weir_error *err);

/* Whether another producer of t's transactional.id fenced t (a fatal
 * error, or a delivery report that said so first: t can send nothing
 * more). NULL: false. */
bool weir__kafka_txn_fenced(const weir_kafka_txn *t);

/* Abort an open transaction (best effort) and close. NULL is fine. */
void weir__kafka_txn_close(weir_kafka_txn *t);

#endif
