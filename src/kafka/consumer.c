/*
 * The consumer of the Kafka source (see kafka.h): topic metadata,
 * watermarks and the messages of fixed offset ranges, with every wait
 * bounded. Offsets are assigned explicitly (no consumer group, nothing
 * committed to Kafka) and out-of-range offsets are errors, never reset.
 */
#include "kafka/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/str.h"

struct weir_kafka_consumer {
    rd_kafka_t *rk;
    const char *servers; /* borrowed from the options */
    int timeout_ms;
    const struct rd_kafka_metadata *md;
    weir_kafka_partition *parts;
    size_t n_parts;
    weir_kafka_header *headers;
    size_t cap_headers;
    /* The ranges being read (weir__kafka_fetch_begin ... _end). */
    weir_kafka_partition *ranges; /* borrowed */
    size_t n_ranges, n_done;
    bool *done;
    bool with_headers, assigned;
    rd_kafka_queue_t *queue;
    int64_t deadline;
};

static int unreachable(weir_kafka_consumer *c, rd_kafka_resp_err_t e,
                       weir_error *err)
{
    return WEIR_ERR(err, WEIR_EIO, "KAFKA_BROKER_UNREACHABLE",
                    "no Kafka broker answered at %s within %d ms (%s)",
                    c->servers, c->timeout_ms, rd_kafka_err2str(e));
}


int weir__kafka_consumer_open(weir_kafka_consumer **out,
                              const weir_kv *options, size_t n,
                              const char *bootstrap, weir_error *err)
{
    *out = NULL;
    rd_kafka_conf_t *conf;
    int rc = weir__kafka_conf(options, n, bootstrap, &conf, err);
    if (rc)
        return rc;
    /* The source's own rules, whatever the options say: explicit offsets,
     * nothing committed to Kafka, end of partition reported, offsets out
     * of range reported instead of silently reset. */
    static const char *const fixed[] = {
        "enable.auto.commit", "false",
        "enable.auto.offset.store", "false",
        "enable.partition.eof", "true",
        "auto.offset.reset", "error",
        "group.id", "weir-kafka-source",
        NULL
    };
    char why[512];
    /* Defaults the options may override. A partition whose last offsets
     * are transaction markers is done at the end-of-partition event, which
     * comes after an empty fetch: shorter waits than librdkafka's 500 ms.
     * A batch reads known ranges as fast as it can: a deeper prefetch than
     * librdkafka's (100000 messages, 1 MiB per partition and fetch) keeps
     * the fetcher ahead of the appender, within librdkafka's 64 MiB of
     * prefetched messages. Each lane of a batch has that much: once its
     * queue is full, librdkafka 2.0 waits up to about a second before it
     * fetches again, so a queue a lane drains in less than that stalls the
     * lane (1M messages in 2 lanes: 1.42 s with 32 MiB a lane, 1.24 s with
     * 64 MiB). */
    const char *const defaults[] = {
        "fetch.wait.max.ms", "50",
        "queued.min.messages", "1000000",
        "fetch.message.max.bytes", "4194304",
        "queued.max.messages.kbytes", "65536",
        NULL
    };
    for (size_t d = 0; defaults[d]; d += 2) {
        bool set = false;
        for (size_t i = 0; i < n; i++)
            set |= weir__kafka_is_client_option(options[i].key) &&
                   weir__str_ieq(options[i].key + 6, defaults[d]);
        if (!set && rd_kafka_conf_set(conf, defaults[d], defaults[d + 1], why,
                                      sizeof why)) {
            rd_kafka_conf_destroy(conf);
            return WEIR_ERR(err, WEIR_ERROR, NULL, "Kafka client: %s", why);
        }
    }
    for (size_t i = 0; fixed[i]; i += 2)
        if (rd_kafka_conf_set(conf, fixed[i], fixed[i + 1], why, sizeof why)) {
            rd_kafka_conf_destroy(conf);
            return WEIR_ERR(err, WEIR_ERROR, NULL, "Kafka client: %s", why);
        }
    weir_kafka_consumer *c = calloc(1, sizeof(*c));
    if (!c) {
        rd_kafka_conf_destroy(conf);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    c->servers = weir__kafka_bootstrap(options, n, bootstrap);
    c->timeout_ms = weir__kafka_timeout_ms(options, n);
    c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!c->rk) {
        rd_kafka_conf_destroy(conf);
        free(c);
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                        "Kafka client settings: %s", why);
    }
    *out = c;
    return 0;
}

void weir__kafka_consumer_close(weir_kafka_consumer *c)
{
    if (!c)
        return;
    weir__kafka_fetch_end(c);
    if (c->md)
        rd_kafka_metadata_destroy(c->md);
    free(c->parts);
    free(c->headers);
    rd_kafka_destroy(c->rk);
    free(c);
}

