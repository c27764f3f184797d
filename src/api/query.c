/*
 * Queries: Spark SQL run against the pipeline's stored catalog, with the
 * last statement's result as text (weir_result) or as an Arrow C stream.
 * The first query opens the storage (taking its lock) and keeps it open for
 * later queries until the pipeline starts a run or is dropped (a pipeline
 * loaded with keep_storage_open runs on it too, and keeps it); results and
 * streams are counted so that neither can outlive that storage. Each
 * statement that writes is atomic (one transaction), and query_guard.c
 * decides what it may write.
 */
#include "api/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "sinks/sink.h"
#include "sources/jdbc.h"
#include "sql/sql.h"
#include "state/state.h"
#include "store/db.h"
#include "util/fs.h"
#include "util/str.h"

/* The translation of one statement: the pipeline, whether the statement
 * writes (on_target saw a target other than USE's) and whether it is a
 * USE. */
typedef struct query_ctx {
    weir_pipeline *p;
    bool writes, use;
    const weir_sql_source *src; /* for locations */
    weir_sql_resolver *resolver; /* its time zone follows SET */
} query_ctx;

struct weir_result {
    weir_pipeline *p;
    weir_rows *rows;
    const char **spark_types;
};

void weir__query_close(weir_pipeline *p)
{
    weir__query_watch_conn(p, NULL);
    weir__storage_close(p->qstore);
    p->qstore = NULL;
    weir__guard_print_free(&p->qprint);
}

/* A USE sets DuckDB's search path to the one schema it names; put the
 * in-memory main schema, where weir keeps its Spark-function macros
 * (store/db.c), back behind it so that they still resolve. */
static int keep_macros(weir_pipeline *p, weir_error *err)
{
    char *path = NULL;
    int rc = weir__conn_scalar_text(p->qstore->conn,
                                    "SELECT current_setting('search_path')",
                                    &path, err);
    if (rc)
        return rc;
    weir_buf set = WEIR_BUF_INIT, value = WEIR_BUF_INIT;
    weir__buf_printf(&value, "%s%smemory.main", path ? path : "",
                     path && path[0] ? "," : "");
    weir__buf_puts(&set, "SET search_path = ");
    weir__buf_put_sql_string(&set, weir__buf_cstr(&value));
    rc = set.failed || value.failed
             ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
             : weir__conn_exec(p->qstore->conn, weir__buf_cstr(&set), NULL, err);
    weir__buf_free(&value);
    weir__buf_free(&set);
    free(path);
    return rc;
}

/* What queries need of an open storage: the pipeline's catalog and every
 * catalog file attached, weir.duckdb read-only, the pipeline's catalog and
 * database current, the macros on the search path. */
static int prepare_queries(weir_pipeline *p, weir_error *err)
{
    int rc = weir__storage_use_catalog(p->qstore, p->catalog, p->database, err);
    if (!rc)
        rc = weir__storage_attach_all(p->qstore, err);
    if (!rc)
        rc = weir__storage_system_read_only(p->qstore, err);
    if (!rc) {
        char alias[300];
        weir__storage_catalog_alias(alias, sizeof(alias), p->catalog);
        weir_buf use = WEIR_BUF_INIT;
        weir__buf_puts(&use, "USE ");
        weir__buf_put_sql_ident(&use, alias);
        weir__buf_putc(&use, '.');
        weir__buf_put_sql_ident(&use, p->database);
        rc = use.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                        : weir__conn_exec(p->qstore->conn, weir__buf_cstr(&use),
                                          NULL, err);
        weir__buf_free(&use);
    }
    if (!rc)
        rc = keep_macros(p, err);
    return rc;
}

static int open_mode(weir_pipeline *p, weir_storage_mode mode, weir_error *err)
{
    if (!p->storage)
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                        "the pipeline has no storage to query");
    weir_db_config cfg = { p->session->threads, p->session->memory_limit, NULL,
                           false, p->defs.conf, p->defs.n_conf };
    return weir__storage_open(&p->qstore, p->storage, mode, &cfg,
                              weir__state_schema(), err);
}

