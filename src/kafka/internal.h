/*
 * What the files of the Kafka module share (not for other modules): the
 * librdkafka configuration built from options.
 */
#ifndef WEIR_KAFKA_INTERNAL_H
#define WEIR_KAFKA_INTERNAL_H

#include "kafka/kafka.h"
#include "kafka/rdk.h"

/* A new librdkafka configuration (caller owns it; rd_kafka_new() takes
 * it) from the `kafka.*` options, with weir's bounded timeouts and quiet
 * logging. bootstrap: see weir__kafka_check_options(). */
int weir__kafka_conf(const weir_kv *options, size_t n,
                     const char *bootstrap, rd_kafka_conf_t **out,
                     weir_error *err);

/* A client's timeout for one request (ms): socket.timeout.ms of the
 * options or WEIR_KAFKA_TIMEOUT_MS. */
int weir__kafka_timeout_ms(const weir_kv *options, size_t n);

/* The broker list of the configuration, for messages. */
const char *weir__kafka_bootstrap(const weir_kv *options, size_t n,
                                  const char *bootstrap);

#endif
