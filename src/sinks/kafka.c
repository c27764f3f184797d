/*
 * The Kafka sink: each batch of a flow goes to Kafka topics in one Kafka
 * transaction, exactly once (docs/sinks.md, docs/kafka.md).
 *
 * Rows are Spark's Kafka sink rows: `value` (string or binary, required),
 * optional `key` (string or binary), `headers` (array<struct<key: string,
 * value: binary>>), `partition` (int), `timestamp` (timestamp, or double
 * seconds) and `topic` (string; the `topic` option wins over it). Other
 * columns are ignored.
 *
 * stage() streams the batch's records to <stage_dir>/g<gen>-b<batch>.kafka
 * a DuckDB data chunk at a time (kafka_file.h; no batch is held whole in
 * memory) and, as it goes, sends each record into a transaction of a
 * producer whose transactional.id is derived from the storage's state id,
 * the sink and the flow; it fsyncs the file, and the engine commits the
 * checkpoint. publish() then commits that transaction, which also commits
 * the batch's marker (generation × 2^32 + batch + 1) as an offset of
 * partition 0 of the batch's first topic in the consumer group of that
 * id. A batch whose transaction is not at hand (recovery after a crash, a
 * Kafka failure while staging or committing) is published from its file
 * by a new producer of that id: its init_transactions() fences every
 * earlier one and aborts what it left open, so that transaction can never
 * commit too, and a marker at or past the batch means Kafka has it
 * already: nothing is sent again. release() aborts the transaction of a
 * batch that did not commit; discard() removes the staged file.
 *
 * With local topics (weir test, sample runs: weir_engine_opts), stage()
 * appends the batch to the storage's table of messages instead, in the
 * flow's transaction, and nothing is staged or published.
 */
#include "sinks/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kafka/kafka.h"
#include "sinks/kafka_file.h"
#include "store/topics.h"
#include "util/fs.h"
#include "util/str.h"

/* ---- options ------------------------------------------------------------- */

/* Client settings weir sets itself: the transactions and the marker group
 * are how a batch is published exactly once. */
static const char *const REFUSED[] = {
    "kafka.transactional.id",
    "weir's Kafka sink publishes each batch in a transaction of its own "
    "transactional.id (see docs/kafka.md)",
    "kafka.enable.idempotence",
    "transactions need the idempotent producer",
    "kafka.group.id",
    "weir's Kafka sink records its progress in a consumer group of its own",
    "kafka.isolation.level",
    "weir reads the sink's progress as read_committed",
    "kafka.key.serializer",
    "keys are written as bytes (a string or binary key column)",
    "kafka.value.serializer",
    "values are written as bytes (a string or binary value column)",
    NULL, NULL
};

static int validate(const weir_kv *options, size_t n, weir_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *k = options[i].key, *v = options[i].value;
        if (weir__str_ieq(k, "topic")) {
            if (!v || !*v)
                return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                                "option topic must name a Kafka topic");
            continue;
        }
        if (!weir__kafka_is_client_option(k))
            return WEIR_ERR(err, WEIR_EINVAL, "UNKNOWN_SINK_OPTION",
                            "option '%s' is not known to the kafka sink "
                            "(known: topic, kafka.bootstrap.servers and "
                            "other kafka.<client setting>)",
                            k);
        for (size_t r = 0; REFUSED[r]; r += 2)
            if (weir__str_ieq(k, REFUSED[r]))
                return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                                "option '%s' is not supported: %s", k,
                                REFUSED[r + 1]);
        if ((weir__str_ieq(k, "kafka.acks") ||
             weir__str_ieq(k, "kafka.request.required.acks")) &&
            !(v && (weir__str_ieq(v, "all") || strcmp(v, "-1") == 0)))
            return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                            "option '%s' = '%s' is not supported: transactions "
                            "need acks from all in-sync replicas ('all')",
                            k, v ? v : "");
    }
    return weir__kafka_check_options(options, n, NULL, err);
}

