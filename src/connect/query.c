/*
 * Interactive queries in serving mode (`weir serve --spec PATH`): the
 * DataFrames and spark.sql() statements of a PySpark session run against
 * the served project's catalog, through one weir_pipeline loaded from its
 * spec (the same catalog `weir query` sees, event_log() included).
 *
 * The pipeline opens the project's storage on its first query and keeps it
 * open between queries; a run of the same storage needs it, so serve.c
 * releases it before every run (the next query opens it again). Queries
 * are serialised (weir's pipeline-serial rule); a query while an update
 * holds the storage fails with weir's busy error. A query stops, wherever
 * it is, when its client goes away, Interrupt names it or the server
 * shuts down (the caller says, weir_pipeline_set_query_cancel asks), so a
 * dead client's query does not hold the others back.
 *
 * Owns: the query pipeline.
 */
#include "connect/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connect/grpc.h"
#include "util/buf.h"
#include "util/str.h"

struct weir__cquery {
    weir_session *session;
    char *spec;              /* NULL: queries are refused */
    const weir_load_options *load; /* borrowed; may be NULL */
    weir_pipeline *pipeline; /* loaded on first use */
    /* The session time zone the pipeline's queries have now (the last
     * one applied; NULL: not known, apply it again). */
    char *zone;
    pthread_mutex_t lock;
};

weir__cquery *weir__cquery_new(weir_session *session, const char *spec_path,
                               const weir_load_options *load)
{
    weir__cquery *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->session = session;
    q->load = load;
    if (spec_path && !(q->spec = strdup(spec_path))) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    return q;
}

void weir__cquery_release(weir__cquery *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    weir_pipeline_drop(q->pipeline);
    q->pipeline = NULL;
    free(q->zone);
    q->zone = NULL;
    pthread_mutex_unlock(&q->lock);
}

bool weir__cquery_wait_idle(weir__cquery *q, const struct timespec *until)
{
    if (!q || pthread_mutex_timedlock(&q->lock, until) != 0)
        return !q;
    pthread_mutex_unlock(&q->lock);
    return true;
}

void weir__cquery_free(weir__cquery *q)
{
    if (!q)
        return;
    weir_pipeline_drop(q->pipeline);
    pthread_mutex_destroy(&q->lock);
    free(q->zone);
    free(q->spec);
    free(q);
}

/* A weir error as the client's error: its class (weir's SQL errors carry
 * Spark's, e.g. TABLE_OR_VIEW_NOT_FOUND) and message. */
static int from_weir(weir__cstatus *st, int rc, const weir_error *e)
{
    int code = rc == WEIR_EBUSY ? WEIR_GRPC_FAILED_PRECONDITION
               : rc == WEIR_ENOMEM ? WEIR_GRPC_RESOURCE_EXHAUSTED
                                   : WEIR_GRPC_INTERNAL;
    const char *cls = e->error_class[0] ? e->error_class
                      : rc == WEIR_EBUSY ? "PIPELINE_STORAGE_BUSY"
                                         : "INTERNAL_ERROR";
    int r = weir__cstatus_set(st, code, cls, rc == WEIR_ECANCELED ? "HY008" : "",
                              "%s", e->message[0] ? e->message : weir_strerror(rc));
    if (rc == WEIR_ESQL && weir__str_istarts(cls, "PARSE_"))
        snprintf(st->exception, sizeof st->exception, "%s",
                 "org.apache.spark.sql.catalyst.parser.ParseException");
    return r;
}

/* The query pipeline, loaded on first use; NULL with *st filled. Called
 * with q->lock held. */
static weir_pipeline *pipeline(weir__cquery *q, weir__cstatus *st)
{
    if (q->pipeline)
        return q->pipeline;
    if (!q->spec) {
        weir__cstatus_set(st, WEIR_GRPC_FAILED_PRECONDITION,
                          "UNSUPPORTED_FEATURE.CONNECT_QUERY", "0A000",
                          "This weir server has no project to query: start "
                          "it with `weir serve --spec spark-pipeline.yml` to "
                          "query that project's tables.");
        return NULL;
    }
    weir_error e;
    memset(&e, 0, sizeof e);
    weir_pipeline *p = NULL;
    int rc = weir_pipeline_load_with(&p, q->session, q->spec, q->load, &e);
    if (rc) {
        weir_pipeline_drop(p);
        from_weir(st, rc, &e);
        return NULL;
    }
    q->pipeline = p;
    return p;
}

static int oom(weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                             "out of memory");
}

/* Why a query may have to stop (the caller's client gone): asked from
 * the query's watcher thread (weir_pipeline_set_query_cancel). */
typedef struct stop_fn {
    bool (*fn)(void *ctx);
    void *ctx;
} stop_fn;

