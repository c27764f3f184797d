/*
 * The Kafka source, STREAM read_kafka(...) (docs/kafka.md), with Spark's
 * semantics: each batch discovers the subscribed partitions, starts each
 * where the flow's last batch stopped (the first batch from
 * startingOffsets, partitions found later from their earliest offset),
 * ends at the latest offsets (capped by maxOffsetsPerTrigger), and the
 * flow's query reads those messages through a scan (store/scan.h) while
 * they are fetched, in lanes for a large batch. The per-partition offsets
 * are recorded in the batch's transaction through the checkpoint store
 * (_weir.kafka_offsets);
 * the checkpoint row's position is their running total. Offsets that no
 * longer exist fail the flow (KAFKA_DATA_LOSS) unless failOnDataLoss is
 * false. With local topics (weir test), the same plan runs on the
 * storage's table of messages instead of brokers, and the query reads the
 * batch's rows from that table.
 */
#define _GNU_SOURCE
#include "sources/source.h"

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kafka/kafka.h"
#include "sources/kafka.h"
#include "sources/kafka_batch.h"
#include "store/scan.h"
#include "store/topics.h"
#include "util/str.h"


/* Where a batch's partitions and messages come from: the brokers, or the
 * storage's local topics (weir_run_options.local_kafka, store/topics.h). */
typedef struct broker {
    weir_kafka_consumer *kc;
    weir_rows *local; /* (topic, partition, low, high) of the local topics */
} broker;

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_KAFKA;
}

static const char *sub_name(weir_kafka_subscription s)
{
    return s == WEIR_KAFKA_SUBSCRIBE           ? "subscribe"
           : s == WEIR_KAFKA_SUBSCRIBE_PATTERN ? "subscribePattern"
                                               : "assign";
}

/* kafka:<subscription>=<value>: what the flow reads, not how it connects
 * (a broker address may change; the topics stay). */
static const char *key(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir)
{
    (void)g;
    (void)root_dir;
    weir_kafka_opts o;
    weir_error ignore;
    if (weir__kafka_opts(&o, a, in->tvf, &ignore))
        return weir__arena_printf(a, "kafka:%s", in->external);
    return weir__arena_printf(a, "kafka:%s=%s", sub_name(o.sub), o.sub_text);
}

/* ---- discovery -------------------------------------------------------------- */

/* Does the source read this partition (partition -1: any of the topic)? */
static bool subscribed(const weir_kafka_opts *o, const regex_t *re,
                       const char *topic, int32_t partition)
{
    switch (o->sub) {
    case WEIR_KAFKA_SUBSCRIBE:
        for (size_t i = 0; i < o->n_topics; i++)
            if (!strcmp(o->topics[i], topic))
                return true;
        return false;
    case WEIR_KAFKA_SUBSCRIBE_PATTERN:
        return regexec(re, topic, 0, NULL, 0) == 0;
    case WEIR_KAFKA_ASSIGN:
        for (size_t i = 0; i < o->n_assigned; i++)
            if ((partition < 0 || o->assigned[i].partition == partition) &&
                !strcmp(o->assigned[i].topic, topic))
                return true;
        return false;
    }
    return false;
}

static int64_t cell_i64(const weir_rows *r, size_t row, size_t col)
{
    const char *v = weir__rows_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

/* The partitions of the cluster (or of the local topics). */
static int cluster(const weir_source_ctx *c, const broker *bk,
                   const weir_kafka_partition **out, size_t *n_out)
{
    if (!bk->local)
        return weir__kafka_partitions(bk->kc, out, n_out, c->err);
    size_t n = bk->local->n_rows;
    weir_kafka_partition *all = weir__arena_array(c->arena, n + 1, sizeof(*all));
    if (!all)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        all[i].topic = weir__rows_get(bk->local, i, 0);
        all[i].partition = (int32_t)cell_i64(bk->local, i, 1);
    }
    *out = all;
    *n_out = n;
    return 0;
}

