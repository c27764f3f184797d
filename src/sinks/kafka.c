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
 * a DuckDB data chunk at a time (binary frames with a checksum each, see
 * MAGIC below; no batch is held whole in memory), fsyncs it, and the
 * engine commits the checkpoint. publish() sends the file's records in a transaction of a
 * producer whose transactional.id is derived from the storage's state id,
 * the sink and the flow; the transaction also commits the batch's marker
 * (generation × 2^32 + batch + 1) as an offset of partition 0 of the
 * batch's first topic in the consumer group of that id. Before sending,
 * init_transactions() fences and aborts what a killed publisher left
 * open, and a marker at or past the batch means Kafka has it already:
 * nothing is sent again. discard() removes the staged file.
 *
 * With local topics (weir_run_options.local_kafka: weir test), stage()
 * appends the batch to the storage's table of messages instead, in the
 * flow's transaction, and nothing is staged or published.
 */
#include "sinks/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "kafka/kafka.h"
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

/* The staged file's format: MAGIC, then one frame per record and a last
 * frame for the end. All numbers are little-endian. A record's frame:
 * u32 length of its body (below FRAME_END), the body, u32 CRC-32 of the
 * body. A body: i32 partition (-1 none, INT32_MIN a negative one of the
 * data), i64 timestamp in ms (-1 none), then topic, key, value and headers,
 * each an i32 length (-1 for NULL) and as many bytes. The headers are text,
 * "<hex name>:<'-' or '=' and hex value>,...". The end's frame: FRAME_END,
 * i64 record count, u32 CRC-32 of the count. A file without its end, with a
 * wrong checksum or a frame that does not parse is damaged. */
static const char MAGIC[8] = { 'W', 'E', 'I', 'R', 'K', 'F', 'K', '1' };
#define FRAME_END 0xFFFFFFFFu
#define BODY_FIXED (4 + 8 + 4 * 4)

/* CRC-32 (IEEE, zlib's) of p continuing from crc (0 to start). */
static uint32_t crc_add(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) { /* zlib counts in uInt */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        n -= k;
    }
    return crc;
}