static int probe(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__kafka_probe(options, n, NULL, err);
}

/* ---- columns ------------------------------------------------------------- */

enum { C_TOPIC, C_KEY, C_VALUE, C_HEADERS, C_PARTITION, C_TIMESTAMP, C_N };

static const char *const COLUMN[C_N] = { "topic",   "key",       "value",
                                         "headers", "partition", "timestamp" };
/* Spark's names of the accepted types, for messages. */
static const char *const WANTED[C_N] = {
    "string", "string or binary", "string or binary",
    "array<struct<key:string,value:binary>>", "int", "double or timestamp"
};

typedef enum col_kind {
    K_NONE, K_STRING, K_BINARY, K_HEADERS, K_INT, K_TIMESTAMP, K_DOUBLE, K_OTHER
} col_kind;

/* What a DuckDB type is, to the sink: spaces and quotes are ignored. */
static col_kind kind_of(const char *duck_type)
{
    char t[128];
    size_t n = 0;
    for (const char *c = duck_type ? duck_type : ""; *c && n + 1 < sizeof t; c++)
        if (*c != ' ' && *c != '"')
            t[n++] = (char)((*c >= 'a' && *c <= 'z') ? *c - 32 : *c);
    t[n] = '\0';
    if (!strcmp(t, "VARCHAR") || !strcmp(t, "JSON"))
        return K_STRING;
    if (!strcmp(t, "BLOB"))
        return K_BINARY;
    if (!strcmp(t, "INTEGER"))
        return K_INT;
    if (!strcmp(t, "STRUCT(KEYVARCHAR,VALUEBLOB)[]"))
        return K_HEADERS;
    if (!strcmp(t, "TIMESTAMP") || !strcmp(t, "TIMESTAMPWITHTIMEZONE"))
        return K_TIMESTAMP;
    if (!strcmp(t, "DOUBLE"))
        return K_DOUBLE;
    return K_OTHER;
}

static bool kind_fits(int col, col_kind k)
{
    switch (col) {
    case C_TOPIC:
        return k == K_STRING;
    case C_KEY:
    case C_VALUE:
        return k == K_STRING || k == K_BINARY;
    case C_HEADERS:
        return k == K_HEADERS;
    case C_PARTITION:
        return k == K_INT;
    default:
        return k == K_TIMESTAMP || k == K_DOUBLE;
    }
}

/* A type's name in messages: Spark's when known. */
static const char *type_name(const weir_column *c, char *buf, size_t size)
{
    if (c->spark_type && *c->spark_type)
        return c->spark_type;
    switch (kind_of(c->duck_type)) {
    case K_STRING: return "string";
    case K_BINARY: return "binary";
    case K_INT: return "int";
    case K_DOUBLE: return "double";
    case K_TIMESTAMP: return "timestamp";
    default: break;
    }
    weir__str_copy(buf, size, c->duck_type ? c->duck_type : "?");
    weir__str_lower(buf);
    return buf;
}

/* The sink's columns among cols (index or -1 each), checked as Spark's
 * KafkaWriter checks them. */
static int find_columns(int found[C_N], col_kind kinds[C_N],
                        const weir_kv *options, size_t n,
                        const weir_column *cols, size_t n_cols, weir_error *err)
{
    bool topic_option = weir__kv_get(options, n, "topic") != NULL;
    for (int c = 0; c < C_N; c++) {
        found[c] = -1;
        kinds[c] = K_NONE;
        for (size_t i = 0; i < n_cols && found[c] < 0; i++)
            if (weir__str_ieq(cols[i].name, COLUMN[c]))
                found[c] = (int)i;
        if (found[c] < 0) {
            if (c == C_VALUE)
                return WEIR_ERR(err, WEIR_EINVAL, "INVALID_KAFKA_SINK_SCHEMA",
                                "Required attribute 'value' not found");
            if (c == C_TOPIC && !topic_option)
                return WEIR_ERR(err, WEIR_EINVAL, "INVALID_KAFKA_SINK_SCHEMA",
                                "topic option required when no 'topic' "
                                "attribute is present. Use the topic option "
                                "for setting a topic.");
            continue;
        }
        if (c == C_TOPIC && topic_option) {
            found[c] = -1; /* the option wins, as in Spark */
            continue;
        }
        kinds[c] = kind_of(cols[found[c]].duck_type);
        if (!kind_fits(c, kinds[c])) {
            char buf[128];
            return WEIR_ERR(err, WEIR_EINVAL, "INVALID_KAFKA_SINK_SCHEMA",
                            "%s attribute unsupported type %s. %s must be "
                            "a(n) %s",
                            COLUMN[c], type_name(&cols[found[c]], buf, sizeof buf),
                            COLUMN[c], WANTED[c]);
        }
    }
    return 0;
}

