/*
 * Kafka topics in tests: a topic fixture's rows appended to the test
 * storage's local topics (weir_kafka.messages, which the Kafka source
 * reads and the Kafka sink appends to when a run has
 * weir_run_options.local_kafka), and the relation `topic:` expectations
 * read. The rows come inline, from a CSV or JSON file or from a query;
 * each gives some of a message's columns, the fixture gives the topic,
 * and offsets follow the last one of each partition, in row order, as a
 * producer's messages would.
 */
#include "testing/testing.h"

#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/str.h"

const char *const weir__topic_columns[] = { "key",           "value",
                                            "partition",     "timestamp",
                                            "timestampType", "headers",
                                            NULL };

enum { T_KEY, T_VALUE, T_PARTITION, T_TIMESTAMP, T_TIMESTAMP_TYPE, T_HEADERS,
       T_N };

#define TOPICS "weir_kafka.messages"
#define HEADERS_TYPE "ARRAY<STRUCT<key: STRING, value: BINARY>>"

static void put_string(weir_buf *b, const char *s)
{
    weir_tvalue v = { WEIR_TV_STRING, s };
    weir__tvalue_put_sql(b, &v);
}

void weir__topic_relation(weir_buf *b, const char *topic)
{
    weir__buf_puts(b, "(SELECT CAST(key AS STRING) AS key, CAST(value AS "
                      "STRING) AS value, topic, `partition`, `offset`, "
                      "timestamp, timestampType, headers FROM " TOPICS
                      " WHERE topic = ");
    put_string(b, topic);
    weir__buf_puts(b, " ORDER BY `partition`, `offset`)");
}

/* The fixture's rows as text (NULL for SQL NULL), whatever their source. */
typedef struct topic_rows {
    size_t n_rows, n_cols;
    const char *const *names;
    int col[T_N]; /* the source column of each message column, -1 none */
    const weir_trows *inline_rows;
    const weir_result *res;
} topic_rows;

static const char *cell(const topic_rows *r, size_t row, int which)
{
    int c = r->col[which];
    if (c < 0)
        return NULL;
    return r->inline_rows
               ? r->inline_rows->cells[row * r->n_cols + (size_t)c].text
               : weir_result_value(r->res, (size_t)c, row);
}

/* A string as Kafka bytes: its UTF-8 encoding. */
static void put_bytes(weir_buf *b, const char *s)
{
    if (!s) {
        weir__buf_puts(b, "CAST(NULL AS BINARY)");
        return;
    }
    weir__buf_puts(b, "encode(");
    put_string(b, s);
    weir__buf_puts(b, ", 'UTF-8')");
}

/* Headers given as a JSON object of names and string (or null) values. */
static int put_headers(weir_buf *b, const char *text, const char *topic,
                       size_t row, weir_error *err)
{
    if (!text) {
        weir__buf_puts(b, "CAST(NULL AS " HEADERS_TYPE ")");
        return 0;
    }
    weir_arena a = WEIR_ARENA_INIT;
    weir_json *j = NULL;
    weir_error ignore;
    int rc = weir__json_parse(&j, &a, text, strlen(text), &ignore);
    bool ok = !rc && j->type == WEIR_JSON_OBJECT;
    for (size_t i = 0; ok && i < j->len; i++)
        ok = j->items[i]->type == WEIR_JSON_STRING ||
             j->items[i]->type == WEIR_JSON_NULL;
    if (!ok) {
        weir__arena_free(&a);
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "fixture topic %s, row %zu: `headers` should be a "
                        "JSON object of header names and string values, "
                        "e.g. {\"source\": \"web\"}; got %s",
                        topic, row + 1, text);
    }
    if (j->len == 0)
        weir__buf_puts(b, "CAST(NULL AS " HEADERS_TYPE ")");
    else
        weir__buf_puts(b, "array(");
    for (size_t i = 0; i < j->len; i++) {
        weir__buf_puts(b, i ? ", named_struct('key', " : "named_struct('key', ");
        put_string(b, j->keys[i]);
        weir__buf_puts(b, ", 'value', ");
        put_bytes(b, j->items[i]->type == WEIR_JSON_STRING ? j->items[i]->text
                                                           : NULL);
        weir__buf_putc(b, ')');
    }
    if (j->len)
        weir__buf_putc(b, ')');
    weir__arena_free(&a);
    return 0;
}

/* A whole number for `partition` or `timestampType`, else an error. */
static int want_int(const char *text, const char *col, const char *topic,
                    size_t row, long long min, long long *out, weir_error *err)
{
    char *end = NULL;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (text && (end == text || *end || v < min || v > 2147483647LL))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "fixture topic %s, row %zu: `%s` should be a whole "
                        "number from %lld, got %s",
                        topic, row + 1, col, min, text);
    *out = v;
    return 0;
}

/* The next offset of each partition the fixture writes: after the last
 * one the table holds (res: partition, max(offset) of the topic). */
#define MAX_PARTITIONS 64
typedef struct next_offsets {
    long long partition[MAX_PARTITIONS], next[MAX_PARTITIONS];
    size_t n;
    weir_result *res;
} next_offsets;

/* The offset of the partition's next message; -1 past MAX_PARTITIONS. */
static long long take_offset(next_offsets *o, long long partition)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->partition[i] == partition)
            return o->next[i]++;
    if (o->n == MAX_PARTITIONS)
        return -1;
    const weir_result *r = o->res;
    long long next = 0;
    for (size_t i = 0; r && i < weir_result_row_count(r); i++) {
        const char *p = weir_result_value(r, 0, i);
        if (p && atoll(p) == partition)
            next = atoll(weir_result_value(r, 1, i)) + 1;
    }
    o->partition[o->n] = partition;
    o->next[o->n++] = next + 1;
    return next;
}