static int watermarks(const weir_source_ctx *c, const broker *bk,
                      const kpart *p, int64_t *low, int64_t *high)
{
    if (!bk->local)
        return weir__kafka_watermarks(bk->kc, p->topic, p->partition, low,
                                      high, c->err);
    *low = *high = 0;
    for (size_t i = 0; i < bk->local->n_rows; i++)
        if (cell_i64(bk->local, i, 1) == p->partition &&
            !strcmp(weir__rows_get(bk->local, i, 0), p->topic)) {
            *low = cell_i64(bk->local, i, 2);
            *high = cell_i64(bk->local, i, 3);
        }
    return 0;
}

/* The batch's partitions: those subscribed now, and those recorded by the
 * last batch (stored rows: topic, partition, end_offset). */
static int discover(const weir_source_ctx *c, kafka_batch *kb,
                    const broker *bk, const weir_rows *stored)
{
    const weir_kafka_opts *o = &kb->opts;
    regex_t re;
    if (o->sub == WEIR_KAFKA_SUBSCRIBE_PATTERN) {
        char *anchored = weir__arena_printf(c->arena, "^(%s)$", o->sub_text);
        if (!anchored || regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB))
            return WEIR_ERR(c->err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                            "read_kafka(): subscribePattern '%s' is not a "
                            "POSIX extended regular expression",
                            o->sub_text);
    }
    const weir_kafka_partition *all;
    size_t n_all;
    int rc = cluster(c, bk, &all, &n_all);
    size_t n_stored = stored ? stored->n_rows : 0;
    kb->parts = rc ? NULL
                   : weir__arena_array(c->arena, n_all + n_stored + 1,
                                       sizeof(kpart));
    if (!rc && !kb->parts)
        rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < n_all; i++) {
        if (all[i].partition < 0) {
            /* A subscribed topic the brokers cannot describe now (a new
             * topic without a leader yet): a retry, not a vanished one. */
            if (subscribed(o, &re, all[i].topic, -1))
                rc = WEIR_ERR(c->err, WEIR_EIO, "KAFKA_ERROR",
                              "Kafka at %s: topic %s: %s", o->bootstrap,
                              all[i].topic, all[i].error);
            continue;
        }
        if (!subscribed(o, &re, all[i].topic, all[i].partition))
            continue;
        kpart *p = &kb->parts[kb->n_parts++];
        memset(p, 0, sizeof(*p));
        p->topic = weir__arena_strdup(c->arena, all[i].topic);
        p->partition = all[i].partition;
    }
    if (o->sub == WEIR_KAFKA_SUBSCRIBE_PATTERN)
        regfree(&re);
    /* What the last batch recorded: found again, or vanished. */
    size_t n_found = kb->n_parts;
    for (size_t r = 0; !rc && r < n_stored; r++) {
        const char *topic = weir__rows_get(stored, r, 0);
        int32_t part = (int32_t)cell_i64(stored, r, 1);
        if (part < 0)
            continue; /* the batch's marker (see commit()) */
        kpart *p = NULL;
        for (size_t i = 0; i < n_found && !p; i++)
            if (kb->parts[i].partition == part && topic &&
                !strcmp(kb->parts[i].topic, topic))
                p = &kb->parts[i];
        if (!p) {
            p = &kb->parts[kb->n_parts++];
            memset(p, 0, sizeof(*p));
            p->topic = weir__arena_strdup(c->arena, topic ? topic : "");
            p->partition = part;
            p->vanished = true;
        }
        p->stored = true;
        p->last = cell_i64(stored, r, 2);
    }
    if (!rc && weir__arena_failed(c->arena))
        rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    /* Spark fails a query whose assigned partitions do not exist. */
    for (size_t i = 0; !rc && o->sub == WEIR_KAFKA_ASSIGN && i < o->n_assigned;
         i++) {
        bool found = false;
        for (size_t k = 0; k < n_found && !found; k++)
            found = kb->parts[k].partition == o->assigned[i].partition &&
                    !strcmp(kb->parts[k].topic, o->assigned[i].topic);
        if (!found && !n_stored)
            rc = WEIR_ERR(c->err, WEIR_ERROR, "KAFKA_PARTITION_NOT_FOUND",
                          "read_kafka(): assign names %s partition %d, which "
                          "the brokers at %s do not have",
                          o->assigned[i].topic, (int)o->assigned[i].partition,
                          o->bootstrap);
    }
    return rc;
}