static int check_columns(const weir_kv *options, size_t n,
                         const weir_column *columns, size_t n_columns,
                         weir_error *err)
{
    int found[C_N];
    col_kind kinds[C_N];
    return find_columns(found, kinds, options, n, columns, n_columns, err);
}

/* ---- the staging query ---------------------------------------------------- */

/* The staged file of a batch. */
static void staged_path(char *out, size_t size, const weir_sink_batch *b)
{
    weir__sink_stage_path(out, size, b, ".kafka");
}

static void put_col(weir_buf *q, const weir_db_column *cols, int i)
{
    weir__buf_puts(q, "weir_batch.");
    weir__buf_put_sql_ident(q, cols[i].name);
}

/* The staging query: topic, partition, key, value, headers (text),
 * timestamp (ms) of each row of the batch; errors for a NULL topic or
 * header name, as Spark's. */
static void stage_sql(weir_buf *q, const char *sql, const weir_kv *options,
                      size_t n, const weir_db_column *cols, const int found[C_N],
                      const col_kind kinds[C_N])
{
    weir__buf_puts(q, "SELECT ");
    const char *topic = weir__kv_get(options, n, "topic");
    if (topic) {
        weir__buf_put_sql_string(q, topic);
    } else {
        weir__buf_puts(q, "CASE WHEN ");
        put_col(q, cols, found[C_TOPIC]);
        weir__buf_puts(q, " IS NULL THEN error('[INVALID_KAFKA_SINK_SCHEMA] null "
                          "topic present in the data. Use the topic option for "
                          "setting a default topic.') ELSE ");
        put_col(q, cols, found[C_TOPIC]);
        weir__buf_puts(q, " END");
    }
    weir__buf_puts(q, ", ");
    if (found[C_PARTITION] >= 0)
        put_col(q, cols, found[C_PARTITION]);
    else
        weir__buf_puts(q, "CAST(NULL AS INTEGER)");
    weir__buf_puts(q, ", ");
    if (found[C_KEY] >= 0)
        put_col(q, cols, found[C_KEY]);
    else
        weir__buf_puts(q, "CAST(NULL AS BLOB)");
    weir__buf_puts(q, ", ");
    put_col(q, cols, found[C_VALUE]);
    weir__buf_puts(q, ", ");
    if (found[C_HEADERS] >= 0) {
        weir__buf_puts(q, "CASE WHEN coalesce(len(");
        put_col(q, cols, found[C_HEADERS]);
        weir__buf_puts(q, "), 0) = 0 THEN NULL ELSE array_to_string(list_transform(");
        put_col(q, cols, found[C_HEADERS]);
        weir__buf_puts(q, ", lambda h: CASE WHEN struct_extract(h, 'key') IS NULL "
                          "THEN error('[INVALID_KAFKA_SINK_SCHEMA] a header of the "
                          "data has a null key') ELSE hex(struct_extract(h, 'key')) "
                          "END || ':' || CASE WHEN struct_extract(h, 'value') IS "
                          "NULL THEN '-' ELSE '=' || hex(struct_extract(h, "
                          "'value')) END), ',') END");
    } else {
        weir__buf_puts(q, "CAST(NULL AS VARCHAR)");
    }
    weir__buf_puts(q, ", ");
    if (found[C_TIMESTAMP] >= 0) {
        if (kinds[C_TIMESTAMP] == K_DOUBLE) {
            weir__buf_puts(q, "CAST(round(");
            put_col(q, cols, found[C_TIMESTAMP]);
            weir__buf_puts(q, " * 1000) AS BIGINT)");
        } else {
            weir__buf_puts(q, "epoch_ms(");
            put_col(q, cols, found[C_TIMESTAMP]);
            weir__buf_puts(q, ")");
        }
    } else {
        weir__buf_puts(q, "CAST(NULL AS BIGINT)");
    }
    weir__buf_printf(q, " FROM (%s) AS weir_batch", sql);
}

