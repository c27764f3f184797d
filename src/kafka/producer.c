/*
 * The Kafka sink's transactional producer. A batch goes to Kafka in one
 * transaction; in the same transaction the producer commits an offset
 * (the "marker") for partition 0 of a topic of the batch in a consumer
 * group named like its transactional.id. The marker says how far the
 * sink got, and it becomes visible with the batch's messages or not at
 * all, so a publisher that was killed can tell, after
 * init_transactions() fenced it, whether its last batch is in Kafka.
 * Every wait is bounded (the options' socket timeout); retriable errors
 * are retried within a few timeouts.
 */
#include "kafka/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/str.h"

/* Retriable errors are retried for at most this many timeouts. */
#define RETRY_TIMEOUTS 3

typedef struct topic_info {
    char *name;
    int partitions;
} topic_info;

struct weir_kafka_txn {
    rd_kafka_t *rk;
    char *id;
    const weir_kv *options; /* borrowed from the caller of open */
    size_t n_options;
    char servers[256]; /* for messages */
    int timeout_ms;
    bool in_txn;       /* a transaction is open */
    rd_kafka_resp_err_t failed; /* first delivery failure */
    char failed_topic[256];
    topic_info *topics; /* partition counts of the topics sent to */
    size_t n_topics, cap_topics;
    rd_kafka_vu_t *vus; /* produceva() arguments, reused */
    size_t cap_vus;
    int64_t sent;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether option key is unset or above ms (librdkafka refuses a message
 * timeout not above the linger). */
static bool timeout_above(const weir_kv *o, size_t n, const char *key,
                          long ms)
{
    const char *v = weir__kv_get(o, n, key);
    return !v || strtol(v, NULL, 10) > ms;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque)
{
    (void)rk;
    weir_kafka_txn *t = opaque;
    if (m->err && !t->failed) {
        t->failed = m->err;
        const char *topic = m->rkt ? rd_kafka_topic_name(m->rkt) : "";
        weir__str_copy(t->failed_topic, sizeof t->failed_topic, topic);
    }
}

static int write_failed(weir_kafka_txn *t, const char *what, const char *why,
                        weir_error *err)
{
    return WEIR_ERR(err, WEIR_EIO, "KAFKA_SINK_WRITE_FAILED",
                    "Kafka sink at %s: %s: %s", t->servers, what, why);
}

/* An error object of the transactional API as a weir error (freed). */
static int txn_failed(weir_kafka_txn *t, rd_kafka_error_t *e, const char *what,
                      weir_error *err)
{
    int rc = write_failed(t, what, rd_kafka_error_string(e), err);
    rd_kafka_error_destroy(e);
    return rc;
}

static int delivery_failed(weir_kafka_txn *t, weir_error *err)
{
    char what[400];
    snprintf(what, sizeof what, "delivering messages to topic %s",
             t->failed_topic);
    return write_failed(t, what, rd_kafka_err2str(t->failed), err);
}

static int conf_set(rd_kafka_conf_t *conf, const char *name, const char *value,
                    weir_error *err)
{
    char why[512];
    if (rd_kafka_conf_set(conf, name, value, why, sizeof why) == RD_KAFKA_CONF_OK)
        return 0;
    return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                    "Kafka sink setting %s = %s: %s", name, value, why);
}