int weir__kafka_partitions(weir_kafka_consumer *c,
                           const weir_kafka_partition **out, size_t *n_out,
                           weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    if (c->md)
        rd_kafka_metadata_destroy(c->md);
    c->md = NULL;
    free(c->parts);
    c->parts = NULL;
    c->n_parts = 0;
    rd_kafka_resp_err_t e = rd_kafka_metadata(c->rk, 1, NULL, &c->md,
                                              c->timeout_ms);
    if (e)
        return unreachable(c, e, err);
    size_t n = 0;
    for (int t = 0; t < c->md->topic_cnt; t++)
        n += (size_t)c->md->topics[t].partition_cnt + 1;
    c->parts = calloc(n + 1, sizeof(*c->parts));
    if (!c->parts)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (int t = 0; t < c->md->topic_cnt; t++) {
        const rd_kafka_metadata_topic_t *mt = &c->md->topics[t];
        if (!strncmp(mt->topic, "__", 2) ||
            mt->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
            continue; /* internal topics, topics being deleted */
        if (mt->err) {
            weir_kafka_partition *kp = &c->parts[c->n_parts++];
            kp->topic = mt->topic;
            kp->partition = -1;
            kp->error = rd_kafka_err2str(mt->err);
            continue;
        }
        for (int p = 0; p < mt->partition_cnt; p++) {
            weir_kafka_partition *kp = &c->parts[c->n_parts++];
            kp->topic = mt->topic;
            kp->partition = mt->partitions[p].id;
        }
    }
    *out = c->parts;
    *n_out = c->n_parts;
    return 0;
}

int weir__kafka_watermarks(weir_kafka_consumer *c, const char *topic,
                           int32_t partition, int64_t *low, int64_t *high,
                           weir_error *err)
{
    rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
        c->rk, topic, partition, low, high, c->timeout_ms);
    if (e == RD_KAFKA_RESP_ERR__TIMED_OUT || e == RD_KAFKA_RESP_ERR__TRANSPORT ||
        e == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
        return unreachable(c, e, err);
    if (e)
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_ERROR",
                        "Kafka at %s: offsets of %s partition %d: %s",
                        c->servers, topic, (int)partition, rd_kafka_err2str(e));
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The index of partition (topic, p) among parts, or n. */
static size_t find(const weir_kafka_partition *parts, size_t n,
                   const char *topic, int32_t p)
{
    for (size_t i = 0; i < n; i++)
        if (parts[i].partition == p && !strcmp(parts[i].topic, topic))
            return i;
    return n;
}

static int collect_headers(weir_kafka_consumer *c, rd_kafka_message_t *m,
                           weir_kafka_message *out, weir_error *err)
{
    rd_kafka_headers_t *hdrs = NULL;
    if (rd_kafka_message_headers(m, &hdrs) || !hdrs)
        return 0;
    size_t n = rd_kafka_header_cnt(hdrs);
    if (n > c->cap_headers) {
        weir_kafka_header *h = realloc(c->headers, n * sizeof(*h));
        if (!h)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        c->headers = h;
        c->cap_headers = n;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name;
        const void *v;
        size_t size;
        if (rd_kafka_header_get_all(hdrs, i, &name, &v, &size))
            return WEIR_ERR(err, WEIR_ERROR, NULL, "Kafka header %zu", i);
        c->headers[i].key = name;
        c->headers[i].value = v;
        c->headers[i].value_len = size;
    }
    out->headers = c->headers;
    out->n_headers = n;
    return 0;
}

/* One message of the fetch: passed on when inside its range; marks the
 * partition done once its position reaches the range's end. */
static int on_one(weir_kafka_consumer *c, rd_kafka_message_t *m,
                  weir_kafka_partition *parts, size_t n, bool *done,
                  size_t *n_done, bool with_headers, weir_kafka_on_message cb,
                  void *payload, bool *passed, weir_error *err)
{
    const char *topic = rd_kafka_topic_name(m->rkt);
    size_t i = find(parts, n, topic, m->partition);
    if (i == n || done[i])
        return 0;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        /* m->offset: the end of what the consumer can read now. Below the
         * range's end only when the end was not readable (under
         * read_committed, past the last stable offset: an open
         * transaction): the range ends there. */
        if (m->offset < parts[i].end)
            parts[i].end = m->offset > parts[i].start ? m->offset
                                                      : parts[i].start;
        done[i] = true;
        (*n_done)++;
        return 0;
    }
    if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
        m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
        return WEIR_ERR(err, WEIR_ERROR, "KAFKA_OFFSET_OUT_OF_RANGE",
                        "Kafka at %s: offsets of %s partition %d from %lld "
                        "were removed while the batch read them (%s); the "
                        "next attempt plans the batch again",
                        c->servers, topic, (int)m->partition,
                        (long long)parts[i].start, rd_kafka_message_errstr(m));
    if (m->err)
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_ERROR",
                        "Kafka at %s: reading %s partition %d: %s", c->servers,
                        topic, (int)m->partition, rd_kafka_message_errstr(m));
    if (m->offset >= parts[i].start && m->offset < parts[i].end) {
        weir_kafka_message km;
        memset(&km, 0, sizeof(km));
        km.topic = topic;
        km.partition = m->partition;
        km.offset = m->offset;
        km.key = m->key;
        km.key_len = m->key ? m->key_len : 0;
        km.value = m->payload;
        km.value_len = m->payload ? m->len : 0;
        rd_kafka_timestamp_type_t tt;
        km.timestamp_ms = rd_kafka_message_timestamp(m, &tt);
        km.timestamp_type = tt == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? 0
                            : tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? 1
                                                                       : -1;
        int rc = with_headers ? collect_headers(c, m, &km, err) : 0;
        if (!rc)
            rc = cb(payload, &km, err);
        if (rc)
            return rc;
        *passed = true;
    }
    if (m->offset + 1 >= parts[i].end) {
        done[i] = true;
        (*n_done)++;
    }
    return 0;
}