/* A key or value column as the BLOB the local topics hold. */
static void put_bytes(weir_buf *q, const weir_db_column *cols, int i,
                      col_kind k)
{
    if (i < 0) {
        weir__buf_puts(q, "CAST(NULL AS BLOB)");
        return;
    }
    weir__buf_puts(q, k == K_STRING ? "encode(" : "(");
    put_col(q, cols, i);
    weir__buf_puts(q, ")");
}

/* The batch appended to the local topics: offsets follow each topic's and
 * partition's last one, in the batch's row order; a row without a
 * partition goes to partition 0, one without a timestamp gets the time
 * of the write (CreateTime). */
static int stage_local(weir_conn *conn, const weir_sink_batch *b,
                       const char *sql, const weir_db_column *cols,
                       const int found[C_N], const col_kind kinds[C_N],
                       int64_t *rows, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__topics_ref(&q, b->local_topics);
    weir__buf_puts(&q, " SELECT m.\"key\", m.\"value\", m.\"topic\", "
                       "m.\"partition\", coalesce(o.\"next\", 0) + "
                       "row_number() OVER (PARTITION BY m.\"topic\", "
                       "m.\"partition\" ORDER BY m.\"seq\") - 1, "
                       "m.\"timestamp\", 0, m.\"headers\" FROM (SELECT ");
    const char *topic = weir__kv_get(b->options, b->n_options, "topic");
    if (topic)
        weir__buf_put_sql_string(&q, topic);
    else
        put_col(&q, cols, found[C_TOPIC]);
    weir__buf_puts(&q, " AS \"topic\", ");
    if (found[C_PARTITION] >= 0) {
        weir__buf_puts(&q, "coalesce(");
        put_col(&q, cols, found[C_PARTITION]);
        weir__buf_puts(&q, ", 0)");
    } else {
        weir__buf_puts(&q, "0");
    }
    weir__buf_puts(&q, " AS \"partition\", ");
    put_bytes(&q, cols, found[C_KEY], kinds[C_KEY]);
    weir__buf_puts(&q, " AS \"key\", ");
    put_bytes(&q, cols, found[C_VALUE], kinds[C_VALUE]);
    weir__buf_puts(&q, " AS \"value\", ");
    if (found[C_HEADERS] >= 0) {
        weir__buf_puts(&q, "CASE WHEN len(");
        put_col(&q, cols, found[C_HEADERS]);
        weir__buf_puts(&q, ") > 0 THEN ");
        put_col(&q, cols, found[C_HEADERS]);
        weir__buf_puts(&q, " END");
    } else {
        weir__buf_puts(&q, "NULL");
    }
    weir__buf_puts(&q, " AS \"headers\", coalesce(");
    if (found[C_TIMESTAMP] >= 0 && kinds[C_TIMESTAMP] == K_DOUBLE) {
        weir__buf_puts(&q, "make_timestamp(CAST(round(");
        put_col(&q, cols, found[C_TIMESTAMP]);
        weir__buf_puts(&q, " * 1000000) AS BIGINT))");
    } else if (found[C_TIMESTAMP] >= 0) {
        weir__buf_puts(&q, "CAST(");
        put_col(&q, cols, found[C_TIMESTAMP]);
        weir__buf_puts(&q, " AS TIMESTAMP)");
    } else {
        weir__buf_puts(&q, "NULL");
    }
    weir__buf_printf(&q, ", make_timestamp(epoch_us(now()))) AS \"timestamp\", "
                         "row_number() OVER () AS \"seq\" FROM (%s) AS "
                         "weir_batch) AS m LEFT JOIN (SELECT \"topic\", "
                         "\"partition\", max(\"offset\") + 1 AS \"next\" "
                         "FROM ", sql);
    weir__topics_ref(&q, b->local_topics);
    weir__buf_puts(&q, " GROUP BY ALL) AS o ON o.\"topic\" = m.\"topic\" AND "
                       "o.\"partition\" = m.\"partition\"");
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(conn, weir__buf_cstr(&q), rows, err);
    weir__buf_free(&q);
    return rc;
}