/* Run sql on the query pipeline (loaded on first use, under the lock) and
 * hand its result to use(): an Arrow stream when arrow is set (released
 * afterwards), else the text result (freed afterwards). The query stops
 * when stop says so (stop or stop->fn may be NULL: it does not). */
typedef int (*use_result)(void *ctx, struct ArrowArrayStream *s,
                          const weir_result *r, weir__cstatus *st);

/* The client session's spark.sql.session.timeZone (zone; NULL: the
 * project's configuration, else UTC) for the queries after this one, as
 * `SET TIME ZONE` sets it: the query pipeline is shared by every session,
 * so each query brings its session's. Under q->lock. */
static int apply_zone(weir__cquery *q, weir_pipeline *p, const char *zone,
                      weir__cstatus *st)
{
    if (!zone)
        zone = weir_pipeline_conf_get(p, "spark.sql.session.timeZone");
    if (!zone)
        zone = "UTC";
    if (q->zone && strcmp(q->zone, zone) == 0)
        return 0;
    if (strpbrk(zone, "'\\\n;") || strlen(zone) > 200)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INVALID_CONF_VALUE.TIME_ZONE",
                                 "22022",
                                 "The value '%.200s' in the config "
                                 "\"spark.sql.session.timeZone\" is invalid. Cannot "
                                 "resolve the given timezone.",
                                 zone);
    char sql[256];
    snprintf(sql, sizeof sql, "SET TIME ZONE '%s'", zone);
    weir_result *res = NULL;
    weir_error e;
    memset(&e, 0, sizeof e);
    int wrc = weir_pipeline_query(p, sql, &res, &e);
    weir_result_free(res);
    if (wrc)
        return from_weir(st, wrc, &e);
    free(q->zone);
    q->zone = strdup(zone); /* NULL (OOM): applied again next time */
    return 0;
}

/* After a statement that may have set the time zone (SET TIME ZONE, SET
 * spark.sql.session.timeZone): the zone it left, for the session's confs
 * (*zone_out, malloc'd; NULL when unknown). Under q->lock. */
static void read_zone(weir__cquery *q, weir_pipeline *p, char **zone_out)
{
    weir_result *res = NULL;
    weir_error e;
    memset(&e, 0, sizeof e);
    free(q->zone);
    q->zone = NULL;
    if (weir_pipeline_query(p, "SELECT current_timezone()", &res, &e) == 0 &&
        weir_result_row_count(res) == 1 && weir_result_value(res, 0, 0)) {
        *zone_out = strdup(weir_result_value(res, 0, 0));
        q->zone = *zone_out ? strdup(*zone_out) : NULL;
    }
    weir_result_free(res);
}