/* Offsets that no longer exist: fail, or (failOnDataLoss false) warn and
 * go on from what is there, as Spark does. */
static int data_loss(const weir_source_ctx *c, const kafka_batch *kb,
                     const kpart *p, const char *what)
{
    char msg[900];
    snprintf(msg, sizeof(msg),
             "Flow '%s': Kafka topic %s partition %d: %s. Some data may have "
             "been lost (retention, deleted records, or a deleted or "
             "recreated topic).",
             c->f->display, p->topic, (int)p->partition, what);
    if (kb->opts.fail_on_data_loss)
        return WEIR_ERR(c->err, WEIR_ERROR, "KAFKA_DATA_LOSS",
                        "%s If this is expected, set failOnDataLoss => "
                        "'false' in read_kafka(...) to continue from the "
                        "earliest offset available, or full refresh %s to "
                        "start over.",
                        msg, c->t->display);
    char w[1000];
    snprintf(w, sizeof(w), "%s It goes on from the earliest offset "
                           "available (failOnDataLoss is false).", msg);
    weir__source_warn(c, w);
    return 0;
}

/* Where a partition the flow never read starts. */
static int64_t starting_offset(const kafka_batch *kb, const kpart *p,
                               bool first)
{
    const weir_kafka_opts *o = &kb->opts;
    if (!first)
        return -2; /* found after the first batch: from its earliest */
    if (o->starting != 0)
        return o->starting;
    for (size_t i = 0; i < o->n_start_at; i++)
        if (o->start_at[i].partition == p->partition &&
            !strcmp(o->start_at[i].topic, p->topic))
            return o->start_at[i].offset;
    return -1; /* not named in startingOffsets: latest */
}

/* Each partition's range [from, end) from its position and watermarks. */
static int place(const weir_source_ctx *c, kafka_batch *kb, const broker *bk,
                 bool first)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < kb->n_parts; i++) {
        kpart *p = &kb->parts[i];
        char what[300];
        if (p->vanished) {
            snprintf(what, sizeof(what), "the partition no longer exists "
                                         "(the flow had read up to offset %lld)",
                     (long long)p->last);
            rc = data_loss(c, kb, p, what);
            continue;
        }
        rc = watermarks(c, bk, p, &p->low, &p->high);
        if (rc)
            break;
        p->end = p->high;
        int64_t at = p->stored ? p->last : starting_offset(kb, p, first);
        if (at == -2)
            p->from = p->low;
        else if (at == -1)
            p->from = p->high;
        else if (at < p->low) {
            snprintf(what, sizeof(what), "offsets %lld to %lld no longer exist "
                                         "(the earliest is %lld)",
                     (long long)at, (long long)p->low - 1, (long long)p->low);
            rc = data_loss(c, kb, p, what);
            p->from = p->low;
        } else if (at > p->high) {
            snprintf(what, sizeof(what), "the flow's offset %lld is past the "
                                         "latest offset %lld",
                     (long long)at, (long long)p->high);
            rc = data_loss(c, kb, p, what);
            p->from = p->low;
        } else
            p->from = at;
    }
    return rc;
}

/* maxOffsetsPerTrigger: split the cap over partitions in proportion to
 * what each has (Spark's rate limit). *more: a partition has more than
 * the batch takes. */
