/*
 * The Kafka source's options (sources/kafka.c, docs/kafka.md): the named
 * arguments of read_kafka(...) checked and decoded, for the source and
 * its unit tests.
 */
#ifndef WEIR_SOURCES_KAFKA_H
#define WEIR_SOURCES_KAFKA_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "util/arena.h"
#include "util/error.h"

typedef enum weir_kafka_subscription {
    WEIR_KAFKA_SUBSCRIBE,         /* subscribe => 'a,b' */
    WEIR_KAFKA_SUBSCRIBE_PATTERN, /* subscribePattern => 'regex' */
    WEIR_KAFKA_ASSIGN             /* assign => '{"t":[0,1]}' */
} weir_kafka_subscription;

/* A partition named by assign or startingOffsets; offset -2 is earliest,
 * -1 latest (startingOffsets only). */
typedef struct weir_kafka_opt_partition {
    const char *topic;
    int32_t partition;
    int64_t offset;
} weir_kafka_opt_partition;

typedef struct weir_kafka_opts {
    const char *bootstrap;
    weir_kafka_subscription sub;
    const char *sub_text;   /* the option's value as written */
    const char **topics;    /* subscribe: the topic names */
    size_t n_topics;
    weir_kafka_opt_partition *assigned; /* assign */
    size_t n_assigned;
    int64_t starting;       /* -2 earliest, -1 latest (the default), 0 JSON */
    weir_kafka_opt_partition *start_at; /* startingOffsets JSON */
    size_t n_start_at;
    int64_t max_per_trigger; /* 0: no cap */
    bool fail_on_data_loss;  /* default true */
    bool include_headers;
    weir_kv *client;     /* kafka.* settings and the broker list */
    size_t n_client;
} weir_kafka_opts;

/* Decode the arguments of a read_kafka(...) call into *out (arrays in
 * arena). Unknown, missing or contradictory options are WEIR_ESQL with
 * class INVALID_KAFKA_OPTION and err's line and column at the argument
 * (or unset, for the call's). Client settings are checked too. */
int weir__kafka_opts(weir_kafka_opts *out, weir_arena *arena,
                     const weir_sql_tvf *call, weir_error *err);

#endif