int weir__kafka_txn_open(weir_kafka_txn **out, const weir_kv *options,
                         size_t n, const char *id, weir_error *err)
{
    *out = NULL;
    weir_kafka_txn *t = calloc(1, sizeof *t);
    if (!t || !(t->id = strdup(id))) {
        free(t);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__str_copy(t->servers, sizeof t->servers,
                   weir__kafka_bootstrap(options, n, NULL));
    t->timeout_ms = weir__kafka_timeout_ms(options, n);
    t->options = options;
    t->n_options = n;
    rd_kafka_conf_t *conf = NULL;
    int rc = weir__kafka_conf(options, n, NULL, &conf, err);
    if (!rc)
        rc = conf_set(conf, "transactional.id", id, err);
    /* Java's partitioner (Spark's): murmur2 of the key. */
    if (!rc && !weir__kv_get(options, n, "kafka.partitioner"))
        rc = conf_set(conf, "partitioner", "murmur2_random", err);
    /* A batch is sent whole and then flushed (which sends at once), so
     * waiting for fuller requests costs no latency: with librdkafka's 5
     * ms a producer that DuckDB's scan slows down sends many small
     * requests, and a million messages took 2.0-3.0 s instead of 1.4-1.9
     * (bench/kafka-RESULTS.md). */
    if (!rc && !weir__kv_get(options, n, "kafka.linger.ms") &&
        !weir__kv_get(options, n, "kafka.queue.buffering.max.ms") &&
        timeout_above(options, n, "kafka.message.timeout.ms", 50) &&
        timeout_above(options, n, "kafka.delivery.timeout.ms", 50))
        rc = conf_set(conf, "linger.ms", "50", err);
    if (rc) {
        if (conf)
            rd_kafka_conf_destroy(conf);
        weir__kafka_txn_close(t);
        return rc;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, t);
    char why[512];
    t->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!t->rk) {
        rd_kafka_conf_destroy(conf);
        weir__kafka_txn_close(t);
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                        "Kafka sink client settings: %s", why);
    }
    /* A broker that does not answer at all is named as such. */
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t me = rd_kafka_metadata(t->rk, 0, NULL, &md, t->timeout_ms);
    if (md)
        rd_kafka_metadata_destroy(md);
    if (me) {
        rc = WEIR_ERR(err, WEIR_EIO, "KAFKA_BROKER_UNREACHABLE",
                      "no Kafka broker answered at %s within %d ms (%s)",
                      t->servers, t->timeout_ms, rd_kafka_err2str(me));
        weir__kafka_txn_close(t);
        return rc;
    }
    int64_t deadline = now_ms() + (int64_t)RETRY_TIMEOUTS * t->timeout_ms;
    for (;;) {
        rd_kafka_error_t *e = rd_kafka_init_transactions(t->rk, t->timeout_ms);
        if (!e)
            break;
        if (rd_kafka_error_is_retriable(e) && now_ms() < deadline) {
            rd_kafka_error_destroy(e);
            continue;
        }
        rc = txn_failed(t, e, "initialising transactions", err);
        weir__kafka_txn_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* Errors of an offset fetch that a later attempt may not have. */
static bool fetch_retriable(rd_kafka_resp_err_t e)
{
    return e == RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT ||
           e == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
           e == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE ||
           e == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
           e == RD_KAFKA_RESP_ERR__TIMED_OUT ||
           e == RD_KAFKA_RESP_ERR__TRANSPORT;
}

/* The committed offset of (topic, 0) in the id's group, read by a
 * consumer of that group (which joins nothing). As read_committed, the
 * consumer asks for stable offsets only: an offset of a transaction still
 * open is an error (UNSTABLE_OFFSET_COMMIT, retried), never the value from
 * before it. (librdkafka 2.0's admin ListConsumerGroupOffsets on a
 * producer crashes on NOT_COORDINATOR, which a new group gets: hence a
 * consumer.) */
static rd_kafka_resp_err_t fetch_marker(weir_kafka_txn *t, rd_kafka_t *c,
                                        const char *topic, int64_t *out)
{
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, topic, 0);
    rd_kafka_resp_err_t e = rd_kafka_committed(c, parts, t->timeout_ms);
    if (!e)
        e = parts->elems[0].err;
    if (!e)
        *out = parts->elems[0].offset >= 0 ? parts->elems[0].offset : -1;
    rd_kafka_topic_partition_list_destroy(parts);
    return e;
}

static int marker_reader(rd_kafka_t **out, weir_kafka_txn *t,
                         const weir_kv *options, size_t n, weir_error *err)
{
    *out = NULL;
    rd_kafka_conf_t *conf = NULL;
    int rc = weir__kafka_conf(options, n, NULL, &conf, err);
    if (!rc)
        rc = conf_set(conf, "group.id", t->id, err);
    if (!rc)
        rc = conf_set(conf, "enable.auto.commit", "false", err);
    if (!rc)
        rc = conf_set(conf, "isolation.level", "read_committed", err);
    if (rc) {
        if (conf)
            rd_kafka_conf_destroy(conf);
        return rc;
    }
    char why[512];
    *out = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!*out) {
        rd_kafka_conf_destroy(conf);
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                        "Kafka sink client settings: %s", why);
    }
    return 0;
}

int weir__kafka_txn_marker(weir_kafka_txn *t, const char *topic, int64_t *out,
                           weir_error *err)
{
    *out = -1;
    rd_kafka_t *c = NULL;
    int rc = marker_reader(&c, t, t->options, t->n_options, err);
    int64_t deadline = now_ms() + (int64_t)RETRY_TIMEOUTS * t->timeout_ms;
    while (!rc) {
        rd_kafka_resp_err_t e = fetch_marker(t, c, topic, out);
        if (!e)
            break;
        if (!fetch_retriable(e) || now_ms() >= deadline)
            rc = write_failed(t, "reading the sink's progress (the committed "
                                 "offsets of its consumer group)",
                              rd_kafka_err2str(e), err);
        struct timespec pause = { 0, 100 * 1000000L };
        if (!rc)
            nanosleep(&pause, NULL);
    }
    if (c) {
        rd_kafka_consumer_close(c);
        rd_kafka_destroy(c);
    }
    return rc;
}

