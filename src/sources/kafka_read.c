/*
 * Reading a Kafka batch while the flow's query runs (the Kafka source's
 * scans, store/scan.h): a reader fetches the batch's planned ranges a
 * chunk at a time, in lanes for a large batch (a consumer each, whole
 * partitions, so a partition's messages keep their offset order), and a
 * read to the end fixes where the batch ends. Planning and recording the
 * batch are sources/kafka.c's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/kafka_batch.h"
#include "store/scan.h"
#include "util/str.h"

/* ---- reading the batch while the flow's query runs ----------------------- */

/* The batch's messages are not stored first: the flow's query reads a
 * scan (store/scan.h) whose reader fetches the planned ranges from Kafka
 * a chunk at a time, so DuckDB writes the rows while librdkafka fetches
 * the next ones. With includeHeaders a second scan reads the headers,
 * joined to the messages by topic, partition and offset. */

static const weir_db_column MSG_COLS[] = {
    { "key", "BLOB" },       { "value", "BLOB" },      { "topic", "VARCHAR" },
    { "partition", "INTEGER" }, { "offset", "BIGINT" }, { "timestamp", "TIMESTAMP" },
    { "timestampType", "INTEGER" },
};
static const weir_db_column HDR_COLS[] = {
    { "topic", "VARCHAR" }, { "partition", "INTEGER" }, { "offset", "BIGINT" },
    { "idx", "INTEGER" },   { "key", "VARCHAR" },       { "value", "BLOB" },
};

/* One lane of a read of the messages (or headers) of a batch: a share of
 * its partitions, read by a consumer of the lane's own (or the planning
 * consumer) on one thread at a time. */
typedef struct klane {
    kafka_batch *kb;
    bool headers;              /* the headers scan */
    weir_kafka_consumer *kc;   /* NULL until the lane's first fill */
    bool own_kc;               /* opened for this lane (else kb's) */
    weir_kafka_partition *ranges; /* copies: the read may lower ends */
    size_t n;
    weir_scan_chunk *ch;       /* during fill */
    int64_t rows;
    bool finished;
    /* Headers of a message that did not fit in the chunk (copies). */
    struct {
        char *topic;
        int32_t partition;
        int64_t offset;
        size_t base;   /* the index of h[0] among the message's headers */
        size_t next, n;
        weir_kafka_header *h;
    } rest;
} klane;

static void rest_free(klane *r)
{
    for (size_t i = 0; i < r->rest.n; i++) {
        free((void *)r->rest.h[i].key);
        free((void *)r->rest.h[i].value);
    }
    free(r->rest.h);
    free(r->rest.topic);
    memset(&r->rest, 0, sizeof(r->rest));
}

/* Header rows of headers [i, n) of a message (h[i] is its header
 * base + i), as many as fit; the index after the last one written. */
static size_t put_headers(weir_scan_chunk *ch, const char *topic,
                          int32_t partition, int64_t offset,
                          const weir_kafka_header *h, size_t base, size_t i,
                          size_t n)
{
    for (; i < n && weir__scan_room(ch) > 0; i++) {
        weir__scan_col_bytes(ch, 0, topic, strlen(topic));
        weir__scan_col_i32(ch, 1, partition);
        weir__scan_col_i64(ch, 2, offset);
        weir__scan_col_i32(ch, 3, (int32_t)(base + i));
        weir__scan_col_bytes(ch, 4, h[i].key, strlen(h[i].key));
        weir__scan_col_bytes(ch, 5, h[i].value, h[i].value_len);
        weir__scan_end_row(ch);
    }
    return i;
}