static void le32(unsigned char *o, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *o, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        o[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The staging query: topic, partition, key, value, headers (text),
 * timestamp (ms) of each row of the batch; errors for a NULL topic or
 * header name, as Spark's. */
static void stage_sql(weir_buf *q, const char *sql, const weir_kvpair *options,
                      size_t n, const weir_db_column *cols, const int found[C_N],
                      const col_kind kinds[C_N])
{
    weir__buf_puts(q, "SELECT ");
    const char *topic = weir__sink_option(options, n, "topic");
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

/* The staged file, written through a buffer of its own with write(2)
 * (libweir never uses stdio's output functions). */
#define STAGE_BUF (1u << 20)
typedef struct stage_writer {
    int fd;
    unsigned char *buf;
    size_t len;
    uint32_t sum; /* of the frame being written */
    bool failed;
} stage_writer;

static void w_flush(stage_writer *w)
{
    size_t off = 0;
    while (!w->failed && off < w->len) {
        ssize_t n = write(w->fd, w->buf + off, w->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            w->failed = true;
        else
            off += (size_t)n;
    }
    w->len = 0;
}

/* Bytes to the file, without the frame's checksum. */
static void w_raw(stage_writer *w, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n && !w->failed) {
        if (w->len == STAGE_BUF)
            w_flush(w);
        size_t k = STAGE_BUF - w->len < n ? STAGE_BUF - w->len : n;
        memcpy(w->buf + w->len, c, k);
        w->len += k;
        c += k;
        n -= k;
    }
}

static void w_put(stage_writer *w, const void *p, size_t n)
{
    w->sum = crc_add(w->sum, p, n);
    w_raw(w, p, n);
}

static void w_field(stage_writer *w, const void *p, size_t n, bool present)
{
    unsigned char l[4];
    le32(l, present ? (uint32_t)n : FRAME_END);
    w_put(w, l, 4);
    if (present)
        w_put(w, p, n);
}

/* Write the cursor's rows to w; *rows counts them. */
static int write_records(stage_writer *w, weir_db_cursor *k, const char *file,
                         int64_t *rows, weir_error *err)
{
    int rc = 0;
    for (;;) {
        size_t n = 0;
        rc = weir__cursor_next(k, &n, err);
        if (rc || !n)
            return rc;
        for (size_t i = 0; i < n && !w->failed; i++) {
            const void *f[4];
            size_t len[4];
            bool has[4];
            has[0] = weir__cursor_bytes(k, 0, i, &f[0], &len[0]);
            has[1] = weir__cursor_bytes(k, 2, i, &f[1], &len[1]);
            has[2] = weir__cursor_bytes(k, 3, i, &f[2], &len[2]);
            has[3] = weir__cursor_bytes(k, 4, i, &f[3], &len[3]);
            int32_t part = -1;
            if (weir__cursor_i32(k, 1, i, &part) && part < 0)
                part = INT32_MIN; /* refused when sent */
            int64_t ts = -1;
            if (weir__cursor_i64(k, 5, i, &ts) && ts < 0)
                ts = 0;
            uint64_t body = BODY_FIXED;
            for (int j = 0; j < 4; j++) {
                if (has[j] && len[j] >= INT32_MAX)
                    return WEIR_ERR(err, WEIR_EINVAL, "KAFKA_SINK_WRITE_FAILED",
                                    "a record of the batch is too large for Kafka");
                body += has[j] ? len[j] : 0;
            }
            if (body >= FRAME_END)
                return WEIR_ERR(err, WEIR_EINVAL, "KAFKA_SINK_WRITE_FAILED",
                                "a record of the batch is too large for Kafka");
            unsigned char h[4 + 4 + 8];
            le32(h, (uint32_t)body);
            le32(h + 4, (uint32_t)part);
            le64(h + 8, (uint64_t)ts);
            w_raw(w, h, 4);
            w->sum = 0;
            w_put(w, h + 4, 12);
            for (int j = 0; j < 4; j++)
                w_field(w, f[j], len[j], has[j]);
            unsigned char c[4];
            le32(c, w->sum);
            w_raw(w, c, 4);
            (*rows)++;
        }
        if (w->failed)
            return WEIR_ERR(err, WEIR_EIO, NULL, "writing %s: %s", file,
                            strerror(errno));
    }
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
    const char *topic = weir__sink_option(b->options, b->n_options, "topic");
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

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    *rows = 0;
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
    stage_writer *w = NULL;
    if (!rc && !(w = calloc(1, sizeof *w)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc) {
        w->fd = -1;
        if (!(w->buf = malloc(STAGE_BUF)))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (!rc) {
        w->fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (w->fd < 0)
            rc = WEIR_ERR(err, WEIR_EIO, NULL, "creating %s: %s", file,
                          strerror(errno));
    }
    if (!rc) {
        w_raw(w, MAGIC, sizeof MAGIC);
        rc = write_records(w, k, file, rows, err);
    }
    if (!rc) {
        unsigned char end[4 + 8 + 4];
        le32(end, FRAME_END);
        le64(end + 4, (uint64_t)*rows);
        le32(end + 12, crc_add(0, end + 4, 8));
        w_raw(w, end, sizeof end);
    }
    if (w && w->fd >= 0) {
        w_flush(w);
        if (close(w->fd) != 0)
            w->failed = true;
    }
    if (!rc && w->failed)
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "writing %s: %s", file, strerror(errno));
    if (w)
        free(w->buf);
    free(w);
    weir__cursor_free(k);
    /* Durable before the checkpoint commits. */
    if (!rc)
        rc = weir__sink_sync_file(file, err);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    if (rc) {
        weir_error ignore;
        weir__sink_unlink(file, &ignore); /* the batch will not commit */
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

/* Reading a staged file a record at a time. */
typedef struct stage_reader {
    FILE *f;
    const char *file;
    unsigned char *body; /* the current record's, NUL after it */
    size_t cap;
    char *topic; /* the current record's, NUL-terminated */
    size_t cap_topic;
    int64_t n; /* records read */
    record_buf rb;
} stage_reader;

static int damaged(const stage_reader *r, weir_error *err)
{
    return WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                    "staged batch %s: record %lld is damaged", r->file,
                    (long long)r->n + 1);
}

static bool r_read(stage_reader *r, void *p, size_t n)
{
    return fread(p, 1, n, r->f) == n;
}

/* A field of the body at *at: *p NULL for NULL. */
static bool r_field(const unsigned char *body, size_t len, size_t *at,
                    const void **p, size_t *n)
{
    if (len - *at < 4)
        return false;
    uint32_t l = get32(body + *at);
    *at += 4;
    *p = NULL;
    *n = 0;
    if (l == FRAME_END)
        return true;
    if (l > len - *at)
        return false;
    *p = body + *at;
    *n = l;
    *at += l;
    return true;
}

/* The next record into r->rb.rec; *got false at the end. */
static int read_record(stage_reader *r, bool *got, weir_error *err)
{
    *got = false;
    unsigned char h[4];
    if (!r_read(r, h, 4))
        return ferror(r->f) ? WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s",
                                       r->file, strerror(errno))
                            : damaged(r, err);
    uint32_t len = get32(h);
    if (len == FRAME_END) {
        unsigned char end[12];
        if (!r_read(r, end, sizeof end) ||
            crc_add(0, end, 8) != get32(end + 8) ||
            (int64_t)get64(end) != r->n || fgetc(r->f) != EOF)
            return damaged(r, err);
        return 0;
    }
    if (len < BODY_FIXED)
        return damaged(r, err);
    if ((size_t)len + 1 > r->cap) {
        unsigned char *g = realloc(r->body, (size_t)len + 1);
        if (!g)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        r->body = g;
        r->cap = (size_t)len + 1;
    }
    unsigned char c[4];
    if (!r_read(r, r->body, len) || !r_read(r, c, 4) ||
        crc_add(0, r->body, len) != get32(c))
        return damaged(r, err);
    r->body[len] = '\0';
    weir_kafka_record *rec = &r->rb.rec;
    memset(rec, 0, sizeof *rec);
    rec->partition = (int32_t)get32(r->body);
    rec->timestamp_ms = (int64_t)get64(r->body + 4);
    size_t at = 12, topic_len = 0, headers_len = 0;
    const void *topic, *headers;
    if (!r_field(r->body, len, &at, &topic, &topic_len) || !topic ||
        !r_field(r->body, len, &at, &rec->key, &rec->key_len) ||
        !r_field(r->body, len, &at, &rec->value, &rec->value_len) ||
        !r_field(r->body, len, &at, &headers, &headers_len) || at != len)
        return damaged(r, err);
    if (topic_len + 1 > r->cap_topic) {
        char *g = realloc(r->topic, topic_len + 1);
        if (!g)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        r->topic = g;
        r->cap_topic = topic_len + 1;
    }
    memcpy(r->topic, topic, topic_len);
    r->topic[topic_len] = '\0';
    rec->topic = r->topic;
    /* The headers are the body's last field: the NUL after the body ends
     * their text. */
    if (headers && !headers_field(&r->rb, (char *)headers))
        return damaged(r, err);
    r->n++;
    *got = true;
    return 0;
}

static void reader_free(stage_reader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->body);
    free(r->topic);
    free(r->rb.headers);
}

static int64_t marker_of(const weir_sink_batch *b)
{
    return b->generation * ((int64_t)1 << 32) + b->batch_id + 1;
}

/* Send the records of r (the first one read already) and commit. */
static int send_all(weir_kafka_txn *t, const weir_sink_batch *b,
                    stage_reader *r, const char *marker_topic, weir_error *err)
{
    int rc = weir__kafka_txn_begin(t, err);
    bool got = true;
    while (!rc && got) {
        rc = weir__kafka_txn_send(t, &r->rb.rec, err);
        if (!rc)
            rc = read_record(r, &got, err);
    }
    if (!rc) {
        char note[512];
        snprintf(note, sizeof note,
                 "weir sink %s, flow %s: generation %lld, batch %lld, update %s",
                 b->sink, b->flow, (long long)b->generation,
                 (long long)b->batch_id, b->update_id ? b->update_id : "");
        rc = weir__kafka_txn_commit(t, marker_topic, marker_of(b), note, err);
    }
    return rc;
}

static int publish(const weir_sink_batch *b, weir_error *err)
{
    char file[4400];
    staged_path(file, sizeof file, b);
    stage_reader *r = calloc(1, sizeof *r);
    if (!r)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    r->file = file;
    r->f = fopen(file, "rb");
    if (!r->f) {
        int e = errno;
        free(r);
        if (e == ENOENT)
            return 0; /* published (and removed) before */
        return WEIR_ERR(err, WEIR_EIO, NULL, "opening %s: %s", file, strerror(e));
    }
    setvbuf(r->f, NULL, _IOFBF, 1 << 20);
    char magic[sizeof MAGIC];
    bool got = false;
    int rc = 0;
    if (!r_read(r, magic, sizeof magic) || memcmp(magic, MAGIC, sizeof MAGIC))
        rc = ferror(r->f) ? WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s", file,
                                     strerror(errno))
                          : WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                                     "staged batch %s is damaged (not a staged "
                                     "Kafka batch)",
                                     file);
    if (!rc)
        rc = read_record(r, &got, err);
    /* The marker's topic: the first record's. */
    char *topic = NULL;
    if (!rc && got && !(topic = strdup(r->rb.rec.topic)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_kafka_txn *t = NULL;
    if (!rc && topic) {
        char id[128];
        txn_id(id, sizeof id, b);
        rc = weir__kafka_txn_open(&t, b->options, b->n_options, id, err);
        int64_t marker = -1;
        if (!rc)
            rc = weir__kafka_txn_marker(t, topic, &marker, err);
        if (!rc && marker < marker_of(b))
            rc = send_all(t, b, r, topic, err);
    }
    weir__kafka_txn_close(t);
    free(topic);
    reader_free(r);
    free(r);
    if (!rc)
        rc = weir__sink_unlink(file, err);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    return rc;
}

const weir_sink_format weir__sink_kafka = { "kafka",  validate, check_columns,
                                            stage,    publish,  discard,
                                            probe };
