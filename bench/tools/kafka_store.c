/* kafka_store BROKER TOPIC DB: the same-work floor of the Kafka source
 * benchmark (bench/kafka.sh).
 *
 * Reads every message of TOPIC (read_committed, up to each partition's end
 * when it starts) and stores it in a new DuckDB file DB, in a table of the
 * Kafka source's columns (key, value, topic, partition, offset, timestamp,
 * timestampType), by hand: one thread per group of partitions (up to the
 * machine's cores), each with its own librdkafka consumer (weir's consumer
 * settings and prefetch) and its own DuckDB appender, on the libduckdb weir links and in the
 * storage format weir writes. It records no offsets and has no checkpoint,
 * retry or event: what is left of weir's work is consuming and storing.
 * KAFKA_STORE_LANES=N sets the number of threads. Prints
 * "rows<TAB>seconds". Exit 0 on success, 1 on an error (printed),
 * 2 on bad usage. Built by bench/kafka.sh. */
#define _POSIX_C_SOURCE 200809L
#include <duckdb.h>
#include <librdkafka/rdkafka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 30000
#define MAX_LANES 64

typedef struct {
    const char *broker, *topic;
    duckdb_database db;
    int parts[1024], n_parts;
    long long rows;
    char error[512];
} lane;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static rd_kafka_t *consumer(const char *broker, char *err, size_t cap)
{
    const char *conf_kv[] = { "bootstrap.servers", broker, "log_level", "3",
                              "isolation.level", "read_committed",
                              "enable.partition.eof", "true",
                              "group.id", "kafka_store", "enable.auto.commit", "false",
                              "fetch.max.bytes", "52428800",
                              "fetch.wait.max.ms", "50",
                              "queued.min.messages", "1000000",
                              "queued.max.messages.kbytes", "65536",
                              "fetch.message.max.bytes", "4194304", NULL };
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    for (size_t i = 0; conf_kv[i]; i += 2)
        if (rd_kafka_conf_set(conf, conf_kv[i], conf_kv[i + 1], err, cap)) {
            rd_kafka_conf_destroy(conf);
            return NULL;
        }
    return rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, cap);
}

/* The lane's chunk of n rows goes to the appender. */
static int flush(duckdb_appender app, duckdb_data_chunk ch, idx_t n, lane *l)
{
    if (n == 0)
        return 0;
    duckdb_data_chunk_set_size(ch, n);
    if (duckdb_append_data_chunk(app, ch) == DuckDBError) {
        snprintf(l->error, sizeof l->error, "append: %s", duckdb_appender_error(app));
        return 1;
    }
    duckdb_data_chunk_reset(ch);
    return 0;
}

static void *run_lane(void *arg)
{
    lane *l = arg;
    duckdb_connection con = NULL;
    duckdb_appender app = NULL;
    duckdb_data_chunk ch = NULL;
    rd_kafka_topic_partition_list_t *list = NULL;
    rd_kafka_t *rk = consumer(l->broker, l->error,
                              sizeof l->error);
    if (!rk)
        return NULL;
    if (duckdb_connect(l->db, &con) == DuckDBError ||
        duckdb_appender_create_ext(con, "store", "main", "raw", &app) == DuckDBError) {
        snprintf(l->error, sizeof l->error, "cannot open the appender");
        goto out;
    }
    duckdb_logical_type types[7];
    duckdb_type ids[7] = { DUCKDB_TYPE_BLOB, DUCKDB_TYPE_BLOB, DUCKDB_TYPE_VARCHAR,
                           DUCKDB_TYPE_INTEGER, DUCKDB_TYPE_BIGINT,
                           DUCKDB_TYPE_TIMESTAMP, DUCKDB_TYPE_INTEGER };
    for (int i = 0; i < 7; i++)
        types[i] = duckdb_create_logical_type(ids[i]);
    ch = duckdb_create_data_chunk(types, 7);
    for (int i = 0; i < 7; i++)
        duckdb_destroy_logical_type(&types[i]);
    list = rd_kafka_topic_partition_list_new(l->n_parts);
    int open = 0;
    for (int i = 0; i < l->n_parts; i++) {
        int64_t lo, hi;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
            rk, l->topic, l->parts[i], &lo, &hi, TIMEOUT_MS);
        if (e) {
            snprintf(l->error, sizeof l->error, "%s", rd_kafka_err2str(e));
            goto out;
        }
        if (hi > lo) {
            rd_kafka_topic_partition_list_add(list, l->topic, l->parts[i])->offset = lo;
            open++;
        }
    }
    if (open)
        rd_kafka_assign(rk, list);
    idx_t n = 0, cap = duckdb_vector_size();
    duckdb_vector v[7];
    for (int i = 0; i < 7; i++)
        v[i] = duckdb_data_chunk_get_vector(ch, (idx_t)i);
    int idle = 0;
    while (open > 0) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 1000);
        if (!m) {
            if (++idle > 30) {
                snprintf(l->error, sizeof l->error, "no progress for 30 s");
                goto out;
            }
            continue;
        }
        idle = 0;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            open--;
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m->err) {
            snprintf(l->error, sizeof l->error, "%s", rd_kafka_message_errstr(m));
            rd_kafka_message_destroy(m);
            goto out;
        }
        if (m->key)
            duckdb_vector_assign_string_element_len(v[0], n, m->key, m->key_len);
        else {
            duckdb_vector_ensure_validity_writable(v[0]);
            duckdb_validity_set_row_invalid(duckdb_vector_get_validity(v[0]), n);
        }
        duckdb_vector_assign_string_element_len(v[1], n, m->payload, m->len);
        duckdb_vector_assign_string_element(v[2], n, l->topic);
        ((int32_t *)duckdb_vector_get_data(v[3]))[n] = m->partition;
        ((int64_t *)duckdb_vector_get_data(v[4]))[n] = m->offset;
        rd_kafka_timestamp_type_t tt;
        int64_t ts = rd_kafka_message_timestamp(m, &tt);
        ((int64_t *)duckdb_vector_get_data(v[5]))[n] = ts * 1000;
        ((int32_t *)duckdb_vector_get_data(v[6]))[n] = tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME;
        rd_kafka_message_destroy(m);
        l->rows++;
        if (++n == cap) {
            if (flush(app, ch, n, l))
                goto out;
            n = 0;
            for (int i = 0; i < 7; i++)
                v[i] = duckdb_data_chunk_get_vector(ch, (idx_t)i);
        }
    }
    if (flush(app, ch, n, l))
        goto out;
    if (duckdb_appender_close(app) == DuckDBError)
        snprintf(l->error, sizeof l->error, "commit: %s", duckdb_appender_error(app));