static int open_storage(weir_pipeline *p, weir_error *err)
{
    if (p->qstore)
        return 0;
    int rc = open_mode(p, WEIR_STORAGE_QUERY, err);
    if (!rc)
        rc = prepare_queries(p, err);
    if (rc)
        weir__query_close(p);
    return rc;
}

int weir__query_storage_for_run(weir_pipeline *p, weir_storage **out,
                                weir_error *err)
{
    *out = NULL;
    weir__guard_print_free(&p->qprint); /* the run may add to weir's state */
    int rc = p->qstore ? weir__storage_set_mode(p->qstore, WEIR_STORAGE_RUN, err)
                       : open_mode(p, WEIR_STORAGE_RUN, err);
    if (rc) {
        weir__query_close(p);
        return rc;
    }
    *out = p->qstore;
    return 0;
}

void weir__query_after_run(weir_pipeline *p)
{
    weir_error ignore;
    if (p->qstore &&
        (weir__storage_set_mode(p->qstore, WEIR_STORAGE_QUERY, &ignore) != 0 ||
         prepare_queries(p, &ignore) != 0))
        weir__query_close(p);
}

/* delta.`path`, delta_scan('path'), read_delta('path'): a Delta table read
 * through its log. */
static int delta_read(weir_pipeline *p, const char *path, weir_buf *out,
                      weir_error *err)
{
    char *abs = weir__path_absolute(path, p->root_dir);
    int rc = abs ? weir__delta_render_scan(out, abs, err)
                 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    free(abs);
    return rc;
}

/* format.`x` (Spark's direct file query) reads a path when x looks like
 * one (a slash or a file extension) or names an existing file or folder
 * (for delta: one holding a Delta log); otherwise it is table x of a
 * database named like the format. */
static bool direct_path(const weir_pipeline *p, const char *fmt,
                        const char *path)
{
    static const char *const formats[] = { "json", "csv", "parquet", "text",
                                           "orc", "avro" };
    bool delta = weir__str_ieq(fmt, "delta"), known = delta;
    for (size_t i = 0; !known && i < sizeof(formats) / sizeof(formats[0]); i++)
        known = weir__str_ieq(fmt, formats[i]);
    if (!known)
        return false;
    if (strchr(path, '/') || (!delta && strchr(path, '.')))
        return true;
    char *abs = weir__path_absolute(path, p->root_dir);
    char *log = abs && delta ? weir__path_join(abs, "_delta_log") : NULL;
    bool yes = delta ? log && weir__fs_is_dir(log)
                     : abs && (weir__fs_is_dir(abs) || weir__fs_is_file(abs));
    free(log);
    free(abs);
    return yes;
}