static void cap(kafka_batch *kb, bool *more)
{
    int64_t limit = kb->opts.max_per_trigger, total = 0;
    for (size_t i = 0; i < kb->n_parts; i++)
        if (!kb->parts[i].vanished)
            total += kb->parts[i].end - kb->parts[i].from;
    *more = false;
    if (limit <= 0 || total <= limit)
        return;
    for (size_t i = 0; i < kb->n_parts; i++) {
        kpart *p = &kb->parts[i];
        if (p->vanished || p->end <= p->from)
            continue;
        double share = (double)limit * ((double)(p->end - p->from) / (double)total);
        int64_t n = share < 1 ? (int64_t)(share + 0.999999) : (int64_t)share;
        if (p->from + n < p->end) {
            p->end = p->from + n;
            *more = true;
        }
    }
}

/* How far the batch moves the source's position: the offsets it moves
 * over (*moved), or 1 when it reads none but has positions to record (a
 * first batch, new, vanished or skipped partitions), else 0. */
static int64_t position(const kafka_batch *kb, bool first, int64_t *moved)
{
    bool changed = first;
    *moved = 0;
    for (size_t i = 0; i < kb->n_parts; i++) {
        const kpart *p = &kb->parts[i];
        if (p->vanished) {
            changed = true;
            continue;
        }
        *moved += p->end - p->from;
        changed |= !p->stored || p->from != p->last;
    }
    return *moved ? *moved : changed ? 1 : 0;
}

/* ---- the source kind ------------------------------------------------------- */

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    kafka_batch *kb = weir__arena_alloc(c->arena, sizeof(*kb));
    if (!kb)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    memset(kb, 0, sizeof(*kb));
    b->impl = kb;
    int rc = weir__kafka_opts(&kb->opts, c->arena, in->tvf, c->err);
    /* Where the flow's last batch stopped, per partition. */
    bool none = true;
    int64_t epoch = 0;
    if (!rc)
        rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &epoch, &none);
    weir_rows *stored = NULL;
    if (!rc && !none)
        rc = weir__checkpoint_partitions_read(c->cp, c->gen, b->key, &stored);
    if (!rc && !none && !stored->n_rows)
        rc = WEIR_ERR(c->err, WEIR_ERROR, "CHECKPOINT_MISSING",
                      "The Kafka offsets of flow '%s' (_weir.kafka_offsets) "
                      "are missing rows: reading from the start would "
                      "duplicate data, so the flow stops. Restore the storage "
                      "folder from a backup, or full refresh %s.",
                      c->f->display, c->t->display);
    broker bk = { NULL, NULL };
    if (!rc && c->local_topics)
        rc = weir__topics_partitions(c->conn, c->local_topics, &bk.local,
                                     c->err);
    else if (!rc)
        rc = weir__kafka_consumer_open(&bk.kc, kb->opts.client,
                                       kb->opts.n_client, kb->opts.bootstrap,
                                       c->err);
    if (!rc)
        rc = discover(c, kb, &bk, stored);
    weir__rows_free(stored);
    if (!rc)
        rc = place(c, kb, &bk, none);
    bool more = false;
    if (!rc)
        cap(kb, &more);
    b->more = more;
    /* The position: the running total of offsets the flow moved over. A
     * first batch, new or vanished partitions and skipped offsets are
     * recorded even when no message is read. */
    int64_t moved = 0;
    int64_t end = rc ? 0 : b->start + position(kb, none, &moved);
    kb->first = none;
    if (moved && bk.local) {
        /* Local offsets are dense: the batch reads every one it moves
         * over, from the table render names. */
        kb->local = c->local_topics;
        kb->read = true;
        kb->rows = moved;
    } else if (moved) {
        rc = weir__kafka_add_scans(c, kb);
        kb->kc = bk.kc; /* the first read's consumer; release() closes it */
        bk.kc = NULL;
    }
    weir__kafka_consumer_close(bk.kc);
    weir__rows_free(bk.local);
    /* Where a read ends early, check_read() moves the end back. */
    if (!rc)
        b->end = end;
    return rc;
}