/* Stop reading: unassign, forget the ranges. */
void weir__kafka_fetch_end(weir_kafka_consumer *c)
{
    if (c->assigned)
        rd_kafka_assign(c->rk, NULL);
    c->assigned = false;
    if (c->queue)
        rd_kafka_queue_destroy(c->queue);
    c->queue = NULL;
    free(c->done);
    c->done = NULL;
    c->ranges = NULL;
    c->n_ranges = c->n_done = 0;
}

int weir__kafka_fetch_begin(weir_kafka_consumer *c, weir_kafka_partition *parts,
                            size_t n, bool with_headers, weir_error *err)
{
    weir__kafka_fetch_end(c);
    c->done = calloc(n + 1, sizeof(bool));
    rd_kafka_topic_partition_list_t *list =
        rd_kafka_topic_partition_list_new((int)n + 1);
    if (!c->done || !list) {
        if (list)
            rd_kafka_topic_partition_list_destroy(list);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    c->ranges = parts;
    c->n_ranges = n;
    c->with_headers = with_headers;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].end <= parts[i].start) {
            c->done[i] = true;
            c->n_done++;
            continue;
        }
        rd_kafka_topic_partition_list_add(list, parts[i].topic,
                                          parts[i].partition)
            ->offset = parts[i].start;
    }
    int rc = 0;
    if (list->cnt) {
        rd_kafka_resp_err_t e = rd_kafka_assign(c->rk, list);
        if (e)
            rc = WEIR_ERR(err, WEIR_EIO, "KAFKA_ERROR",
                          "Kafka at %s: assign: %s", c->servers,
                          rd_kafka_err2str(e));
        c->assigned = !e;
        if (!rc && !(c->queue = rd_kafka_queue_get_consumer(c->rk)))
            rc = WEIR_ERR(err, WEIR_ERROR, "KAFKA_ERROR",
                          "Kafka at %s: no consumer queue", c->servers);
    }
    rd_kafka_topic_partition_list_destroy(list);
    c->deadline = now_ms() + c->timeout_ms;
    return rc;
}

/* Messages taken from the consumer's queue at once. */
#define FETCH_BATCH 1024

int weir__kafka_fetch_next(weir_kafka_consumer *c, size_t max,
                           weir_kafka_on_message on_message, void *payload,
                           size_t *delivered, bool *finished, weir_error *err)
{
    *delivered = 0;
    rd_kafka_message_t *msgs[FETCH_BATCH];
    int rc = 0;
    while (!rc && c->n_done < c->n_ranges && *delivered < max) {
        size_t want = max - *delivered;
        /* Each message yields at most one row: never more than asked. */
        ssize_t got = rd_kafka_consume_batch_queue(
            c->queue, 10, msgs, want < FETCH_BATCH ? want : FETCH_BATCH);
        if (got < 0) {
            rc = WEIR_ERR(err, WEIR_EIO, "KAFKA_ERROR", "Kafka at %s: %s",
                          c->servers,
                          rd_kafka_err2str(rd_kafka_last_error()));
            break;
        }
        if (got == 0) {
            /* Bounded: no message and no end of partition for the timeout
             * fails. */
            if (now_ms() > c->deadline)
                rc = unreachable(c, RD_KAFKA_RESP_ERR__TIMED_OUT, err);
            continue;
        }
        c->deadline = now_ms() + c->timeout_ms;
        /* Every message taken is destroyed, also after an error. */
        for (ssize_t k = 0; k < got; k++) {
            rd_kafka_message_t *m = msgs[k];
            if (rc) {
                rd_kafka_message_destroy(m);
                continue;
            }
            if (m->rkt) {
                bool passed = false;
                rc = on_one(c, m, c->ranges, c->n_ranges, c->done, &c->n_done,
                            c->with_headers, on_message, payload, &passed,
                            err);
                *delivered += passed;
            } else if (m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF &&
                       m->err != RD_KAFKA_RESP_ERR__TRANSPORT &&
                       m->err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
                rc = WEIR_ERR(err, WEIR_EIO, "KAFKA_ERROR", "Kafka at %s: %s",
                              c->servers, rd_kafka_message_errstr(m));
            rd_kafka_message_destroy(m);
        }
    }
    *finished = !rc && c->n_done >= c->n_ranges;
    return rc;
}
