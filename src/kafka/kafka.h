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

#include "graph/graph.h"
#include "util/error.h"

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
int weir__kafka_check_options(const weir_kvpair *options, size_t n,
                              const char *bootstrap, weir_error *err);

/* Ask the brokers for metadata within the timeout: an unreachable or
 * refusing broker is WEIR_EIO with KAFKA_BROKER_UNREACHABLE and the
 * address. For dry runs and the start of a batch. */
int weir__kafka_probe(const weir_kvpair *options, size_t n,
                      const char *bootstrap, weir_error *err);

#endif
