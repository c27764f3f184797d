/*
 * ktool: the Kafka test tool of weir's tests and benchmarks, on librdkafka
 * against the real broker scripts/kafka.sh starts. It is not part of weir.
 *
 *   ktool -b ADDR create TOPIC PARTITIONS [-c NAME=VALUE]...
 *         -c: a topic config, e.g. retention.ms=-1
 *   ktool -b ADDR add-partitions TOPIC TOTAL
 *   ktool -b ADDR delete TOPIC
 *   ktool -b ADDR delete-records TOPIC PARTITION BEFORE_OFFSET
 *   ktool -b ADDR offsets TOPIC          "partition<TAB>low<TAB>high" lines
 *   ktool -b ADDR produce TOPIC [-p P] [-H name=value]...
 *         one message per stdin line: "key<TAB>value", or a value alone
 *         (no key); -p: that partition, else the default partitioner
 *   ktool -b ADDR produce-n TOPIC N [-s BYTES] [-p P] [-x]
 *         N messages key "k<i>", value "v<i>" padded to BYTES; prints
 *         "rows<TAB>seconds" (the producer floor of bench/kafka.sh); -x:
 *         in one transaction of a transactional (idempotent) producer, as
 *         weir's Kafka sink publishes a batch
 *   ktool -b ADDR produce-txn TOPIC N [-p P] [-a] [-w SECONDS]
 *         N messages key "t<i>", value "x<i>" in one transaction, committed
 *         (-a: aborted); -w: held open SECONDS after sending ("open" is
 *         printed), then committed or aborted
 *   ktool -b ADDR fence ID
 *         init_transactions() of a producer with transactional.id ID:
 *         fences every other producer of that id (their later sends and
 *         commits fail) and aborts the transaction one left open
 *   ktool -b ADDR groups                 the consumer groups' ids, a line each
 *   ktool -b ADDR consume TOPIC [-u] [-n] [-t] [-T]
 *         every message up to each partition's end, as read_committed
 *         (-u: read_uncommitted): "partition<TAB>offset<TAB>key<TAB>value
 *         <TAB>headers" lines (NULL key "\N", headers "name=value;...");
 *         -n: only the count; -t: "rows<TAB>bytes<TAB>seconds" (the
 *         consumer floor); -T: each line ends with "<TAB>timestamp"
 *         (milliseconds since the epoch)
 *
 * Exit 0 on success, 1 on a Kafka error (printed), 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <librdkafka/rdkafka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 30000

static const char *broker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void)
{
    fprintf(stderr, "usage: ktool -b ADDR COMMAND ... (see tests/kafka/ktool.c)\n");
    return 2;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "ktool: %s: %s\n", what, why);
    return 1;
}

static rd_kafka_t *client(rd_kafka_type_t type, const char *const *extra)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", broker, err, sizeof err) ||
        rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err)) {
        fprintf(stderr, "ktool: %s\n", err);
        exit(1);
    }
    for (size_t i = 0; extra && extra[i]; i += 2)
        if (rd_kafka_conf_set(conf, extra[i], extra[i + 1], err, sizeof err)) {
            fprintf(stderr, "ktool: %s\n", err);
            exit(1);
        }
    rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "ktool: %s\n", err);
        exit(1);
    }
    return rk;
}

/* Run one admin request and wait for its result event. */
static rd_kafka_event_t *admin_wait(rd_kafka_t *rk, rd_kafka_queue_t *q)
{
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, TIMEOUT_MS);
    (void)rk;
    if (!ev) {
        fprintf(stderr, "ktool: the broker did not answer\n");
        exit(1);
    }
    if (rd_kafka_event_error(ev)) {
        fprintf(stderr, "ktool: %s\n", rd_kafka_event_error_string(ev));
        exit(1);
    }
    return ev;
}

static int topic_result(const rd_kafka_topic_result_t **res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rd_kafka_topic_result_error(res[i]))
            return fail(rd_kafka_topic_result_name(res[i]),
                        rd_kafka_topic_result_error_string(res[i]));
    return 0;
}