/* Whether text holds word, ignoring case. */
static bool mentions(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; n && *p; p++) {
        size_t k = 0;
        while (k < n && p[k] &&
               (p[k] | 0x20) == (word[k] | 0x20) &&
               ((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z' ? true : p[k] == word[k]))
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* A name DuckDB's catalog does not know is Spark's TABLE_OR_VIEW_NOT_FOUND
 * with the name as written and its location, not DuckDB's message (its
 * wording, its "Did you mean" suggestions from pg_catalog). Other binding
 * errors are left to the statement. */
static int check_exists(const query_ctx *q, const weir_sql_name *n,
                        const char *rendered, weir_error *err)
{
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_printf(&sql, "SELECT * FROM %s", rendered);
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols;
    size_t n_cols;
    weir_error e;
    int rc = weir__conn_describe(q->p->qstore->conn, weir__buf_cstr(&sql), &cols,
                                 &n_cols, &a, &e);
    weir__arena_free(&a);
    weir__buf_free(&sql);
    /* about this name, not a table a view of that name reads */
    bool missing = rc && (strstr(e.message, "Catalog Error") ||
                          strcmp(e.error_class, "TABLE_OR_VIEW_NOT_FOUND") == 0 ||
                          strstr(e.message, "does not exist"));
    bool named = false;
    for (size_t i = 0; missing && !named && i < n->n; i++)
        named = mentions(e.message, n->parts[i]);
    if (!missing || !named)
        return 0;
    weir_buf shown = WEIR_BUF_INIT;
    for (size_t i = 0; i < n->n; i++)
        weir__buf_printf(&shown, "%s`%s`", i ? "." : "", n->parts[i]);
    WEIR_ERR(err, WEIR_ESQL, "TABLE_OR_VIEW_NOT_FOUND",
             "The table or view %s cannot be found. Verify the spelling and "
             "correctness of the schema and catalog. If you did not qualify "
             "the name with a schema, verify the current_schema() output, or "
             "qualify the name with the correct schema and catalog.",
             weir__buf_cstr(&shown));
    weir__buf_free(&shown);
    weir__sql_error_at(err, q->src, n->pos);
    return WEIR_ESQL;
}

/* Table names: Spark catalogs map to DuckDB database aliases. */
static int on_relation(void *payload, const weir_sql_relref *ref, weir_buf *out,
                       weir_error *err)
{
    weir_pipeline *p = ((query_ctx *)payload)->p;
    const weir_sql_name *n = &ref->name;
    size_t start = out->len;
    if (weir__query_cancelled(p))
        return weir__query_cancel_error(err);
    if (n->n == 2 && direct_path(p, n->parts[0], n->parts[1])) {
        if (weir__str_ieq(n->parts[0], "delta"))
            return delta_read(p, n->parts[1], out, err);
        weir_buf rel = WEIR_BUF_INIT;
        int rc = weir__sql_render_path_read(&rel, n->parts[0], n->parts[1],
                                            n->pos, p->root_dir, err);
        /* Spark orders the columns it infers from JSON by name */
        if (!rc && weir__str_ieq(n->parts[0], "json"))
            rc = weir__conn_sort_columns(p->qstore->conn, &rel, err);
        weir__buf_puts(out, weir__buf_cstr(&rel));
        weir__buf_free(&rel);
        return rc;
    }
    if (n->n == 3) { /* a database catalog of the configuration */
        int rc = weir__jdbc_render_catalog(out, p->qstore->conn, p->defs.conf,
                                           p->defs.n_conf, n->parts[0], n->parts[1],
                                           n->parts[2], p->root_dir, err);
        if (rc != WEIR_ENOTFOUND) {
            if (rc && !err->path[0])
                weir__sql_error_at(err, ((query_ctx *)payload)->src, n->pos);
            return rc;
        }
    }
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            weir__buf_putc(out, '.');
        if (i == 0 && n->n == 3) {
            char alias[300];
            weir__storage_catalog_alias(alias, sizeof(alias), n->parts[0]);
            weir__buf_put_sql_ident(out, alias);
        } else {
            weir__buf_put_sql_ident(out, n->parts[i]);
        }
    }
    if (out->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_buf rendered = WEIR_BUF_INIT;
    weir__buf_put(&rendered, out->ptr + start, out->len - start);
    int rc = rendered.failed
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : check_exists(payload, n, weir__buf_cstr(&rendered), err);
    weir__buf_free(&rendered);
    return rc;
}

static int on_tvf(void *payload, const weir_sql_tvf *call, weir_buf *out,
                  weir_error *err)
{
    weir_pipeline *p = ((query_ctx *)payload)->p;
    if (weir__str_ieq(call->name, "event_log")) {
        /* Databricks' event_log() table function: this pipeline's log. */
        weir__buf_puts(out, "weir.main.event_log");
        return 0;
    }
    if (weir__str_ieq(call->name, "read_files") ||
        weir__str_ieq(call->name, "cloud_files"))
        return weir__sql_render_read_files(out, call, NULL, 0, p->root_dir, err);
    if (weir__str_ieq(call->name, "delta_scan") ||
        weir__str_ieq(call->name, "read_delta")) {
        if (call->n_args != 1 || call->args[0].kind != WEIR_SQL_ARG_STRING)
            return WEIR_ERR(err, WEIR_ESQL, "WRONG_NUM_ARGS",
                            "%s takes one argument: the table's path",
                            call->name);
        return delta_read(p, call->args[0].text, out, err);
    }
    return WEIR_ENOTFOUND;
}

/* The types of a translated query's columns, for Spark's decimal result
 * types. */
static int on_expr_type(void *payload, const char *sql, weir_buf *out)
{
    weir_pipeline *p = ((query_ctx *)payload)->p;
    if (weir__query_cancelled(p))
        return -1; /* on_relation ends the translation */
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error ignore;
    int rc = weir__conn_describe(p->qstore->conn, sql, &cols, &n, &a, &ignore);
    for (size_t i = 0; !rc && i < n; i++)
        weir__buf_printf(out, "%s%s", i ? "\n" : "", cols[i].type);
    weir__arena_free(&a);
    return rc;
}

/* A statement's target: see query_guard.c. */
static int on_target(void *payload, weir_sql_action action,
                     const weir_sql_name *n, weir_error *err)
{
    query_ctx *q = payload;
    if (action == WEIR_SQL_USE)
        q->use = true;
    else
        q->writes = true;
    return weir__guard_target(q->p->qstore, action, n, err);
}

/* SET spark.sql.session.timeZone = z: the zone of the statements after
 * it, in this query and the pipeline's later ones. Other keys are
 * answered and change nothing. */
static int on_set(void *payload, const char *key, const char *value,
                  weir_error *err)
{
    query_ctx *q = payload;
    if (strcmp(key, "spark.sql.session.timeZone") != 0)
        return 0;
    int rc = weir__check_time_zone(q->p->qstore->conn, value, err);
    char *copy = rc ? NULL : strdup(value);
    if (!rc && !copy)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        return rc;
    free(q->p->query_zone);
    q->p->query_zone = copy;
    q->resolver->time_zone = copy;
    return 0;
}

/* Engine errors about unknown tables, columns and functions are errors in
 * the user's SQL. err is never NULL here: the code depends on it. */
static int classify(int rc, weir_error *err)
{
    if (rc != WEIR_EENGINE)
        return rc;
    /* The weir catalog is attached read-only (query_guard.c). */
    if (strstr(err->message, "read-only mode") &&
        strstr(err->message, "\"" WEIR_SYSTEM_ALIAS "\"")) {
        weir__str_copy(err->error_class, sizeof(err->error_class),
                       "PIPELINE_STATE_READ_ONLY");
        return err->code = WEIR_ESQL;
    }
    if (weir__db_error_in_sql(err))
        rc = err->code = WEIR_ESQL;
    return rc;
}

/* A writing statement runs in its own transaction, which commits only if
 * weir's state in the catalogs is the same after the statement as before
 * (query_guard.c). write_end rolls back when rc or the check fails. */
/* The print taken when the last writing statement began still holds when
 * that statement left weir's state as it was (committed after the check,
 * or rolled back) and nothing wrote since: this pipeline holds the
 * storage's lock, its updates free the print, and statements that do not
 * write go unchecked either way (a stale print would only refuse the next
 * write). So a series of writes prints once per statement, not twice. */
static int write_begin(weir_pipeline *p, weir_error *err)
{
    int rc = weir__conn_begin(p->qstore->conn, err);
    if (!rc && !p->qprint.current)
        rc = p->qprint.sql ? weir__guard_reprint(p->qstore, &p->qprint, err)
                           : weir__guard_print(p->qstore, &p->qprint, err);
    p->qprint.current = false;
    if (rc)
        weir__conn_rollback(p->qstore->conn);
    return rc;
}

static int write_end(weir_pipeline *p, int rc, weir_error *err)
{
    if (!rc && !weir__guard_unchanged(p->qstore, &p->qprint))
        rc = WEIR_ERR(err, WEIR_ESQL, "PIPELINE_STATE_READ_ONLY",
                      "the statement changed weir's own state (a _weir "
                      "schema), which queries may read but not change; it "
                      "was rolled back");
    if (rc) {
        weir__conn_rollback(p->qstore->conn);
    } else {
        rc = weir__storage_commit(p->qstore, p->qstore->conn, err);
        if (rc)
            return rc; /* a failed commit: print again next time */
    }
    p->qprint.current = p->qprint.text != NULL;
    return rc;
}

static int run_statement(weir_pipeline *p, const char *duck, bool writes,
                         bool use, weir_error *err)
{
    int rc = writes ? write_begin(p, err) : 0;
    if (rc)
        return rc;
    rc = weir__conn_exec(p->qstore->conn, duck, NULL, err);
    if (!rc && use)
        rc = keep_macros(p, err);
    return writes ? write_end(p, rc, err) : rc;
}

/* The session time zone of queries: a SET of it in an earlier query of
 * this pipeline, else the pipeline configuration's. */
static const char *query_time_zone(const weir_pipeline *p)
{
    return p->query_zone ? p->query_zone
                         : weir_pipeline_conf_get(p, "spark.sql.session.timeZone");
}

/* Translate the statements of sql, run all but the last, and leave the
 * last one, as DuckDB SQL, in *last (*writes: whether it writes, *use:
 * whether it is a USE, after which the caller calls keep_macros). */
static int run_all_but_last(weir_pipeline *p, const char *sql, weir_buf *last,
                            bool *writes, bool *use, weir_error *err)
{
    *writes = *use = false;
    int rc = open_storage(p, err);
    if (rc)
        return rc;
    weir__query_watch_conn(p, p->qstore->conn);
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "query", sql, strlen(sql), NULL, 0, NULL, 0, false };
    weir_sql_span *spans = NULL;
    size_t n = 0;
    rc = weir__sql_source_index(&src, &a)
             ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
             : weir__sql_split(&spans, &n, &a, &src, err);
    if (!rc && n == 0)
        rc = WEIR_ERR(err, WEIR_ESQL, "PARSE_EMPTY_STATEMENT",
                      "Syntax error, unexpected empty statement.");
    query_ctx q = { p, false, false, &src, NULL };
    weir_sql_resolver r = { on_relation, on_tvf, &q, on_target, on_expr_type,
                            NULL, NULL, query_time_zone(p), on_set, NULL,
                            p->database };
    q.resolver = &r;
    for (size_t i = 0; !rc && i < n; i++) {
        weir__buf_clear(last);
        q.writes = q.use = false;
        rc = weir__sql_translate_statement(last, &a, &src, spans[i].offset,
                                           spans[i].len, &r, err);
        if (!rc && last->failed)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (!rc && weir__query_cancelled(p))
            rc = weir__query_cancel_error(err);
        if (!rc && i + 1 < n)
            rc = classify(run_statement(p, weir__buf_cstr(last), q.writes,
                                        q.use, err),
                          err);
    }
    *writes = q.writes;
    *use = q.use;
    weir__arena_free(&a);
    return classify(rc, err);
}

int weir_pipeline_query(weir_pipeline *p, const char *sql, weir_result **out,
                        weir_error *err)
{
    if (out)
        *out = NULL;
    if (!p || !sql || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline, SQL and out are required");
    weir_error local;
    if (!err)
        err = &local;
    weir_buf duck = WEIR_BUF_INIT;
    weir_rows *rows = NULL;
    bool writes = false, use = false;
    int rc = weir__query_watch_start(p, err);
    if (!rc)
        rc = run_all_but_last(p, sql, &duck, &writes, &use, err);
    if (!rc && writes)
        rc = write_begin(p, err);
    if (!rc) {
        rc = weir__conn_query(p->qstore->conn, weir__buf_cstr(&duck), &rows, err);
        if (!rc && use)
            rc = keep_macros(p, err);
        if (writes)
            rc = write_end(p, rc, err);
        rc = classify(rc, err);
    }
    rc = weir__query_watch_end(p, rc, err);
    weir__buf_free(&duck);
    if (rc) {
        weir__rows_free(rows);
        return rc;
    }
    weir_result *res = calloc(1, sizeof(*res));
    if (!res) {
        weir__rows_free(rows);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    res->p = p;
    res->rows = rows;
    p->open_results++;
    res->spark_types = weir__arena_array(&rows->arena, rows->n_cols + 1,
                                         sizeof(char *));
    for (size_t i = 0; res->spark_types && i < rows->n_cols; i++) {
        weir_buf t = WEIR_BUF_INIT;
        weir__sql_duckdb_type_to_spark(&t, rows->types[i]);
        res->spark_types[i] = weir__arena_strdup(&rows->arena, weir__buf_cstr(&t));
        weir__buf_free(&t);
    }
    if (!res->spark_types || weir__arena_failed(&rows->arena)) {
        weir_result_free(res);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    *out = res;
    return 0;
}

void weir_result_free(weir_result *r)
{
    if (!r)
        return;
    r->p->open_results--;
    weir__rows_free(r->rows);
    free(r);
}

size_t weir_result_column_count(const weir_result *r)
{
    return r ? r->rows->n_cols : 0;
}

size_t weir_result_row_count(const weir_result *r)
{
    return r ? r->rows->n_rows : 0;
}

const char *weir_result_column_name(const weir_result *r, size_t col)
{
    return r && col < r->rows->n_cols ? r->rows->names[col] : NULL;
}

const char *weir_result_column_type(const weir_result *r, size_t col)
{
    return r && col < r->rows->n_cols ? r->spark_types[col] : NULL;
}

bool weir_result_column_is_numeric(const weir_result *r, size_t col)
{
    return r && col < r->rows->n_cols && r->rows->numeric[col];
}

const char *weir_result_value(const weir_result *r, size_t col, size_t row)
{
    if (!r || col >= r->rows->n_cols || row >= r->rows->n_rows)
        return NULL;
    return weir__rows_get(r->rows, row, col);
}

/* ---- Arrow C stream -------------------------------------------------------- */

typedef struct stream_state {
    weir_pipeline *p;
    weir_arrow_stream *arrow;
    char error[sizeof(((weir_error *)0)->message)];
} stream_state;

/* A failure as the stream interface reports it: an errno value, with the
 * message kept for get_last_error. */
static int stream_fail(stream_state *st, int rc, const weir_error *e)
{
    weir__str_copy(st->error, sizeof(st->error), e->message);
    return rc == WEIR_ENOMEM ? ENOMEM : rc == WEIR_EINVAL ? EINVAL : EIO;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_state *st = s->private_data;
    weir_error e;
    int rc = weir__arrow_schema(st->arrow, out, &e);
    return rc ? stream_fail(st, rc, &e) : 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_state *st = s->private_data;
    weir_error e;
    int rc = weir__arrow_next(st->arrow, out, &e);
    return rc ? stream_fail(st, rc, &e) : 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    stream_state *st = s->private_data;
    return st->error[0] ? st->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    stream_state *st = s->private_data;
    st->p->open_results--;
    weir__arrow_free(st->arrow);
    free(st);
    s->release = NULL;
}

int weir_pipeline_query_arrow(weir_pipeline *p, const char *sql,
                              struct ArrowArrayStream *out, weir_error *err)
{
    if (out)
        memset(out, 0, sizeof(*out));
    if (!p || !sql || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline, SQL and out are required");
    weir_error local;
    if (!err)
        err = &local;
    stream_state *st = calloc(1, sizeof(*st));
    if (!st)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_buf duck = WEIR_BUF_INIT;
    bool writes = false, use = false;
    int rc = weir__query_watch_start(p, err);
    if (!rc)
        rc = run_all_but_last(p, sql, &duck, &writes, &use, err);
    if (!rc && writes)
        rc = write_begin(p, err);
    if (!rc) {
        /* The result is materialised: it outlives the commit. */
        rc = weir__conn_arrow(p->qstore->conn, weir__buf_cstr(&duck), &st->arrow,
                              err);
        if (!rc && use)
            rc = keep_macros(p, err);
        if (writes)
            rc = write_end(p, rc, err);
        rc = classify(rc, err);
    }
    rc = weir__query_watch_end(p, rc, err);
    weir__buf_free(&duck);
    if (rc) {
        weir__arrow_free(st->arrow);
        free(st);
        return rc;
    }
    st->p = p;
    p->open_results++;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = st;
    return 0;
}
