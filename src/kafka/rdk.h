/*
 * librdkafka, loaded when the first Kafka client is configured
 * (weir__rdk_load) instead of with libweir: a process that reads no topic
 * does not load librdkafka, OpenSSL, SASL and the compression libraries
 * (about 1.5 ms of every weir command's start). The Kafka module's files
 * include this header instead of <librdkafka/rdkafka.h>: each librdkafka
 * function it calls is a function-like macro that calls the pointer dlsym
 * found (function-like, so that struct tags of the same name, such as
 * struct rd_kafka_metadata, stay what they are).
 *
 * The table is process-wide, like the dynamic loader's own state: written
 * once (pthread_once) and only read after, so it holds no state of a
 * pipeline.
 */
#ifndef WEIR_KAFKA_RDK_H
#define WEIR_KAFKA_RDK_H

#include <librdkafka/rdkafka.h>

#include "util/error.h"

/* The soname of librdkafka 1.x and 2.x (Debian's librdkafka1); 1.5 or
 * later (rd_kafka_message_errstr is a function from 1.5 on). */
#define WEIR_RDK_SONAME "librdkafka.so.1"

/* Every librdkafka function weir calls. */
#define WEIR_RDK_FUNCTIONS(X) \
    X(rd_kafka_abort_transaction) \
    X(rd_kafka_assign) \
    X(rd_kafka_begin_transaction) \
    X(rd_kafka_commit_transaction) \
    X(rd_kafka_committed) \
    X(rd_kafka_conf_destroy) \
    X(rd_kafka_conf_new) \
    X(rd_kafka_conf_set) \
    X(rd_kafka_conf_set_dr_msg_cb) \
    X(rd_kafka_conf_set_log_cb) \
    X(rd_kafka_conf_set_opaque) \
    X(rd_kafka_consume_batch_queue) \
    X(rd_kafka_consumer_close) \
    X(rd_kafka_consumer_group_metadata_destroy) \
    X(rd_kafka_consumer_group_metadata_new) \
    X(rd_kafka_destroy) \
    X(rd_kafka_err2str) \
    X(rd_kafka_error_code) \
    X(rd_kafka_error_destroy) \
    X(rd_kafka_error_is_retriable) \
    X(rd_kafka_error_string) \
    X(rd_kafka_fatal_error) \
    X(rd_kafka_flush) \
    X(rd_kafka_header_cnt) \
    X(rd_kafka_header_get_all) \
    X(rd_kafka_init_transactions) \
    X(rd_kafka_last_error) \
    X(rd_kafka_message_destroy) \
    X(rd_kafka_message_errstr) \
    X(rd_kafka_message_headers) \
    X(rd_kafka_message_timestamp) \
    X(rd_kafka_metadata) \
    X(rd_kafka_metadata_destroy) \
    X(rd_kafka_new) \
    X(rd_kafka_outq_len) \
    X(rd_kafka_poll) \
    X(rd_kafka_produceva) \
    X(rd_kafka_purge) \
    X(rd_kafka_query_watermark_offsets) \
    X(rd_kafka_queue_destroy) \
    X(rd_kafka_queue_get_consumer) \
    X(rd_kafka_send_offsets_to_transaction) \
    X(rd_kafka_topic_destroy) \
    X(rd_kafka_topic_name) \
    X(rd_kafka_topic_new) \
    X(rd_kafka_topic_partition_list_add) \
    X(rd_kafka_topic_partition_list_destroy) \
    X(rd_kafka_topic_partition_list_new)

typedef struct weir_rdk {
#define WEIR_RDK_POINTER(f) __typeof__(f) *f;
    WEIR_RDK_FUNCTIONS(WEIR_RDK_POINTER)
#undef WEIR_RDK_POINTER
} weir_rdk;

/* Load librdkafka (once per process; thread-safe). Errors: WEIR_ERROR
 * (KAFKA_LIBRARY_MISSING) when it or one of its functions is missing. */
int weir__rdk_load(weir_error *err);
/* The functions; only after weir__rdk_load succeeded. */
const weir_rdk *weir__rdk(void);