/* Keep headers [from, n) of m for the next chunk. */
static int keep_rest(klane *r, const weir_kafka_message *m, size_t from,
                     weir_error *err)
{
    size_t n = m->n_headers - from;
    r->rest.h = calloc(n, sizeof(*r->rest.h));
    r->rest.topic = strdup(m->topic);
    bool ok = r->rest.h && r->rest.topic;
    for (size_t i = 0; ok && i < n; i++) {
        const weir_kafka_header *h = &m->headers[from + i];
        char *k = strdup(h->key);
        void *v = h->value ? malloc(h->value_len + 1) : NULL;
        if (v)
            memcpy(v, h->value, h->value_len);
        r->rest.h[i].key = k;
        r->rest.h[i].value = v;
        r->rest.h[i].value_len = h->value_len;
        r->rest.n = i + 1;
        ok = k && (v || !h->value);
    }
    r->rest.partition = m->partition;
    r->rest.offset = m->offset;
    r->rest.base = from;
    r->rest.next = 0;
    if (!ok) {
        rest_free(r);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

static int put_message(void *payload, const weir_kafka_message *m,
                       weir_error *err)
{
    klane *r = payload;
    weir_scan_chunk *ch = r->ch;
    if (r->headers) {
        size_t done = put_headers(ch, m->topic, m->partition, m->offset,
                                  m->headers, 0, 0, m->n_headers);
        r->rows++;
        return done < m->n_headers ? keep_rest(r, m, done, err) : 0;
    }
    weir__scan_col_bytes(ch, 0, m->key, m->key_len);
    weir__scan_col_bytes(ch, 1, m->value, m->value_len);
    weir__scan_col_bytes(ch, 2, m->topic, strlen(m->topic));
    weir__scan_col_i32(ch, 3, m->partition);
    weir__scan_col_i64(ch, 4, m->offset);
    if (m->timestamp_ms >= 0)
        weir__scan_col_i64(ch, 5, m->timestamp_ms * 1000);
    else
        weir__scan_col_null(ch, 5);
    weir__scan_col_i32(ch, 6, m->timestamp_type);
    weir__scan_end_row(ch);
    r->rows++;
    return 0;
}

/* One read of the messages (or headers) of a batch, in lanes. */
typedef struct kread {
    kafka_batch *kb;
    bool headers;
    size_t n_lanes;
    klane *lanes;
} kread;

/* A read of fewer messages has one lane: another lane's consumer costs a
 * connection to the brokers. */
#define LANE_MESSAGES 50000

static void lane_stop(klane *l)
{
    kafka_batch *kb = l->kb;
    if (l->kc) {
        weir__kafka_fetch_end(l->kc);
        if (l->own_kc) {
            weir__kafka_consumer_close(l->kc);
        } else {
            pthread_mutex_lock(&kb->lock);
            kb->kc_busy = false;
            pthread_mutex_unlock(&kb->lock);
        }
    }
    l->kc = NULL;
    rest_free(l);
    free(l->ranges);
}

static void reader_close(void *reader)
{
    kread *r = reader;
    kafka_batch *kb = r->kb;
    bool finished = r->n_lanes > 0;
    int64_t rows = 0;
    for (size_t i = 0; i < r->n_lanes; i++) {
        finished &= r->lanes[i].finished;
        rows += r->lanes[i].rows;
    }
    pthread_mutex_lock(&kb->lock);
    /* A read of the messages to their end fixes where the batch ends (a
     * range may end early: an open transaction under read_committed). */
    for (size_t l = 0; !r->headers && finished && l < r->n_lanes; l++) {
        const klane *ln = &r->lanes[l];
        for (size_t k = 0; k < ln->n; k++)
            for (size_t i = 0; i < kb->n_parts; i++) {
                kpart *p = &kb->parts[i];
                if (!p->vanished && p->partition == ln->ranges[k].partition &&
                    !strcmp(p->topic, ln->ranges[k].topic) &&
                    ln->ranges[k].end < p->end)
                    p->end = ln->ranges[k].end;
            }
    }
    if (!r->headers && finished) {
        kb->rows = rows;
        kb->read = true;
    }
    pthread_mutex_unlock(&kb->lock);
    for (size_t i = 0; i < r->n_lanes; i++)
        lane_stop(&r->lanes[i]);
    free(r->lanes);
    free(r);
}

/* The lanes of a read of the messages: a large batch has one per
 * partition up to max_lanes (a partition's messages stay in one lane, in
 * offset order), a small one one. The headers' read has one. */
static size_t lanes_for(const kafka_batch *kb, size_t max_lanes)
{
    int64_t total = 0;
    for (size_t i = 0; i < kb->n_ranges; i++)
        total += kb->ranges[i].end - kb->ranges[i].start;
    size_t n = total < LANE_MESSAGES ? 1 : kb->n_ranges;
    if (n > max_lanes)
        n = max_lanes;
    return n ? n : 1;
}

static int reader_open(void *payload, size_t max_lanes, void **out,
                       size_t *n_lanes, bool headers, weir_error *err)
{
    kafka_batch *kb = payload;
    kread *r = calloc(1, sizeof(*r));
    size_t n = headers ? 1 : lanes_for(kb, max_lanes);
    bool ok = r && (r->lanes = calloc(n, sizeof(*r->lanes)));
    if (ok) {
        r->kb = kb;
        r->headers = headers;
        r->n_lanes = n;
    }
    /* Partition i goes to lane i mod n. */
    for (size_t l = 0; ok && l < n; l++) {
        klane *ln = &r->lanes[l];
        ln->kb = kb;
        ln->headers = headers;
        ln->ranges = calloc(kb->n_ranges / n + 2, sizeof(*ln->ranges));
        ok = ln->ranges != NULL;
        for (size_t i = l; ok && i < kb->n_ranges; i += n)
            ln->ranges[ln->n++] = kb->ranges[i];
    }
    if (!ok) {
        for (size_t l = 0; r && r->lanes && l < n; l++)
            free(r->lanes[l].ranges);
        if (r)
            free(r->lanes);
        free(r);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    *out = r;
    *n_lanes = n;
    return 0;
}

/* The lane's consumer, at its first fill: the planning consumer when no
 * other lane or read has it (it is connected already), else one of its
 * own. */
static int lane_start(klane *l, weir_error *err)
{
    kafka_batch *kb = l->kb;
    pthread_mutex_lock(&kb->lock);
    if (kb->kc && !kb->kc_busy) {
        kb->kc_busy = true;
        l->kc = kb->kc;
    }
    pthread_mutex_unlock(&kb->lock);
    int rc = 0;
    if (!l->kc) {
        rc = weir__kafka_consumer_open(&l->kc, kb->opts.client,
                                       kb->opts.n_client, kb->opts.bootstrap,
                                       err);
        l->own_kc = !rc;
        if (rc)
            l->kc = NULL;
    }
    if (!rc)
        rc = weir__kafka_fetch_begin(l->kc, l->ranges, l->n, l->headers, err);
    return rc;
}

static int open_messages(void *payload, size_t max_lanes, void **out,
                         size_t *n_lanes, weir_error *err)
{
    return reader_open(payload, max_lanes, out, n_lanes, false, err);
}

static int open_headers(void *payload, size_t max_lanes, void **out,
                        size_t *n_lanes, weir_error *err)
{
    return reader_open(payload, max_lanes, out, n_lanes, true, err);
}

static int reader_fill(void *reader, size_t lane, weir_scan_chunk *ch,
                       bool *done, weir_error *err)
{
    kread *rd = reader;
    klane *r = &rd->lanes[lane];
    int rc = r->kc ? 0 : lane_start(r, err);
    if (rc)
        return rc;
    r->ch = ch;
    if (!r->headers) {
        /* One row per message. */
        size_t got;
        rc = weir__kafka_fetch_next(r->kc, weir__scan_room(ch), put_message,
                                    r, &got, &r->finished, err);
    } else {
        /* A row per header: a message at a time, what does not fit is
         * kept for the next chunk. */
        while (!rc && weir__scan_room(ch) > 0) {
            if (r->rest.h) {
                r->rest.next = put_headers(ch, r->rest.topic, r->rest.partition,
                                           r->rest.offset, r->rest.h,
                                           r->rest.base, r->rest.next,
                                           r->rest.n);
                if (r->rest.next == r->rest.n)
                    rest_free(r);
                continue;
            }
            if (r->finished)
                break;
            size_t got;
            rc = weir__kafka_fetch_next(r->kc, 1, put_message, r, &got,
                                        &r->finished, err);
            if (!got && !r->finished)
                break; /* nothing yet: DuckDB asks again */
        }
    }
    r->ch = NULL;
    *done = r->finished && !r->rest.h;
    return rc;
}

static const weir_scan_ops MSG_OPS = { open_messages, reader_fill,
                                       reader_close };
static const weir_scan_ops HDR_OPS = { open_headers, reader_fill,
                                       reader_close };

/* The batch's scans, read by the flow's query (render()). */
int weir__kafka_add_scans(const weir_source_ctx *c, kafka_batch *kb)
{
    kb->ranges = weir__arena_array(c->arena, kb->n_parts + 1,
                                   sizeof(*kb->ranges));
    if (!kb->ranges)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    kb->n_ranges = 0;
    for (size_t i = 0; i < kb->n_parts; i++) {
        const kpart *p = &kb->parts[i];
        if (p->vanished || p->end <= p->from)
            continue;
        weir_kafka_partition *k = &kb->ranges[kb->n_ranges++];
        k->topic = p->topic;
        k->partition = p->partition;
        k->start = p->from;
        k->end = p->end;
    }
    pthread_mutex_init(&kb->lock, NULL);
    kb->conn = c->conn;
    int rc = weir__scan_add(c->conn, MSG_COLS,
                            sizeof MSG_COLS / sizeof MSG_COLS[0], &MSG_OPS, kb,
                            lanes_for(kb, SIZE_MAX) > 1, &kb->scan, c->err);
    if (!rc && kb->opts.include_headers)
        rc = weir__scan_add(c->conn, HDR_COLS,
                            sizeof HDR_COLS / sizeof HDR_COLS[0], &HDR_OPS, kb,
                            false, &kb->hscan, c->err);
    return rc;
}