int weir__kafka_txn_begin(weir_kafka_txn *t, weir_error *err)
{
    rd_kafka_error_t *e = rd_kafka_begin_transaction(t->rk);
    if (e)
        return txn_failed(t, e, "beginning a transaction", err);
    t->in_txn = true;
    t->failed = RD_KAFKA_RESP_ERR_NO_ERROR;
    return 0;
}

/* The partition count of a topic (from a metadata request the first time
 * it is seen in this transaction's producer). */
static int topic_partitions(weir_kafka_txn *t, const char *name, int *out,
                            weir_error *err)
{
    for (size_t i = 0; i < t->n_topics; i++)
        if (strcmp(t->topics[i].name, name) == 0) {
            *out = t->topics[i].partitions;
            return 0;
        }
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(t->rk, name, NULL);
    if (!rkt)
        return write_failed(t, "topic", rd_kafka_err2str(rd_kafka_last_error()),
                            err);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(t->rk, 0, rkt, &md, t->timeout_ms);
    rd_kafka_topic_destroy(rkt);
    int parts = 0;
    if (!e && md && md->topic_cnt == 1) {
        e = md->topics[0].err;
        parts = md->topics[0].partition_cnt;
    }
    if (md)
        rd_kafka_metadata_destroy(md);
    if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
        e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC || (!e && parts == 0))
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_SINK_WRITE_FAILED",
                        "Kafka sink at %s: topic '%s' does not exist", t->servers,
                        name);
    if (e) {
        char what[400];
        snprintf(what, sizeof what, "metadata of topic %s", name);
        return write_failed(t, what, rd_kafka_err2str(e), err);
    }
    if (t->n_topics == t->cap_topics) {
        size_t cap = t->cap_topics ? t->cap_topics * 2 : 4;
        topic_info *g = realloc(t->topics, cap * sizeof *g);
        if (!g)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        t->topics = g;
        t->cap_topics = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    t->topics[t->n_topics].name = copy;
    t->topics[t->n_topics++].partitions = parts;
    *out = parts;
    return 0;
}

int weir__kafka_txn_send(weir_kafka_txn *t, const weir_kafka_record *r,
                         weir_error *err)
{
    int parts = 0;
    int rc = topic_partitions(t, r->topic, &parts, err);
    if (rc)
        return rc;
    if (r->partition < -1)
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_SINK_WRITE_FAILED",
                        "Kafka sink at %s: a record for topic '%s' has a "
                        "negative partition",
                        t->servers, r->topic);
    if (r->partition >= parts)
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_SINK_WRITE_FAILED",
                        "Kafka sink at %s: partition %d of topic '%s' does not "
                        "exist (it has %d)",
                        t->servers, (int)r->partition, r->topic, parts);
    size_t need = 7 + r->n_headers;
    if (need > t->cap_vus) {
        rd_kafka_vu_t *v = realloc(t->vus, need * sizeof *v);
        if (!v)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        t->vus = v;
        t->cap_vus = need;
    }
    rd_kafka_vu_t *v = t->vus;
    size_t k = 0;
    v[k].vtype = RD_KAFKA_VTYPE_TOPIC;
    v[k++].u.cstr = r->topic;
    v[k].vtype = RD_KAFKA_VTYPE_PARTITION;
    v[k++].u.i32 = r->partition >= 0 ? r->partition : RD_KAFKA_PARTITION_UA;
    v[k].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    v[k++].u.i = RD_KAFKA_MSG_F_COPY;
    v[k].vtype = RD_KAFKA_VTYPE_VALUE;
    v[k].u.mem.ptr = (void *)r->value;
    v[k++].u.mem.size = r->value ? r->value_len : 0;
    if (r->key) {
        v[k].vtype = RD_KAFKA_VTYPE_KEY;
        v[k].u.mem.ptr = (void *)r->key;
        v[k++].u.mem.size = r->key_len;
    }
    if (r->timestamp_ms >= 0) {
        v[k].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
        v[k++].u.i64 = r->timestamp_ms;
    }
    for (size_t i = 0; i < r->n_headers; i++) {
        v[k].vtype = RD_KAFKA_VTYPE_HEADER;
        v[k].u.header.name = r->headers[i].key;
        v[k].u.header.val = r->headers[i].value;
        v[k++].u.header.size = r->headers[i].value ? (ssize_t)r->headers[i].value_len
                                                   : 0;
    }
    for (;;) {
        rd_kafka_error_t *e = rd_kafka_produceva(t->rk, v, k);
        if (!e)
            break;
        if (rd_kafka_error_code(e) != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            char what[400];
            snprintf(what, sizeof what, "sending a message to topic %s", r->topic);
            return txn_failed(t, e, what, err);
        }
        /* The queue drains, or its messages time out (message.timeout.ms)
         * and the delivery report says why. */
        rd_kafka_error_destroy(e);
        rd_kafka_poll(t->rk, 50);
        if (t->failed)
            return delivery_failed(t, err);
    }
    if ((++t->sent & 1023) == 0)
        rd_kafka_poll(t->rk, 0);
    return t->failed ? delivery_failed(t, err) : 0;
}