/* ---- transactions ------------------------------------------------------- */

/* The producer's transactional.id and marker group: stable for this
 * storage (its state id), sink and flow, and nothing else (the storage may
 * move): weir-<sink, made safe>-<16 hex digits of a hash>. */
static void txn_id(char *out, size_t size, const weir_sink_batch *b)
{
    uint64_t h = 14695981039346656037ULL;
    const char *parts[3] = { b->state_id ? b->state_id : "", b->sink, b->flow };
    for (int p = 0; p < 3; p++)
        for (const char *c = parts[p];; c++) {
            h ^= (unsigned char)*c; /* the NUL separates the parts */
            h *= 1099511628211ULL;
            if (!*c)
                break;
        }
    char name[41];
    size_t n = 0;
    for (const char *c = b->sink; *c && n + 1 < sizeof name; c++) {
        unsigned char u = (unsigned char)*c;
        bool safe = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                    (u >= '0' && u <= '9') || u == '_' || u == '-' || u == '.';
        name[n++] = safe ? (char)u : '_';
    }
    name[n] = '\0';
    snprintf(out, size, "weir-%s-%016llx", name, (unsigned long long)h);
}

static int64_t marker_of(const weir_sink_batch *b)
{
    return b->generation * ((int64_t)1 << 32) + b->batch_id + 1;
}

/* A producer of the batch's transactional.id, with transactions
 * initialised (which fences any earlier producer of that id and aborts
 * the transaction it left open); *in_kafka is set when the marker of
 * marker_topic says Kafka has the batch already (nothing to send). */
static int open_producer(weir_kafka_txn **out, const weir_sink_batch *b,
                         const char *marker_topic, bool *in_kafka,
                         weir_error *err)
{
    char id[128];
    txn_id(id, sizeof id, b);
    *in_kafka = false;
    int rc = weir__kafka_txn_open(out, b->options, b->n_options, id, err);
    int64_t marker = -1;
    if (!rc)
        rc = weir__kafka_txn_marker(*out, marker_topic, &marker, err);
    if (!rc)
        *in_kafka = marker >= marker_of(b);
    if (rc) {
        weir__kafka_txn_close(*out);
        *out = NULL;
    }
    return rc;
}

/* Commit t's transaction, with the batch's marker for marker_topic. */
static int commit(weir_kafka_txn *t, const weir_sink_batch *b,
                  const char *marker_topic, weir_error *err)
{
    char note[512];
    snprintf(note, sizeof note,
             "weir sink %s, flow %s: generation %lld, batch %lld, update %s",
             b->sink, b->flow, (long long)b->generation, (long long)b->batch_id,
             b->update_id ? b->update_id : "");
    return weir__kafka_txn_commit(t, marker_topic, marker_of(b), note, err);
}

/* ---- stage --------------------------------------------------------------- */

/* A batch whose records were all sent, while it was staged, into a
 * transaction of a producer of its transactional.id that is still open. */