#ifndef WEIR_RDK_LOADER
#define rd_kafka_abort_transaction(...) (weir__rdk()->rd_kafka_abort_transaction(__VA_ARGS__))
#define rd_kafka_assign(...) (weir__rdk()->rd_kafka_assign(__VA_ARGS__))
#define rd_kafka_begin_transaction(...) (weir__rdk()->rd_kafka_begin_transaction(__VA_ARGS__))
#define rd_kafka_commit_transaction(...) (weir__rdk()->rd_kafka_commit_transaction(__VA_ARGS__))
#define rd_kafka_committed(...) (weir__rdk()->rd_kafka_committed(__VA_ARGS__))
#define rd_kafka_conf_destroy(...) (weir__rdk()->rd_kafka_conf_destroy(__VA_ARGS__))
#define rd_kafka_conf_new(...) (weir__rdk()->rd_kafka_conf_new(__VA_ARGS__))
#define rd_kafka_conf_set(...) (weir__rdk()->rd_kafka_conf_set(__VA_ARGS__))
#define rd_kafka_conf_set_dr_msg_cb(...) (weir__rdk()->rd_kafka_conf_set_dr_msg_cb(__VA_ARGS__))
#define rd_kafka_conf_set_log_cb(...) (weir__rdk()->rd_kafka_conf_set_log_cb(__VA_ARGS__))
#define rd_kafka_conf_set_opaque(...) (weir__rdk()->rd_kafka_conf_set_opaque(__VA_ARGS__))
#define rd_kafka_consume_batch_queue(...) (weir__rdk()->rd_kafka_consume_batch_queue(__VA_ARGS__))
#define rd_kafka_consumer_close(...) (weir__rdk()->rd_kafka_consumer_close(__VA_ARGS__))
#define rd_kafka_consumer_group_metadata_destroy(...) (weir__rdk()->rd_kafka_consumer_group_metadata_destroy(__VA_ARGS__))
#define rd_kafka_consumer_group_metadata_new(...) (weir__rdk()->rd_kafka_consumer_group_metadata_new(__VA_ARGS__))
#define rd_kafka_destroy(...) (weir__rdk()->rd_kafka_destroy(__VA_ARGS__))
#define rd_kafka_err2str(...) (weir__rdk()->rd_kafka_err2str(__VA_ARGS__))
#define rd_kafka_error_code(...) (weir__rdk()->rd_kafka_error_code(__VA_ARGS__))
#define rd_kafka_error_destroy(...) (weir__rdk()->rd_kafka_error_destroy(__VA_ARGS__))
#define rd_kafka_error_is_retriable(...) (weir__rdk()->rd_kafka_error_is_retriable(__VA_ARGS__))
#define rd_kafka_error_string(...) (weir__rdk()->rd_kafka_error_string(__VA_ARGS__))
#define rd_kafka_fatal_error(...) (weir__rdk()->rd_kafka_fatal_error(__VA_ARGS__))
#define rd_kafka_flush(...) (weir__rdk()->rd_kafka_flush(__VA_ARGS__))
#define rd_kafka_header_cnt(...) (weir__rdk()->rd_kafka_header_cnt(__VA_ARGS__))
#define rd_kafka_header_get_all(...) (weir__rdk()->rd_kafka_header_get_all(__VA_ARGS__))
#define rd_kafka_init_transactions(...) (weir__rdk()->rd_kafka_init_transactions(__VA_ARGS__))
#define rd_kafka_last_error(...) (weir__rdk()->rd_kafka_last_error(__VA_ARGS__))
#define rd_kafka_message_destroy(...) (weir__rdk()->rd_kafka_message_destroy(__VA_ARGS__))
#define rd_kafka_message_errstr(...) (weir__rdk()->rd_kafka_message_errstr(__VA_ARGS__))
#define rd_kafka_message_headers(...) (weir__rdk()->rd_kafka_message_headers(__VA_ARGS__))
#define rd_kafka_message_timestamp(...) (weir__rdk()->rd_kafka_message_timestamp(__VA_ARGS__))
#define rd_kafka_metadata(...) (weir__rdk()->rd_kafka_metadata(__VA_ARGS__))
#define rd_kafka_metadata_destroy(...) (weir__rdk()->rd_kafka_metadata_destroy(__VA_ARGS__))
#define rd_kafka_new(...) (weir__rdk()->rd_kafka_new(__VA_ARGS__))
#define rd_kafka_outq_len(...) (weir__rdk()->rd_kafka_outq_len(__VA_ARGS__))
#define rd_kafka_poll(...) (weir__rdk()->rd_kafka_poll(__VA_ARGS__))
#define rd_kafka_produceva(...) (weir__rdk()->rd_kafka_produceva(__VA_ARGS__))
#define rd_kafka_purge(...) (weir__rdk()->rd_kafka_purge(__VA_ARGS__))
#define rd_kafka_query_watermark_offsets(...) (weir__rdk()->rd_kafka_query_watermark_offsets(__VA_ARGS__))
#define rd_kafka_queue_destroy(...) (weir__rdk()->rd_kafka_queue_destroy(__VA_ARGS__))
#define rd_kafka_queue_get_consumer(...) (weir__rdk()->rd_kafka_queue_get_consumer(__VA_ARGS__))
#define rd_kafka_send_offsets_to_transaction(...) (weir__rdk()->rd_kafka_send_offsets_to_transaction(__VA_ARGS__))
#define rd_kafka_topic_destroy(...) (weir__rdk()->rd_kafka_topic_destroy(__VA_ARGS__))
#define rd_kafka_topic_name(...) (weir__rdk()->rd_kafka_topic_name(__VA_ARGS__))
#define rd_kafka_topic_new(...) (weir__rdk()->rd_kafka_topic_new(__VA_ARGS__))
#define rd_kafka_topic_partition_list_add(...) (weir__rdk()->rd_kafka_topic_partition_list_add(__VA_ARGS__))
#define rd_kafka_topic_partition_list_destroy(...) (weir__rdk()->rd_kafka_topic_partition_list_destroy(__VA_ARGS__))
#define rd_kafka_topic_partition_list_new(...) (weir__rdk()->rd_kafka_topic_partition_list_new(__VA_ARGS__))
#endif

#endif