static void put_columns(weir_buf *out, const char *prefix)
{
    static const char *const cols[] = { "key", "value", "topic", "partition",
                                        "offset", "timestamp", "timestampType" };
    for (size_t i = 0; i < 7; i++)
        weir__buf_printf(out, "%s%s\"%s\"", i ? ", " : "", prefix, cols[i]);
}

/* An empty relation with the source's columns. */
static void empty_relation(weir_buf *out, bool headers)
{
    weir__buf_puts(out, "(SELECT CAST(NULL AS BLOB) AS \"key\", CAST(NULL AS "
                        "BLOB) AS \"value\", CAST(NULL AS VARCHAR) AS "
                        "\"topic\", CAST(NULL AS INTEGER) AS \"partition\", "
                        "CAST(NULL AS BIGINT) AS \"offset\", CAST(NULL AS "
                        "TIMESTAMP) AS \"timestamp\", CAST(NULL AS INTEGER) "
                        "AS \"timestampType\"");
    if (headers)
        weir__buf_puts(out, ", CAST(NULL AS STRUCT(\"key\" VARCHAR, \"value\" "
                            "BLOB)[]) AS \"headers\"");
    weir__buf_puts(out, " WHERE false)");
}

/* The batch's messages in the local topics: its ranges of the table. */
static void render_local(weir_buf *out, const kafka_batch *kb)
{
    weir__buf_puts(out, "(SELECT ");
    put_columns(out, "");
    if (kb->opts.include_headers)
        weir__buf_puts(out, ", \"headers\"");
    weir__buf_puts(out, " FROM ");
    weir__topics_ref(out, kb->local);
    weir__buf_puts(out, " WHERE false");
    for (size_t i = 0; i < kb->n_parts; i++) {
        const kpart *p = &kb->parts[i];
        if (p->vanished || p->end <= p->from)
            continue;
        weir__buf_puts(out, " OR (\"topic\" = ");
        weir__buf_put_sql_string(out, p->topic);
        weir__buf_printf(out, " AND \"partition\" = %d AND \"offset\" >= %lld "
                              "AND \"offset\" < %lld)",
                         (int)p->partition, (long long)p->from,
                         (long long)p->end);
    }
    weir__buf_putc(out, ')');
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    (void)r;
    (void)err;
    const kafka_batch *kb = b->impl;
    if (kb && kb->local) {
        render_local(out, kb);
        return 0;
    }
    if (!kb || !kb->scan) {
        empty_relation(out, kb && kb->opts.include_headers);
        return 0;
    }
    weir__buf_puts(out, "(SELECT ");
    if (!kb->opts.include_headers) {
        put_columns(out, "");
        weir__buf_puts(out, " FROM ");
        weir__scan_sql(out, kb->scan);
        weir__buf_putc(out, ')');
        return 0;
    }
    put_columns(out, "m.");
    weir__buf_puts(out, ", h.\"headers\" FROM ");
    weir__scan_sql(out, kb->scan);
    weir__buf_puts(out, " AS m LEFT JOIN (SELECT \"topic\", \"partition\", "
                        "\"offset\", list({'key': \"key\", 'value': "
                        "\"value\"} ORDER BY \"idx\") AS \"headers\" FROM ");
    weir__scan_sql(out, kb->hscan);
    weir__buf_puts(out, " GROUP BY ALL) AS h ON h.\"topic\" = m.\"topic\" AND "
                        "h.\"partition\" = m.\"partition\" AND h.\"offset\" = "
                        "m.\"offset\")");
    return 0;
}

/* After the query: where the read ended is the batch's end (a range may
 * have ended early). */
static int check_read(const weir_source_ctx *c, weir_source_batch *b,
                      size_t *changed)
{
    (void)c;
    (void)changed;
    kafka_batch *kb = b->impl;
    int64_t moved;
    if (kb && kb->scan)
        b->end = b->start + position(kb, kb->first, &moved);
    return 0;
}