/* configs: n_configs "NAME=VALUE" strings. */
static int cmd_create(const char *topic, int parts, char **configs, int n_configs)
{
    char err[256];
    rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, parts, 1, err, sizeof err);
    if (!nt)
        return fail(topic, err);
    for (int i = 0; i < n_configs; i++) {
        char *eq = strchr(configs[i], '=');
        if (!eq) {
            rd_kafka_NewTopic_destroy(nt);
            return usage();
        }
        *eq = '\0';
        if (rd_kafka_NewTopic_set_config(nt, configs[i], eq + 1)) {
            rd_kafka_NewTopic_destroy(nt);
            return fail(topic, configs[i]);
        }
    }
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
    rd_kafka_event_t *ev = admin_wait(rk, q);
    size_t n;
    const rd_kafka_topic_result_t **res = rd_kafka_CreateTopics_result_topics(
        rd_kafka_event_CreateTopics_result(ev), &n);
    int rc = topic_result(res, n);
    rd_kafka_event_destroy(ev);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}

static int cmd_add_partitions(const char *topic, int total)
{
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    char err[256];
    rd_kafka_NewPartitions_t *np = rd_kafka_NewPartitions_new(topic, (size_t)total,
                                                              err, sizeof err);
    if (!np)
        return fail(topic, err);
    rd_kafka_CreatePartitions(rk, &np, 1, NULL, q);
    rd_kafka_event_t *ev = admin_wait(rk, q);
    size_t n;
    const rd_kafka_topic_result_t **res = rd_kafka_CreatePartitions_result_topics(
        rd_kafka_event_CreatePartitions_result(ev), &n);
    int rc = topic_result(res, n);
    rd_kafka_event_destroy(ev);
    rd_kafka_NewPartitions_destroy(np);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}

static int cmd_delete(const char *topic)
{
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_DeleteTopic_t *dt = rd_kafka_DeleteTopic_new(topic);
    rd_kafka_DeleteTopics(rk, &dt, 1, NULL, q);
    rd_kafka_event_t *ev = admin_wait(rk, q);
    size_t n;
    const rd_kafka_topic_result_t **res = rd_kafka_DeleteTopics_result_topics(
        rd_kafka_event_DeleteTopics_result(ev), &n);
    int rc = topic_result(res, n);
    rd_kafka_event_destroy(ev);
    rd_kafka_DeleteTopic_destroy(dt);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}

static int cmd_delete_records(const char *topic, int part, int64_t before)
{
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic, part)->offset = before;
    rd_kafka_DeleteRecords_t *dr = rd_kafka_DeleteRecords_new(l);
    rd_kafka_DeleteRecords(rk, &dr, 1, NULL, q);
    rd_kafka_event_t *ev = admin_wait(rk, q);
    const rd_kafka_topic_partition_list_t *res = rd_kafka_DeleteRecords_result_offsets(
        rd_kafka_event_DeleteRecords_result(ev));
    int rc = 0;
    for (int i = 0; res && i < res->cnt; i++)
        if (res->elems[i].err)
            rc = fail(topic, rd_kafka_err2str(res->elems[i].err));
    rd_kafka_event_destroy(ev);
    rd_kafka_DeleteRecords_destroy(dr);
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}

/* The number of partitions of topic (0 when it does not exist). */
static int partition_count(rd_kafka_t *rk, const char *topic)
{
    rd_kafka_topic_t *t = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, TIMEOUT_MS);
    rd_kafka_topic_destroy(t);
    if (e) {
        fprintf(stderr, "ktool: metadata: %s\n", rd_kafka_err2str(e));
        exit(1);
    }
    int n = 0;
    if (md->topic_cnt == 1 && !md->topics[0].err)
        n = md->topics[0].partition_cnt;
    rd_kafka_metadata_destroy(md);
    return n;
}

static int cmd_offsets(const char *topic)
{
    rd_kafka_t *rk = client(RD_KAFKA_CONSUMER, NULL);
    int n = partition_count(rk, topic);
    for (int p = 0; p < n; p++) {
        int64_t lo, hi;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk, topic, p, &lo, &hi,
                                                                 TIMEOUT_MS);
        if (e)
            return fail(topic, rd_kafka_err2str(e));
        printf("%d\t%" PRId64 "\t%" PRId64 "\n", p, lo, hi);
    }
    rd_kafka_destroy(rk);
    return 0;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    if (m->err) {
        *(int *)opaque = 1;
        fprintf(stderr, "ktool: delivery: %s\n", rd_kafka_err2str(m->err));
    }
}