struct weir_sink_pending {
    weir_kafka_txn *t;
    char *topic; /* the marker's: the batch's first record's */
};

static void release(weir_sink_pending *p)
{
    if (!p)
        return;
    weir__kafka_txn_close(p->t); /* aborts the transaction if still open */
    free(p->topic);
    free(p);
}

/* Sending records while they are staged. Any failure of Kafka only stops
 * this (the transaction is aborted): the staged file is published after
 * the commit instead, and reports the error then if it persists. */
typedef struct early {
    const weir_sink_batch *b;
    bool off;
    weir_sink_pending *p; /* once the first record is sent */
} early;

static void early_stop(early *e)
{
    release(e->p);
    e->p = NULL;
    e->off = true;
}

static void early_send(early *e, const weir_kafka_record *rec)
{
    weir_error ignore;
    if (!e->p) {
        bool in_kafka = false;
        e->p = calloc(1, sizeof *e->p);
        if (!e->p || !(e->p->topic = strdup(rec->topic)) ||
            open_producer(&e->p->t, e->b, rec->topic, &in_kafka, &ignore) ||
            in_kafka || weir__kafka_txn_begin(e->p->t, &ignore)) {
            early_stop(e);
            return;
        }
    }
    if (weir__kafka_txn_send(e->p->t, rec, &ignore))
        early_stop(e);
}

/* Stage the cursor's rows to the file w, and send each into a
 * transaction unless e->off. */
static int write_records(weir_kafka_stage_writer *w, weir_db_cursor *k,
                         early *e, weir_error *err)
{
    for (;;) {
        size_t n = 0;
        int rc = weir__cursor_next(k, &n, err);
        if (rc || !n)
            return rc;
        for (size_t i = 0; i < n; i++) {
            const weir_kafka_record *rec = NULL;
            rc = weir__kafka_stage_append(w, k, i, e->off ? NULL : &rec, err);
            if (rc)
                return rc;
            if (rec)
                early_send(e, rec);
        }
    }
}