/* The batch is over: its scans go, and the planning consumer. */
static void release(const weir_source_ctx *c, weir_source_batch *b)
{
    (void)c;
    kafka_batch *kb = b->impl;
    if (!kb)
        return;
    if (kb->conn) {
        weir__scan_remove(kb->conn, kb->scan);
        weir__scan_remove(kb->conn, kb->hscan);
        pthread_mutex_destroy(&kb->lock);
        kb->conn = NULL;
    }
    kb->scan = kb->hscan = 0;
    weir__kafka_consumer_close(kb->kc);
    kb->kc = NULL;
}

/* Every partition's offsets after the batch, in its transaction, and a
 * marker row (partition -1, the batch's running totals) so that a batch
 * of no partition (topics that do not exist yet) is recorded too. */
static int commit(const weir_source_ctx *c, const weir_source_batch *b)
{
    const kafka_batch *kb = b->impl;
    weir_checkpoint_partition *parts =
        weir__arena_array(c->arena, kb->n_parts + 2, sizeof(*parts));
    if (!parts)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    parts[0].topic = "";
    parts[0].partition = -1;
    parts[0].start = b->start;
    parts[0].end = b->end;
    size_t n = 1;
    for (size_t i = 0; i < kb->n_parts; i++) {
        const kpart *p = &kb->parts[i];
        if (p->vanished)
            continue;
        parts[n].topic = p->topic;
        parts[n].partition = p->partition;
        parts[n].start = p->from;
        parts[n].end = p->end;
        n++;
    }
    return weir__checkpoint_partitions_add(c->cp, c->gen, c->batch_id, b->key,
                                           parts, n);
}

/* {"topic": {"0": 12, ...}, ...}, topics in order of appearance. */
static void put_offsets(weir_buf *d, const kafka_batch *kb, bool end)
{
    weir__buf_putc(d, '{');
    size_t topics = 0;
    for (size_t i = 0; i < kb->n_parts; i++) {
        const kpart *p = &kb->parts[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(kb->parts[k].topic, p->topic) && !kb->parts[k].vanished;
        if (seen || p->vanished)
            continue;
        weir__buf_puts(d, topics++ ? ", " : "");
        weir__buf_put_json_string(d, p->topic);
        weir__buf_puts(d, ": {");
        size_t n = 0;
        for (size_t k = i; k < kb->n_parts; k++) {
            const kpart *q = &kb->parts[k];
            if (q->vanished || strcmp(q->topic, p->topic))
                continue;
            weir__buf_printf(d, "%s\"%d\": %lld", n++ ? ", " : "",
                             (int)q->partition,
                             (long long)(end ? q->end : q->from));
        }
        weir__buf_putc(d, '}');
    }
    weir__buf_putc(d, '}');
}

static void progress(const weir_source_ctx *c, const weir_source_batch *b,
                     weir_buf *d)
{
    (void)c;
    const kafka_batch *kb = b->impl;
    weir__buf_printf(d, ", \"start_offset\": %lld, \"end_offset\": %lld, "
                        "\"numInputRows\": %lld, \"startOffset\": ",
                     (long long)b->start, (long long)b->end,
                     (long long)(kb->read ? kb->rows : 0));
    put_offsets(d, kb, false);
    weir__buf_puts(d, ", \"endOffset\": ");
    put_offsets(d, kb, true);
}

/* Resolution: the options checked, the columns typed; a dry run also asks
 * the brokers whether they answer. */
static int analyze(weir_buf *out, const weir_source_analysis *a,
                   weir_error *err)
{
    weir_arena arena = WEIR_ARENA_INIT;
    weir_kafka_opts o;
    int rc = weir__kafka_opts(&o, &arena, a->in->tvf, err);
    if (!rc && a->dry)
        rc = weir__kafka_probe(o.client, o.n_client, o.bootstrap, err);
    if (!rc)
        empty_relation(out, o.include_headers);
    weir__arena_free(&arena);
    return rc;
}

const weir_source_kind weir__source_kafka = {
    .name = "kafka",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .check_read = check_read,
    .commit = commit,
    .progress = progress,
    .analyze = analyze,
    .release = release,
};