/* txn_id: a transactional producer of that id (NULL: a plain one). */
static rd_kafka_t *producer(int *failed, const char *txn_id)
{
    static const char *const extra[] = { "linger.ms", "5", "acks", "all",
                                         "batch.size", "1000000", NULL };
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", broker, err, sizeof err);
    for (size_t i = 0; extra[i]; i += 2)
        rd_kafka_conf_set(conf, extra[i], extra[i + 1], err, sizeof err);
    if (txn_id)
        rd_kafka_conf_set(conf, "transactional.id", txn_id, err, sizeof err);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, failed);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "ktool: %s\n", err);
        exit(1);
    }
    return rk;
}

static void produce_one(rd_kafka_t *rk, const char *topic, int part,
                        const char *key, size_t klen, const char *val, size_t vlen,
                        rd_kafka_headers_t *hdrs)
{
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(topic),
            RD_KAFKA_V_PARTITION(part < 0 ? RD_KAFKA_PARTITION_UA : part),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_KEY(key, klen), RD_KAFKA_V_VALUE((void *)val, vlen),
            RD_KAFKA_V_HEADERS(hdrs ? rd_kafka_headers_copy(hdrs) : NULL),
            RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(rk, 10);
            continue;
        }
        if (e) {
            fprintf(stderr, "ktool: produce: %s\n", rd_kafka_err2str(e));
            exit(1);
        }
        return;
    }
}

static int finish(rd_kafka_t *rk, int *failed)
{
    rd_kafka_resp_err_t e = rd_kafka_flush(rk, TIMEOUT_MS * 4);
    rd_kafka_destroy(rk);
    if (e)
        return fail("flush", rd_kafka_err2str(e));
    return *failed;
}

static int cmd_produce(const char *topic, int part, rd_kafka_headers_t *hdrs)
{
    int failed = 0;
    rd_kafka_t *rk = producer(&failed, NULL);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        char *tab = strchr(line, '\t');
        if (tab)
            produce_one(rk, topic, part, line, (size_t)(tab - line), tab + 1,
                        strlen(tab + 1), hdrs);
        else
            produce_one(rk, topic, part, NULL, 0, line, (size_t)n, hdrs);
        rd_kafka_poll(rk, 0);
    }
    free(line);
    return finish(rk, &failed);
}