static int run(weir__cquery *q, const char *sql, const char *zone, bool arrow,
               use_result use, void *ctx, const stop_fn *stop, weir__cstatus *st)
{
    pthread_mutex_lock(&q->lock);
    weir_pipeline *p = pipeline(q, st);
    int rc = -1;
    if (p && apply_zone(q, p, zone, st))
        p = NULL;
    if (p) {
        struct ArrowArrayStream s;
        weir_result *res = NULL;
        weir_error e;
        memset(&s, 0, sizeof s);
        memset(&e, 0, sizeof e);
        weir_pipeline_set_query_cancel(p, stop ? stop->fn : NULL,
                                       stop ? stop->ctx : NULL);
        int wrc = arrow ? weir_pipeline_query_arrow(p, sql, &s, &e)
                        : weir_pipeline_query(p, sql, &res, &e);
        weir_pipeline_set_query_cancel(p, NULL, NULL);
        rc = wrc ? from_weir(st, wrc, &e) : use ? use(ctx, &s, res, st) : 0;
        if (!wrc && arrow)
            s.release(&s);
        weir_result_free(res);
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

typedef struct emit_ctx {
    weir__arrow_emit emit;
    void *ctx;
} emit_ctx;

static int use_emit(void *ctx, struct ArrowArrayStream *s, const weir_result *r,
                    weir__cstatus *st)
{
    (void)r;
    emit_ctx *x = ctx;
    return weir__arrow_ipc_each(s, x->emit, x->ctx, st);
}

int weir__cquery_collect(weir__cquery *q, const char *sql, const char *zone,
                         weir__arrow_emit emit, bool (*stop)(void *ctx),
                         void *ctx, weir__cstatus *st)
{
    emit_ctx x = { emit, ctx };
    stop_fn why = { stop, ctx };
    return run(q, sql, zone, true, use_emit, &x, &why, st);
}

typedef struct statement_ctx {
    weir__cquery *q;
    char **zone_out;
} statement_ctx;

static int use_statement(void *ctx, struct ArrowArrayStream *s, const weir_result *r,
                         weir__cstatus *st)
{
    (void)s;
    (void)r;
    (void)st;
    statement_ctx *x = ctx;
    if (x->zone_out)
        read_zone(x->q, x->q->pipeline, x->zone_out);
    return 0;
}

static bool mentions_zone(const char *sql)
{
    for (const char *p = sql; *p; p++)
        if (strncasecmp(p, "zone", 4) == 0)
            return true;
    return false;
}

int weir__cquery_statement(weir__cquery *q, const char *sql, const char *zone,
                           char **zone_out, bool (*stop)(void *ctx), void *ctx,
                           weir__cstatus *st)
{
    stop_fn why = { stop, ctx };
    statement_ctx x = { q, NULL };
    if (zone_out) {
        *zone_out = NULL;
        if (mentions_zone(sql))
            x.zone_out = zone_out;
    }
    return run(q, sql, zone, false, use_statement, &x, &why, st);
}

typedef struct show_ctx {
    size_t rows;
    int truncate;
    bool vertical;
    char *text;
} show_ctx;

static int use_show(void *ctx, struct ArrowArrayStream *s, const weir_result *r,
                    weir__cstatus *st)
{
    (void)s;
    show_ctx *x = ctx;
    return weir__show_string(r, x->rows, x->truncate, x->vertical, &x->text)
               ? oom(st) : 0;
}

int weir__cquery_show(weir__cquery *q, const char *sql, const char *zone, int num_rows,
                      int truncate, bool vertical, weir__arrow_emit emit,
                      bool (*stop)(void *ctx), void *ctx, weir__cstatus *st)
{
    show_ctx x = { num_rows > 0 ? (size_t)num_rows : 0, truncate, vertical, NULL };
    stop_fn why = { stop, ctx };
    int rc = run(q, sql, zone, false, use_show, &x, &why, st);
    if (!rc)
        rc = weir__arrow_ipc_string("show_string", x.text, emit, ctx, st);
    free(x.text);
    return rc;
}

typedef struct schema_ctx {
    weir_arena *a;
    Spark__Connect__DataType **out;
} schema_ctx;

static int use_schema(void *ctx, struct ArrowArrayStream *s, const weir_result *r,
                      weir__cstatus *st)
{
    (void)r;
    schema_ctx *x = ctx;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    int rc = s->get_schema(s, &schema)
                 ? weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR",
                                     "XX000", "reading a result's schema")
                 : weir__arrow_spark_schema(x->a, &schema, x->out, st);
    if (schema.release)
        schema.release(&schema);
    return rc;
}

int weir__cquery_schema(weir__cquery *q, const char *sql, const char *zone, weir_arena *a,
                        Spark__Connect__DataType **out,
                        bool (*stop)(void *ctx), void *ctx, weir__cstatus *st)
{
    *out = NULL;
    schema_ctx x = { a, out };
    stop_fn why = { stop, ctx };
    return run(q, sql, zone, true, use_schema, &x, &why, st);
}

/* The type of the one column of `SELECT CAST(NULL AS type) AS x`. */
static int cast_type(weir__cquery *q, const char *type, weir_arena *a,
                     Spark__Connect__DataType **out, weir__cstatus *st)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_printf(&b, "SELECT CAST(NULL AS %s) AS x LIMIT 0", type);
    char *sql = weir__buf_detach(&b);
    if (!sql)
        return oom(st);
    Spark__Connect__DataType *row = NULL;
    int rc = weir__cquery_schema(q, sql, NULL, a, &row, NULL, NULL, st);
    free(sql);
    if (rc)
        return rc;
    if (row->kind_case != SPARK__CONNECT__DATA_TYPE__KIND_STRUCT ||
        row->struct_->n_fields != 1)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "INTERNAL_ERROR",
                                 "XX000", "parsing a type");
    *out = row->struct_->fields[0]->data_type;
    return 0;
}

int weir__cquery_ddl(weir__cquery *q, const char *ddl, weir_arena *a,
                     Spark__Connect__DataType **out, weir__cstatus *st)
{
    *out = NULL;
    if (strchr(ddl, ';'))
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "PARSE_SYNTAX_ERROR",
                                 "42601", "Syntax error in the schema '%.200s'.",
                                 ddl);
    /* "a INT, b STRING" is a struct's fields; "INT" a type of its own. */
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_printf(&b, "STRUCT<%s>", ddl);
    char *wrapped = weir__buf_detach(&b);
    if (!wrapped)
        return oom(st);
    weir__cstatus first = { 0 };
    int rc = cast_type(q, wrapped, a, out, &first);
    free(wrapped);
    if (rc && first.code != WEIR_GRPC_FAILED_PRECONDITION) {
        rc = cast_type(q, ddl, a, out, st);
        if (rc)
            *st = first;
    } else if (rc) {
        *st = first;
    }
    return rc;
}