static int put_row(weir_buf *q, const topic_rows *r, size_t i,
                   const char *topic, next_offsets *o, weir_error *err)
{
    long long partition = 0, type = 0;
    int rc = want_int(cell(r, i, T_PARTITION), "partition", topic, i, 0,
                      &partition, err);
    if (!rc)
        rc = want_int(cell(r, i, T_TIMESTAMP_TYPE), "timestampType", topic, i,
                      0, &type, err);
    long long offset = rc ? 0 : take_offset(o, partition);
    if (!rc && offset < 0)
        rc = WEIR_ERR(err, WEIR_EINVAL, NULL,
                      "fixture topic %s: at most %d partitions per fixture",
                      topic, MAX_PARTITIONS);
    if (rc)
        return rc;
    weir__buf_puts(q, i ? ", (" : " VALUES (");
    put_bytes(q, cell(r, i, T_KEY));
    weir__buf_puts(q, ", ");
    put_bytes(q, cell(r, i, T_VALUE));
    weir__buf_puts(q, ", ");
    put_string(q, topic);
    weir__buf_printf(q, ", %lld, %lld, ", partition, offset);
    const char *ts = cell(r, i, T_TIMESTAMP);
    if (ts) {
        weir__buf_puts(q, "CAST(");
        put_string(q, ts);
        weir__buf_puts(q, " AS TIMESTAMP)");
    } else {
        weir__buf_puts(q, "current_timestamp()");
    }
    weir__buf_printf(q, ", %lld, ", type);
    rc = put_headers(q, cell(r, i, T_HEADERS), topic, i, err);
    weir__buf_putc(q, ')');
    return rc;
}

/* Which source column gives each message column; an unknown one is an
 * error (inline rows were checked with their definition). */
static int map_columns(topic_rows *r, const char *topic, weir_error *err)
{
    for (int k = 0; k < T_N; k++)
        r->col[k] = -1;
    for (size_t c = 0; c < r->n_cols; c++) {
        const char *name = r->inline_rows ? r->inline_rows->cols[c]
                                          : weir_result_column_name(r->res, c);
        int k = 0;
        while (k < T_N && !weir__str_ieq(weir__topic_columns[k], name))
            k++;
        if (k == T_N)
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "fixture topic %s: `%s` is not a column of a "
                            "Kafka message (key, value, partition, timestamp, "
                            "timestampType, headers)",
                            topic, name);
        r->col[k] = (int)c;
    }
    return 0;
}

static int query(weir_pipeline *p, const char *sql, weir_result **out,
                 weir_error *err)
{
    weir_result *res = NULL;
    int rc = weir_pipeline_query(p, sql, &res, err);
    if (out)
        *out = res;
    else
        weir_result_free(res);
    return rc;
}

int weir__fixture_topic(weir_pipeline *p, const weir_fixture *f,
                        weir_error *err)
{
    topic_rows r;
    memset(&r, 0, sizeof r);
    weir_result *src = NULL;
    int rc = 0;
    if (f->source == WEIR_FSRC_ROWS) {
        r.inline_rows = &f->rows;
        r.n_rows = f->rows.n_rows;
        r.n_cols = f->rows.n_cols;
    } else {
        weir_buf q = WEIR_BUF_INIT;
        weir__fixture_source_query(&q, f);
        rc = query(p, weir__buf_cstr(&q), &src, err);
        weir__buf_free(&q);
        r.res = src;
        r.n_rows = src ? weir_result_row_count(src) : 0;
        r.n_cols = src ? weir_result_column_count(src) : 0;
    }
    if (!rc)
        rc = map_columns(&r, f->target, err);
    /* The same table as the engine's (store/topics.c), in Spark's types. */
    if (!rc)
        rc = query(p, "CREATE DATABASE IF NOT EXISTS weir_kafka; CREATE TABLE "
                      "IF NOT EXISTS " TOPICS " (key BINARY, value BINARY, "
                      "topic STRING, `partition` INT, `offset` BIGINT, "
                      "timestamp TIMESTAMP, timestampType INT, headers "
                      HEADERS_TYPE ")",
                   NULL, err);
    next_offsets o;
    memset(&o, 0, sizeof o);
    weir_buf q = WEIR_BUF_INIT;
    if (!rc && r.n_rows) {
        weir__buf_puts(&q, "SELECT `partition`, max(`offset`) FROM " TOPICS
                           " WHERE topic = ");
        put_string(&q, f->target);
        weir__buf_puts(&q, " GROUP BY `partition`");
        rc = query(p, weir__buf_cstr(&q), &o.res, err);
        weir__buf_free(&q);
    }
    if (!rc && r.n_rows) {
        weir__buf_puts(&q, "INSERT INTO " TOPICS);
        for (size_t i = 0; !rc && i < r.n_rows; i++)
            rc = put_row(&q, &r, i, f->target, &o, err);
        if (!rc)
            rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                          : query(p, weir__buf_cstr(&q), NULL, err);
    }
    if (rc && !strstr(err->message, "fixture topic"))
        weir__error_prefix(err, "fixture topic %s: ", f->target);
    weir__buf_free(&q);
    weir_result_free(o.res);
    weir_result_free(src);
    return rc;
}