/* Deliver what was sent: flush while it makes progress. */
static int deliver(weir_kafka_txn *t, weir_error *err)
{
    for (;;) {
        int before = rd_kafka_outq_len(t->rk);
        rd_kafka_resp_err_t e = rd_kafka_flush(t->rk, t->timeout_ms);
        if (t->failed)
            return delivery_failed(t, err);
        if (!e)
            return 0;
        if (rd_kafka_outq_len(t->rk) >= before) {
            char why[128];
            snprintf(why, sizeof why, "no message was delivered within %d ms",
                     t->timeout_ms);
            return write_failed(t, "delivering messages", why, err);
        }
    }
}

/* Run a step of the transaction, retrying retriable errors; an abortable
 * error aborts the transaction. */
static int txn_step(weir_kafka_txn *t, const char *what,
                    const rd_kafka_topic_partition_list_t *offsets,
                    const rd_kafka_consumer_group_metadata_t *group,
                    weir_error *err)
{
    int64_t deadline = now_ms() + (int64_t)RETRY_TIMEOUTS * t->timeout_ms;
    for (;;) {
        rd_kafka_error_t *e =
            offsets ? rd_kafka_send_offsets_to_transaction(t->rk, offsets, group,
                                                           t->timeout_ms)
                    : rd_kafka_commit_transaction(t->rk, t->timeout_ms);
        if (!e)
            return 0;
        if (rd_kafka_error_is_retriable(e) && now_ms() < deadline) {
            rd_kafka_error_destroy(e);
            continue;
        }
        if (t->failed) {
            rd_kafka_error_destroy(e);
            return delivery_failed(t, err);
        }
        return txn_failed(t, e, what, err);
    }
}

bool weir__kafka_txn_fenced(const weir_kafka_txn *t)
{
    if (!t || !t->rk)
        return false;
    char why[256];
    rd_kafka_resp_err_t e = rd_kafka_fatal_error(t->rk, why, sizeof why);
    /* The fencing may show first in a delivery report (messages that
     * waited in the queue when the other producer took the id), before
     * librdkafka raises it as the producer's fatal error. */
    if (!e)
        e = t->failed;
    return e == RD_KAFKA_RESP_ERR__FENCED || e == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
           e == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

int weir__kafka_txn_commit(weir_kafka_txn *t, const char *topic,
                           int64_t marker, const char *note, weir_error *err)
{
    int rc = deliver(t, err);
    if (rc)
        return rc;
    rd_kafka_topic_partition_list_t *offsets = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t *p = rd_kafka_topic_partition_list_add(offsets, topic, 0);
    p->offset = marker;
    size_t len = strlen(note);
    p->metadata = malloc(len + 1);
    if (p->metadata) {
        memcpy(p->metadata, note, len + 1);
        p->metadata_size = len;
    }
    rd_kafka_consumer_group_metadata_t *group =
        rd_kafka_consumer_group_metadata_new(t->id);
    rc = txn_step(t, "recording the batch in the transaction", offsets, group,
                  err);
    rd_kafka_consumer_group_metadata_destroy(group);
    rd_kafka_topic_partition_list_destroy(offsets);
    if (!rc)
        rc = txn_step(t, "committing the transaction", NULL, NULL, err);
    if (!rc)
        t->in_txn = false;
    return rc;
}

void weir__kafka_txn_close(weir_kafka_txn *t)
{
    if (!t)
        return;
    if (t->rk) {
        if (t->in_txn) {
            /* Nothing of the transaction becomes visible; the next
             * init_transactions() would abort it anyway. */
            rd_kafka_purge(t->rk, RD_KAFKA_PURGE_F_QUEUE);
            rd_kafka_error_t *e = rd_kafka_abort_transaction(t->rk, t->timeout_ms);
            if (e)
                rd_kafka_error_destroy(e);
        }
        rd_kafka_purge(t->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_destroy(t->rk);
    }
    for (size_t i = 0; i < t->n_topics; i++)
        free(t->topics[i].name);
    free(t->topics);
    free(t->vus);
    free(t->id);
    free(t);
}