out:
    if (list)
        rd_kafka_topic_partition_list_destroy(list);
    if (ch)
        duckdb_destroy_data_chunk(&ch);
    if (app)
        duckdb_appender_destroy(&app);
    if (con)
        duckdb_disconnect(&con);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return NULL;
}

static int partition_count(const char *broker, const char *topic, char *err, size_t cap)
{
    rd_kafka_t *rk = consumer(broker, err, cap);
    if (!rk)
        return -1;
    rd_kafka_topic_t *t = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    int n = -1;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, TIMEOUT_MS);
    if (e)
        snprintf(err, cap, "%s", rd_kafka_err2str(e));
    else if (md->topic_cnt == 1 && !md->topics[0].err)
        n = md->topics[0].partition_cnt;
    else
        snprintf(err, cap, "no such topic");
    if (md)
        rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(t);
    rd_kafka_destroy(rk);
    return n;
}

static int sql(duckdb_connection con, const char *q)
{
    duckdb_result r;
    if (duckdb_query(con, q, &r) == DuckDBError) {
        fprintf(stderr, "kafka_store: %s\n", duckdb_result_error(&r));
        duckdb_destroy_result(&r);
        return 1;
    }
    duckdb_destroy_result(&r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: kafka_store BROKER TOPIC DB\n");
        return 2;
    }
    double t0 = now();
    char err[512];
    int parts = partition_count(argv[1], argv[2], err, sizeof err);
    if (parts <= 0) {
        fprintf(stderr, "kafka_store: %s: %s\n", argv[2], err);
        return 1;
    }
    long cores = getenv("KAFKA_STORE_LANES") ? atol(getenv("KAFKA_STORE_LANES"))
                                             : sysconf(_SC_NPROCESSORS_ONLN);
    int n_lanes = parts < cores ? parts : (int)cores;
    if (n_lanes > MAX_LANES)
        n_lanes = MAX_LANES;
    duckdb_database db;
    duckdb_connection con;
    char q[4096];
    if (duckdb_open(NULL, &db) == DuckDBError || duckdb_connect(db, &con) == DuckDBError) {
        fprintf(stderr, "kafka_store: cannot open DuckDB\n");
        return 1;
    }
    snprintf(q, sizeof q,
             "ATTACH '%s' AS store (STORAGE_VERSION 'v1.4.0');"
             "CREATE TABLE store.main.raw (key BLOB USING COMPRESSION zstd, value BLOB "
             "USING COMPRESSION zstd, topic VARCHAR, "
             "partition INTEGER, \"offset\" BIGINT, timestamp TIMESTAMP, "
             "timestampType INTEGER)",
             argv[3]);
    if (sql(con, q))
        return 1;
    lane *lanes = calloc((size_t)n_lanes, sizeof *lanes);
    pthread_t th[MAX_LANES];
    for (int p = 0; p < parts && p < 1024 * n_lanes; p++) {
        lane *l = &lanes[p % n_lanes];
        l->parts[l->n_parts++] = p;
    }
    for (int i = 0; i < n_lanes; i++) {
        lanes[i].broker = argv[1];
        lanes[i].topic = argv[2];
        lanes[i].db = db;
        pthread_create(&th[i], NULL, run_lane, &lanes[i]);
    }
    long long rows = 0;
    int rc = 0;
    for (int i = 0; i < n_lanes; i++) {
        pthread_join(th[i], NULL);
        rows += lanes[i].rows;
        if (lanes[i].error[0]) {
            fprintf(stderr, "kafka_store: %s\n", lanes[i].error);
            rc = 1;
        }
    }
    free(lanes);
    if (!rc)
        rc = sql(con, "DETACH store");
    duckdb_disconnect(&con);
    duckdb_close(&db);
    if (!rc)
        printf("%lld\t%.3f\n", rows, now() - t0);
    return rc;
}
