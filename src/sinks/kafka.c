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
 * stage() writes the batch's records to <stage_dir>/g<gen>-b<batch>.kafka
 * with DuckDB's COPY (one line per record, fields hex-encoded, so no
 * record is held in memory), fsyncs it, and the engine commits the
 * checkpoint. publish() sends the file's records in a transaction of a
 * producer whose transactional.id is derived from the storage's state id,
 * the sink and the flow; the transaction also commits the batch's marker
 * (generation × 2^32 + batch + 1) as an offset of partition 0 of the
 * batch's first topic in the consumer group of that id. Before sending,
 * init_transactions() fences and aborts what a killed publisher left
 * open, and a marker at or past the batch means Kafka has it already:
 * nothing is sent again. discard() removes the staged file.
 */
#include "sinks/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kafka/kafka.h"
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

static int validate(const weir_kvpair *options, size_t n, weir_error *err)
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

static int probe(const weir_kvpair *options, size_t n, weir_error *err)
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
                        const weir_kvpair *options, size_t n,
                        const weir_column *cols, size_t n_cols, weir_error *err)
{
    bool topic_option = weir__sink_option(options, n, "topic") != NULL;
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

static int check_columns(const weir_kvpair *options, size_t n,
                         const weir_column *columns, size_t n_columns,
                         weir_error *err)
{
    int found[C_N];
    col_kind kinds[C_N];
    return find_columns(found, kinds, options, n, columns, n_columns, err);
}

/* ---- stage --------------------------------------------------------------- */

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

/* NULL: '-'; else '=' and the bytes in hex. */
static void put_bytes(weir_buf *q, const weir_db_column *cols, int i)
{
    if (i < 0) {
        weir__buf_puts(q, "'-'");
        return;
    }
    weir__buf_puts(q, "CASE WHEN ");
    put_col(q, cols, i);
    weir__buf_puts(q, " IS NULL THEN '-' ELSE '=' || hex(");
    put_col(q, cols, i);
    weir__buf_puts(q, ") END");
}

/* One line per record, tab-separated: topic, partition, key, value,
 * headers (name:value,...), timestamp in ms; '-' is NULL. Every field is
 * hex digits, digits and '=:,-', so COPY never quotes one. */
static void copy_sql(weir_buf *q, const char *sql, const char *file,
                     const weir_kvpair *options, size_t n,
                     const weir_db_column *cols, const int found[C_N],
                     const col_kind kinds[C_N])
{
    weir__buf_puts(q, "COPY (SELECT ");
    const char *topic = weir__sink_option(options, n, "topic");
    if (topic) {
        weir__buf_puts(q, "'=' || hex(");
        weir__buf_put_sql_string(q, topic);
        weir__buf_puts(q, ")");
    } else {
        weir__buf_puts(q, "CASE WHEN ");
        put_col(q, cols, found[C_TOPIC]);
        weir__buf_puts(q, " IS NULL THEN error('[INVALID_KAFKA_SINK_SCHEMA] null "
                          "topic present in the data. Use the topic option for "
                          "setting a default topic.') ELSE '=' || hex(");
        put_col(q, cols, found[C_TOPIC]);
        weir__buf_puts(q, ") END");
    }
    weir__buf_puts(q, ", ");
    if (found[C_PARTITION] >= 0) {
        weir__buf_puts(q, "coalesce(CAST(");
        put_col(q, cols, found[C_PARTITION]);
        weir__buf_puts(q, " AS VARCHAR), '-')");
    } else {
        weir__buf_puts(q, "'-'");
    }
    weir__buf_puts(q, ", ");
    put_bytes(q, cols, found[C_KEY]);
    weir__buf_puts(q, ", ");
    put_bytes(q, cols, found[C_VALUE]);
    weir__buf_puts(q, ", ");
    if (found[C_HEADERS] >= 0) {
        weir__buf_puts(q, "CASE WHEN coalesce(len(");
        put_col(q, cols, found[C_HEADERS]);
        weir__buf_puts(q, "), 0) = 0 THEN '-' ELSE array_to_string(list_transform(");
        put_col(q, cols, found[C_HEADERS]);
        weir__buf_puts(q, ", lambda h: CASE WHEN struct_extract(h, 'key') IS NULL "
                          "THEN error('[INVALID_KAFKA_SINK_SCHEMA] a header of the "
                          "data has a null key') ELSE hex(struct_extract(h, 'key')) "
                          "END || ':' || CASE WHEN struct_extract(h, 'value') IS "
                          "NULL THEN '-' ELSE '=' || hex(struct_extract(h, "
                          "'value')) END), ',') END");
    } else {
        weir__buf_puts(q, "'-'");
    }
    weir__buf_puts(q, ", ");
    if (found[C_TIMESTAMP] >= 0) {
        weir__buf_puts(q, "coalesce(CAST(");
        if (kinds[C_TIMESTAMP] == K_DOUBLE) {
            weir__buf_puts(q, "CAST(round(");
            put_col(q, cols, found[C_TIMESTAMP]);
            weir__buf_puts(q, " * 1000) AS BIGINT)");
        } else {
            weir__buf_puts(q, "epoch_ms(");
            put_col(q, cols, found[C_TIMESTAMP]);
            weir__buf_puts(q, ")");
        }
        weir__buf_puts(q, " AS VARCHAR), '-')");
    } else {
        weir__buf_puts(q, "'-'");
    }
    weir__buf_printf(q, " FROM (%s) AS weir_batch) TO ", sql);
    weir__buf_put_sql_string(q, file);
    weir__buf_puts(q, " (FORMAT csv, HEADER false, DELIMITER '\t')");
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *dc = NULL;
    size_t n_dc = 0;
    int rc = weir__conn_describe(conn, sql, &dc, &n_dc, &a, err);
    weir_column *cols = NULL;
    if (!rc && n_dc) {
        cols = calloc(n_dc, sizeof *cols);
        if (!cols)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        for (size_t i = 0; cols && i < n_dc; i++) {
            cols[i].name = dc[i].name;
            cols[i].duck_type = dc[i].type;
        }
    }
    int found[C_N];
    col_kind kinds[C_N];
    if (!rc)
        rc = find_columns(found, kinds, b->options, b->n_options, cols, n_dc, err);
    free(cols);
    weir_buf q = WEIR_BUF_INIT;
    if (!rc) {
        copy_sql(&q, sql, file, b->options, b->n_options, dc, found, kinds);
        if (q.failed)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir_rows *r = NULL;
    if (!rc)
        rc = weir__conn_query(conn, weir__buf_cstr(&q), &r, err);
    if (!rc) {
        const char *v = r->n_rows && r->n_cols ? weir__rows_get(r, 0, 0) : NULL;
        *rows = v ? strtoll(v, NULL, 10) : r->rows_changed;
        /* Durable before the checkpoint commits. */
        rc = weir__sink_sync_file(file, err);
    }
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    if (rc) {
        weir_error ignore;
        weir__sink_unlink(file, &ignore); /* the batch will not commit */
    }
    weir__rows_free(r);
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

/* Decode hex digits in place; *len receives the byte count. */
static bool unhex(char *s, size_t n, size_t *len)
{
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2) {
        int hi = weir__str_hex_value(s[i]), lo = weir__str_hex_value(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        s[i / 2] = (char)(hi * 16 + lo);
    }
    *len = n / 2;
    return true;
}

/* A '-' (NULL) or '=<hex>' field: *out NULL for NULL. */
static bool bytes_field(char *f, const void **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!strcmp(f, "-"))
        return true;
    if (f[0] != '=' || !unhex(f + 1, strlen(f + 1), len))
        return false;
    *out = f + 1;
    return true;
}

typedef struct record_buf {
    weir_kafka_record rec;
    weir_kafka_header *headers;
    size_t cap_headers;
} record_buf;

static bool headers_field(record_buf *rb, char *f)
{
    rb->rec.n_headers = 0;
    if (!strcmp(f, "-"))
        return true;
    for (char *h = f; h;) {
        char *next = strchr(h, ',');
        if (next)
            *next++ = '\0';
        char *colon = strchr(h, ':');
        if (!colon)
            return false;
        *colon = '\0';
        size_t name_len;
        if (!unhex(h, strlen(h), &name_len))
            return false;
        h[name_len] = '\0';
        if (rb->rec.n_headers == rb->cap_headers) {
            size_t cap = rb->cap_headers ? rb->cap_headers * 2 : 8;
            weir_kafka_header *g = realloc(rb->headers, cap * sizeof *g);
            if (!g)
                return false;
            rb->headers = g;
            rb->cap_headers = cap;
        }
        weir_kafka_header *hd = &rb->headers[rb->rec.n_headers++];
        hd->key = h;
        if (!bytes_field(colon + 1, &hd->value, &hd->value_len))
            return false;
        h = next;
    }
    rb->rec.headers = rb->headers;
    return true;
}

/* Parse a staged line (its newline removed) in place. */
static bool parse_line(record_buf *rb, char *line)
{
    char *f[6];
    size_t n = 0;
    for (char *p = line; n < 6;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 6)
        return false;
    weir_kafka_record *r = &rb->rec;
    memset(r, 0, sizeof *r);
    size_t topic_len;
    if (f[0][0] != '=' || !unhex(f[0] + 1, strlen(f[0] + 1), &topic_len))
        return false;
    f[0][1 + topic_len] = '\0';
    r->topic = f[0] + 1;
    char *end;
    r->partition = -1;
    if (strcmp(f[1], "-") != 0) {
        long p = strtol(f[1], &end, 10);
        if (*end || p < INT32_MIN || p > INT32_MAX)
            return false;
        /* A negative partition of the data is refused when sent (-1 is
         * the producer's "any partition"). */
        r->partition = p < 0 ? INT32_MIN : (int32_t)p;
    }
    r->timestamp_ms = -1;
    if (strcmp(f[5], "-") != 0) {
        long long ts = strtoll(f[5], &end, 10);
        if (*end)
            return false;
        r->timestamp_ms = ts < 0 ? 0 : ts;
    }
    return bytes_field(f[2], &r->key, &r->key_len) &&
           bytes_field(f[3], &r->value, &r->value_len) && headers_field(rb, f[4]);
}

static int64_t marker_of(const weir_sink_batch *b)
{
    return b->generation * ((int64_t)1 << 32) + b->batch_id + 1;
}

/* Send the records of file (whose first record is in line) and commit. */
static int send_all(weir_kafka_txn *t, const weir_sink_batch *b, FILE *f,
                    const char *file, char **line, size_t *cap, ssize_t len,
                    const char *marker_topic, weir_error *err)
{
    record_buf rb;
    memset(&rb, 0, sizeof rb);
    int rc = weir__kafka_txn_begin(t, err);
    int64_t lineno = 1;
    while (!rc && len >= 0) {
        if (len > 0 && (*line)[len - 1] == '\n')
            (*line)[--len] = '\0';
        if (!parse_line(&rb, *line))
            rc = WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                          "staged batch %s: record %lld is damaged", file,
                          (long long)lineno);
        if (!rc)
            rc = weir__kafka_txn_send(t, &rb.rec, err);
        if (!rc) {
            len = getline(line, cap, f);
            lineno++;
        }
    }
    if (!rc && ferror(f))
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s", file, strerror(errno));
    if (!rc) {
        char note[512];
        snprintf(note, sizeof note,
                 "weir sink %s, flow %s: generation %lld, batch %lld, update %s",
                 b->sink, b->flow, (long long)b->generation,
                 (long long)b->batch_id, b->update_id ? b->update_id : "");
        rc = weir__kafka_txn_commit(t, marker_topic, marker_of(b), note, err);
    }
    free(rb.headers);
    return rc;
}

static int publish(const weir_sink_batch *b, weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    FILE *f = fopen(file, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0; /* published (and removed) before */
        return WEIR_ERR(err, WEIR_EIO, NULL, "opening %s: %s", file, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    char *topic = NULL;
    int rc = len < 0 && ferror(f) ? WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s",
                                             file, strerror(errno))
                                  : 0;
    if (len > 0) {
        /* The marker's topic: the first record's. */
        char *copy = strdup(line);
        record_buf rb;
        memset(&rb, 0, sizeof rb);
        if (!copy)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        else if (copy[len - 1] == '\n')
            copy[len - 1] = '\0';
        if (!rc && !parse_line(&rb, copy))
            rc = WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                          "staged batch %s: record 1 is damaged", file);
        if (!rc && !(topic = strdup(rb.rec.topic)))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        free(rb.headers);
        free(copy);
    }
    weir_kafka_txn *t = NULL;
    if (!rc && topic) {
        char id[128];
        txn_id(id, sizeof id, b);
        rc = weir__kafka_txn_open(&t, b->options, b->n_options, id, err);
        int64_t marker = -1;
        if (!rc)
            rc = weir__kafka_txn_marker(t, topic, &marker, err);
        if (!rc && marker < marker_of(b))
            rc = send_all(t, b, f, file, &line, &cap, len, topic, err);
    }
    weir__kafka_txn_close(t);
    free(topic);
    free(line);
    fclose(f);
    if (!rc)
        rc = weir__sink_unlink(file, err);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    return rc;
}

const weir_sink_format weir__sink_kafka = { "kafka",  validate, check_columns,
                                            stage,    publish,  discard,
                                            probe };