/* The batch's columns as the sink's (checked as Spark's KafkaWriter does). */
static int batch_columns(weir_conn *conn, const weir_sink_batch *b,
                         const char *sql, weir_db_column **dc, size_t *n_dc,
                         int found[C_N], col_kind kinds[C_N], weir_arena *a,
                         weir_error *err)
{
    int rc = weir__conn_describe(conn, sql, dc, n_dc, a, err);
    weir_column *cols = NULL;
    if (!rc && *n_dc && !(cols = calloc(*n_dc, sizeof *cols)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < *n_dc; i++) {
        cols[i].name = (*dc)[i].name;
        cols[i].duck_type = (*dc)[i].type;
    }
    if (!rc)
        rc = find_columns(found, kinds, b->options, b->n_options, cols, *n_dc,
                          err);
    free(cols);
    return rc;
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err)
{
    *rows = 0;
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *dc = NULL;
    size_t n_dc = 0;
    int found[C_N];
    col_kind kinds[C_N];
    int rc = batch_columns(conn, b, sql, &dc, &n_dc, found, kinds, &a, err);
    if (!rc && b->local_topics) {
        rc = stage_local(conn, b, sql, dc, found, kinds, rows, err);
        weir__arena_free(&a);
        return rc;
    }
    weir_buf q = WEIR_BUF_INIT;
    if (!rc) {
        stage_sql(&q, sql, b->options, b->n_options, dc, found, kinds);
        if (q.failed)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir_db_cursor *k = NULL;
    if (!rc)
        rc = weir__conn_cursor(conn, weir__buf_cstr(&q), &k, err);
    char file[4400];
    staged_path(file, sizeof file, b);
    weir_kafka_stage_writer *w = NULL;
    if (!rc)
        rc = weir__kafka_stage_create(&w, file, err);
    early e = { b, pending == NULL, NULL };
    if (!rc)
        rc = write_records(w, k, &e, err);
    if (!rc)
        *rows = weir__kafka_stage_count(w);
    /* Durable before the checkpoint commits. */
    if (!rc)
        rc = weir__kafka_stage_finish(w, err);
    weir__kafka_stage_writer_free(w);
    weir__cursor_free(k);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    if (rc) {
        early_stop(&e);
        weir_error ignore;
        weir__sink_unlink(file, &ignore); /* the batch will not commit */
    } else if (e.p) {
        *pending = e.p;
    }
    weir__buf_free(&q);
    weir__arena_free(&a);
    return rc;
}

static int discard(const weir_sink_batch *b, weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    return weir__sink_unlink(file, err);
}

/* ---- publish ------------------------------------------------------------- */

/* Send the records of r (the first one, rec, read already) in a
 * transaction and commit it with the batch's marker. */
static int send_file(weir_kafka_txn *t, const weir_sink_batch *b,
                     weir_kafka_stage_reader *r, const weir_kafka_record *rec,
                     const char *marker_topic, weir_error *err)
{
    int rc = weir__kafka_txn_begin(t, err);
    while (!rc && rec) {
        rc = weir__kafka_txn_send(t, rec, err);
        if (!rc)
            rc = weir__kafka_stage_next(r, &rec, err);
    }
    if (!rc)
        rc = commit(t, b, marker_topic, err);
    return rc;
}

/* Publish the staged file: a producer of the sink's transactional.id
 * (fencing any earlier one, and aborting what it left open) sends its
 * records unless the marker says Kafka has the batch. *fenced: another
 * producer of the id fenced this one meanwhile. */
static int publish_file_once(const weir_sink_batch *b, const char *file,
                             bool *fenced, weir_error *err)
{
    *fenced = false;
    weir_kafka_stage_reader *r = NULL;
    int rc = weir__kafka_stage_open(&r, file, err);
    if (rc || !r)
        return rc; /* no file: published (and removed) before */
    const weir_kafka_record *rec = NULL;
    rc = weir__kafka_stage_next(r, &rec, err);
    /* The marker's topic: the first record's. */
    char *topic = NULL;
    if (!rc && rec && !(topic = strdup(rec->topic)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_kafka_txn *t = NULL;
    bool in_kafka = false;
    if (!rc && topic)
        rc = open_producer(&t, b, topic, &in_kafka, err);
    if (!rc && t && !in_kafka)
        rc = send_file(t, b, r, rec, topic, err);
    *fenced = rc && weir__kafka_txn_fenced(t);
    weir__kafka_txn_close(t);
    free(topic);
    weir__kafka_stage_reader_free(r);
    return rc;
}

/* A producer that another one of the same id fences while it publishes
 * (one that was starting as the update's own was fenced: its
 * initialisation can complete after ours) gives way to a new producer,
 * which fences that one in turn and reads the marker again: a few times,
 * then the error stands (two writers of one sink keep fencing each other). */
static int publish_file(const weir_sink_batch *b, const char *file,
                        weir_error *err)
{
    bool fenced = false;
    int rc = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        rc = publish_file_once(b, file, &fenced, err);
        if (!rc || !fenced)
            break;
    }
    if (!rc)
        weir__error_clear(err); /* an attempt fenced before this one */
    return rc;
}

static int publish(const weir_sink_batch *b, weir_sink_pending *p,
                   weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    /* The records are in p's open transaction: commit it. When that
     * fails, it is aborted (or fenced by publish_file's producer) and the
     * staged file is published as a recovery would. */
    weir_error ignore;
    bool committed = p && !commit(p->t, b, p->topic, &ignore);
    release(p);
    int rc = committed ? 0 : publish_file(b, file, err);
    if (!rc)
        rc = weir__sink_unlink(file, err);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    return rc;
}

const weir_sink_format weir__sink_kafka = {
    .name = "kafka",
    .validate = validate,
    .check_columns = check_columns,
    .stage = stage,
    .publish = publish,
    .release = release,
    .discard = discard,
    .probe = probe,
};
