/*
 * Unit tests of the Kafka sink's producer settings (kafka/producer.c) that
 * need no broker: the producer is made before it connects, so a setting
 * librdkafka refuses fails as INVALID_KAFKA_OPTION, and one it takes goes
 * on to find no broker at an address where none listens.
 */
#include <string.h>

#include "harness.h"
#include "kafka/kafka.h"

/* The error class of opening a transactional producer with options
 * (n pairs) against a closed port, with a short socket timeout. */
static const char *open_class(const weir_kv *extra, size_t n,
                              char *cls, size_t size)
{
    weir_kv o[8] = { { "kafka.bootstrap.servers", "127.0.0.1:1" },
                         { "kafka.socket.timeout.ms", "300" } };
    for (size_t i = 0; i < n && i < 6; i++)
        o[2 + i] = extra[i];
    weir_kafka_txn *t = NULL;
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = weir__kafka_txn_open(&t, o, 2 + n, "weir-test", &err);
    weir__kafka_txn_close(t);
    snprintf(cls, size, "%s", rc ? err.error_class : "");
    return cls;
}

TEST(test_kafka_producer__linger_yields_to_short_timeouts)
{
    /* weir's default linger (50 ms) is left out when a message or
     * delivery timeout of 50 ms or less is given: librdkafka refuses a
     * message timeout not above the linger. */
    char cls[128];
    static const weir_kv msg40[] = { { "kafka.message.timeout.ms", "40" } };
    static const weir_kv del50[] = { { "kafka.delivery.timeout.ms", "50" } };
    CHECK_STR(open_class(msg40, 1, cls, sizeof cls), "KAFKA_BROKER_UNREACHABLE");
    CHECK_STR(open_class(del50, 1, cls, sizeof cls), "KAFKA_BROKER_UNREACHABLE");
    /* The user's own linger against their timeout is theirs to fix. */
    static const weir_kv both[] = { { "kafka.message.timeout.ms", "40" },
                                        { "kafka.linger.ms", "100" } };
    CHECK_STR(open_class(both, 2, cls, sizeof cls), "INVALID_KAFKA_OPTION");
}

TEST(test_kafka_producer__short_socket_timeout)
{
    /* kafka.socket.timeout.ms under a second (300 ms in open_class) is
     * taken: weir's connection set-up timeout, which follows it, stays at
     * librdkafka's least (1 s) instead of failing the client. */
    char cls[128];
    CHECK_STR(open_class(NULL, 0, cls, sizeof cls), "KAFKA_BROKER_UNREACHABLE");
}

TEST_MAIN(RUN(test_kafka_producer__linger_yields_to_short_timeouts);
          RUN(test_kafka_producer__short_socket_timeout))