static int cmd_produce_n(const char *topic, long long count, size_t size, int part,
                         int txn)
{
    int failed = 0;
    char id[64];
    snprintf(id, sizeof id, "ktool-n-%ld", (long)getpid());
    double t0 = now();
    rd_kafka_t *rk = producer(&failed, txn ? id : NULL);
    rd_kafka_error_t *e = NULL;
    if (txn && !(e = rd_kafka_init_transactions(rk, TIMEOUT_MS)))
        e = rd_kafka_begin_transaction(rk);
    if (e) {
        int rc = fail("transaction", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        rd_kafka_destroy(rk);
        return rc;
    }
    char key[32];
    char *val = malloc(size + 32);
    for (long long i = 0; i < count; i++) {
        int kl = snprintf(key, sizeof key, "k%lld", i);
        int vl = snprintf(val, size + 32, "v%lld", i);
        size_t len = (size_t)vl;
        if (len < size) {
            memset(val + len, 'x', size - len);
            len = size;
        }
        produce_one(rk, topic, part, key, (size_t)kl, val, len, NULL);
        if ((i & 1023) == 0)
            rd_kafka_poll(rk, 0);
    }
    if (txn && (e = rd_kafka_commit_transaction(rk, TIMEOUT_MS * 4))) {
        failed = fail("commit", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    int rc = finish(rk, &failed);
    printf("%lld\t%.3f\n", count, now() - t0);
    free(val);
    return rc;
}

/* N messages in one transaction, committed (or aborted with -a); -w: the
 * transaction stays open that many seconds after its messages are sent
 * ("open" is printed then), to test readers of open transactions. */
static int cmd_produce_txn(const char *topic, long long count, int part,
                           int abort_it, int wait_s)
{
    char err[512], id[64];
    snprintf(id, sizeof id, "ktool-%ld", (long)getpid());
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", broker, err, sizeof err);
    rd_kafka_conf_set(conf, "transactional.id", id, err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        return fail("producer", err);
    rd_kafka_error_t *e = rd_kafka_init_transactions(rk, TIMEOUT_MS);
    if (!e)
        e = rd_kafka_begin_transaction(rk);
    char key[32], val[32];
    for (long long i = 0; !e && i < count; i++) {
        int kl = snprintf(key, sizeof key, "t%lld", i);
        int vl = snprintf(val, sizeof val, "x%lld", i);
        produce_one(rk, topic, part, key, (size_t)kl, val, (size_t)vl, NULL);
    }
    if (!e)
        rd_kafka_flush(rk, TIMEOUT_MS); /* sent, even when aborted */
    if (!e && wait_s > 0) {
        printf("open\n");
        fflush(stdout);
        sleep((unsigned)wait_s);
    }
    if (!e)
        e = abort_it ? rd_kafka_abort_transaction(rk, TIMEOUT_MS)
                     : rd_kafka_commit_transaction(rk, TIMEOUT_MS);
    int rc = 0;
    if (e) {
        rc = fail("transaction", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    rd_kafka_destroy(rk);
    return rc;
}

static int cmd_fence(const char *id)
{
    const char *const extra[] = { "transactional.id", id, NULL };
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, extra);
    rd_kafka_error_t *e = rd_kafka_init_transactions(rk, TIMEOUT_MS);
    int rc = 0;
    if (e) {
        rc = fail("init_transactions", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    rd_kafka_destroy(rk);
    return rc;
}

static int cmd_groups(void)
{
    rd_kafka_t *rk = client(RD_KAFKA_PRODUCER, NULL);
    const struct rd_kafka_group_list *list = NULL;
    rd_kafka_resp_err_t e = rd_kafka_list_groups(rk, NULL, &list, TIMEOUT_MS);
    int rc = e ? fail("list groups", rd_kafka_err2str(e)) : 0;
    for (int i = 0; !e && i < list->group_cnt; i++)
        printf("%s\n", list->groups[i].group);
    if (list)
        rd_kafka_group_list_destroy(list);
    rd_kafka_destroy(rk);
    return rc;
}

static void put_escaped(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\t')
            fputs("\\t", stdout);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\\')
            fputs("\\\\", stdout);
        else if (c < 32 || c >= 127)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
}

static int cmd_consume(const char *topic, int uncommitted, int count_only, int timing,
                       int stamps)
{
    const char *extra[] = { "isolation.level",
                            uncommitted ? "read_uncommitted" : "read_committed",
                            "enable.partition.eof", "true",
                            "group.id", "ktool", "enable.auto.commit", "false",
                            "fetch.max.bytes", "52428800",
                            /* weir's source's settings (kafka/consumer.c):
                             * the floor fetches as fast as weir can */
                            "fetch.wait.max.ms", "50",
                            "queued.min.messages", "1000000",
                            "fetch.message.max.bytes", "4194304", NULL };
    rd_kafka_t *rk = client(RD_KAFKA_CONSUMER, extra);
    int n = partition_count(rk, topic);
    if (n == 0)
        return fail(topic, "no such topic");
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
    int64_t *hi = calloc((size_t)n, sizeof *hi);
    int open = 0;
    for (int p = 0; p < n; p++) {
        int64_t lo;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk, topic, p, &lo,
                                                                 &hi[p], TIMEOUT_MS);
        if (e)
            return fail(topic, rd_kafka_err2str(e));
        if (hi[p] > lo) {
            rd_kafka_topic_partition_list_add(l, topic, p)->offset = lo;
            open++;
        }
    }
    if (open)
        rd_kafka_assign(rk, l);
    long long rows = 0, bytes = 0;
    double t0 = now();
    int idle = 0;
    while (open > 0) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 1000);
        if (!m) {
            if (++idle > 30)
                return fail(topic, "no progress for 30 s");
            continue;
        }
        idle = 0;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            open--;
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m->err)
            return fail(topic, rd_kafka_message_errstr(m));
        rows++;
        bytes += (long long)m->len + (long long)m->key_len;
        if (!count_only && !timing) {
            printf("%d\t%" PRId64 "\t", m->partition, m->offset);
            if (m->key)
                put_escaped(m->key, m->key_len);
            else
                fputs("\\N", stdout);
            putchar('\t');
            put_escaped(m->payload, m->len);
            putchar('\t');
            rd_kafka_headers_t *h = NULL;
            if (!rd_kafka_message_headers(m, &h)) {
                const char *name;
                const void *v;
                size_t vl;
                for (size_t i = 0; !rd_kafka_header_get_all(h, i, &name, &v, &vl); i++) {
                    printf("%s%s=", i ? ";" : "", name);
                    if (v)
                        put_escaped(v, vl);
                }
            }
            if (stamps)
                printf("\t%" PRId64, rd_kafka_message_timestamp(m, NULL));
            putchar('\n');
        }
        rd_kafka_message_destroy(m);
    }
    if (count_only)
        printf("%lld\n", rows);
    if (timing)
        printf("%lld\t%lld\t%.3f\n", rows, bytes, now() - t0);
    rd_kafka_topic_partition_list_destroy(l);
    free(hi);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[1], "-b") != 0)
        return usage();
    broker = argv[2];
    const char *cmd = argv[3];
    char **a = argv + 4;
    int n = argc - 4;
    if (!strcmp(cmd, "create") && n >= 2) {
        char *configs[32];
        int nc = 0;
        for (int i = 2; i < n; i++) {
            if (strcmp(a[i], "-c") != 0 || i + 1 == n || nc == 32)
                return usage();
            configs[nc++] = a[++i];
        }
        return cmd_create(a[0], atoi(a[1]), configs, nc);
    }
    if (!strcmp(cmd, "add-partitions") && n == 2)
        return cmd_add_partitions(a[0], atoi(a[1]));
    if (!strcmp(cmd, "delete") && n == 1)
        return cmd_delete(a[0]);
    if (!strcmp(cmd, "delete-records") && n == 3)
        return cmd_delete_records(a[0], atoi(a[1]), strtoll(a[2], NULL, 10));
    if (!strcmp(cmd, "offsets") && n == 1)
        return cmd_offsets(a[0]);
    if (!strcmp(cmd, "produce") && n >= 1) {
        int part = -1;
        rd_kafka_headers_t *h = NULL;
        for (int i = 1; i < n; i++) {
            if (!strcmp(a[i], "-p") && i + 1 < n) {
                part = atoi(a[++i]);
            } else if (!strcmp(a[i], "-H") && i + 1 < n) {
                char *eq = strchr(a[++i], '=');
                if (!eq)
                    return usage();
                if (!h)
                    h = rd_kafka_headers_new(4);
                rd_kafka_header_add(h, a[i], eq - a[i], eq + 1, -1);
            } else {
                return usage();
            }
        }
        int rc = cmd_produce(a[0], part, h);
        if (h)
            rd_kafka_headers_destroy(h);
        return rc;
    }
    if (!strcmp(cmd, "produce-n") && n >= 2) {
        size_t size = 16;
        int part = -1, txn = 0;
        for (int i = 2; i < n; i++) {
            if (!strcmp(a[i], "-s") && i + 1 < n)
                size = (size_t)atol(a[++i]);
            else if (!strcmp(a[i], "-p") && i + 1 < n)
                part = atoi(a[++i]);
            else if (!strcmp(a[i], "-x"))
                txn = 1;
            else
                return usage();
        }
        return cmd_produce_n(a[0], atoll(a[1]), size, part, txn);
    }
    if (!strcmp(cmd, "produce-txn") && n >= 2) {
        int part = -1, abort_it = 0, wait_s = 0;
        for (int i = 2; i < n; i++) {
            if (!strcmp(a[i], "-p") && i + 1 < n)
                part = atoi(a[++i]);
            else if (!strcmp(a[i], "-w") && i + 1 < n)
                wait_s = atoi(a[++i]);
            else if (!strcmp(a[i], "-a"))
                abort_it = 1;
            else
                return usage();
        }
        return cmd_produce_txn(a[0], atoll(a[1]), part, abort_it, wait_s);
    }
    if (!strcmp(cmd, "fence") && n == 1)
        return cmd_fence(a[0]);
    if (!strcmp(cmd, "groups") && n == 0)
        return cmd_groups();
    if (!strcmp(cmd, "consume") && n >= 1) {
        int u = 0, c = 0, t = 0, ts = 0;
        for (int i = 1; i < n; i++) {
            if (!strcmp(a[i], "-u"))
                u = 1;
            else if (!strcmp(a[i], "-T"))
                ts = 1;
            else if (!strcmp(a[i], "-n"))
                c = 1;
            else if (!strcmp(a[i], "-t"))
                t = 1;
            else
                return usage();
        }
        return cmd_consume(a[0], u, c, t, ts);
    }
    return usage();
}
