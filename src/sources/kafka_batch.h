/*
 * The Kafka source's batch (sources/kafka.c plans it and records it,
 * sources/kafka_read.c reads its messages while the flow's query runs).
 * Not for other modules.
 */
#ifndef WEIR_SOURCES_KAFKA_BATCH_H
#define WEIR_SOURCES_KAFKA_BATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kafka/kafka.h"
#include "sources/kafka.h"
#include "sources/source.h"

/* One partition of a batch. */
typedef struct kpart {
    const char *topic;
    int32_t partition;
    bool stored;        /* the flow's last batch recorded it */
    bool vanished;      /* recorded, but no longer in the cluster */
    int64_t last;       /* its recorded end offset */
    int64_t low, high;  /* watermarks now */
    int64_t from, end;  /* this batch reads [from, end) */
} kpart;

typedef struct kafka_batch {
    weir_kafka_opts opts;
    kpart *parts;
    size_t n_parts;
    bool first;         /* the flow's first batch in its generation */
    /* What the flow's query reads (weir__kafka_add_scans): */
    weir_kafka_partition *ranges; /* the partitions with messages to read */
    size_t n_ranges;
    weir_conn *conn;    /* set once the scans' lock is initialized */
    int64_t scan, hscan; /* the messages' and headers' scans, or 0 */
    weir_kafka_consumer *kc; /* the planning consumer, for the first lane
                                that starts (kc_busy while it has it) */
    /* Set by reads, under lock: */
    pthread_mutex_t lock;
    bool kc_busy;
    bool read;          /* the messages were read to their end */
    int64_t rows;       /* how many */
    const char *local;  /* local topics: their catalog (render reads them) */
} kafka_batch;

/* The scans the flow's query reads kb's messages (and headers) from,
 * added to c's connection: kb->ranges are the planned ranges of its
 * partitions, and kb->lock, kb->read and kb->rows are set up for the
 * reads (kafka.c's release() removes the scans and destroys the lock). */
int weir__kafka_add_scans(const weir_source_ctx *c, kafka_batch *kb);

#endif
