/*
 * weir_pipeline_query and results: Spark SQL run against the pipeline's
 * stored catalog. The first query opens the storage (taking its lock) and
 * keeps it open for later queries until the pipeline starts a run or is
 * dropped.
 */
#include "api/internal.h"

#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "sql/sql.h"
#include "store/db.h"
#include "util/str.h"

struct weir_result {
    weir_pipeline *p;
    weir_rows *rows;
    const char **spark_types;
    char *sql; /* the last statement as DuckDB SQL, for Arrow export */
    weir_arrow_stream *arrow;
};

void weir__query_close(weir_pipeline *p)
{
    weir__storage_close(p->qstore);
    p->qstore = NULL;
}

static int open_storage(weir_pipeline *p, weir_error *err)
{
    if (p->qstore)
        return 0;
    if (!p->storage)
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                        "the pipeline has no storage to query");
    weir_db_config cfg = { p->session->threads, p->session->memory_limit, NULL };
    int rc = weir__storage_open(&p->qstore, p->storage, WEIR_STORAGE_QUERY, &cfg,
                                err);
    if (!rc)
        rc = weir__storage_use_catalog(p->qstore, p->catalog, p->database, err);
    if (!rc)
        rc = weir__storage_attach_all(p->qstore, err);
    if (!rc) {
        char alias[300];
        weir__storage_catalog_alias(alias, sizeof(alias), p->catalog);
        weir_buf use = WEIR_BUF_INIT;
        weir__buf_puts(&use, "USE ");
        weir__buf_put_sql_ident(&use, alias);
        weir__buf_putc(&use, '.');
        weir__buf_put_sql_ident(&use, p->database);
        /* keep weir's macros (memory.main) in reach after USE */
        weir__buf_puts(&use, "; SET search_path = ");
        weir_buf path = WEIR_BUF_INIT;
        weir__buf_printf(&path, "%s.%s,memory.main", alias, p->database);
        weir__buf_put_sql_string(&use, weir__buf_cstr(&path));
        weir__buf_free(&path);
        rc = weir__conn_exec(p->qstore->conn, weir__buf_cstr(&use), NULL, err);
        weir__buf_free(&use);
    }
    if (rc)
        weir__query_close(p);
    return rc;
}

/* Table names: Spark catalogs map to DuckDB database aliases. */
static int on_relation(void *payload, const weir_sql_relref *ref, weir_buf *out,
                       weir_error *err)
{
    (void)payload;
    (void)err;
    const weir_sql_name *n = &ref->name;
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
    return 0;
}

static int on_tvf(void *payload, const weir_sql_tvf *call, weir_buf *out,
                  weir_error *err)
{
    weir_pipeline *p = payload;
    if (weir__str_ieq(call->name, "event_log")) {
        /* Databricks' event_log() table function: this pipeline's log. */
        weir__buf_puts(out, "weir.main.event_log");
        return 0;
    }
    if (weir__str_ieq(call->name, "read_files") ||
        weir__str_ieq(call->name, "cloud_files"))
        return weir__sql_render_read_files(out, call, NULL, 0, p->root_dir, err);
    return WEIR_ENOTFOUND;
}

int weir_pipeline_query(weir_pipeline *p, const char *sql, weir_result **out,
                        weir_error *err)
{
    if (!p || !sql || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline, SQL and out are required");
    *out = NULL;
    int rc = open_storage(p, err);
    if (rc)
        return rc;
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "query", sql, strlen(sql) };
    weir_sql_span *spans = NULL;
    size_t n = 0;
    rc = weir__sql_split(&spans, &n, &a, &src, err);
    if (!rc && n == 0)
        rc = WEIR_ERR(err, WEIR_ESQL, "PARSE_EMPTY_STATEMENT",
                      "Syntax error, unexpected empty statement.");
    weir_sql_resolver r = { on_relation, on_tvf, p };
    weir_buf duck = WEIR_BUF_INIT;
    weir_rows *rows = NULL;
    for (size_t i = 0; !rc && i < n; i++) {
        weir__buf_clear(&duck);
        rc = weir__sql_translate_statement(&duck, &a, &src, spans[i].offset,
                                           spans[i].len, &r, err);
        if (rc)
            break;
        if (i + 1 < n)
            rc = weir__conn_exec(p->qstore->conn, weir__buf_cstr(&duck), NULL, err);
        else
            rc = weir__conn_query(p->qstore->conn, weir__buf_cstr(&duck), &rows,
                                  err);
    }
    weir__arena_free(&a);
    if (rc == WEIR_EENGINE && err) {
        /* Unknown tables, columns and functions are errors in the SQL. */
        const char *cls = weir__classify_engine_error(err->message);
        if (cls[0]) {
            weir__str_copy(err->error_class, sizeof(err->error_class), cls);
            if (strstr(err->message, "Binder Error") ||
                strstr(err->message, "Catalog Error") ||
                strstr(err->message, "Parser Error"))
                rc = err->code = WEIR_ESQL;
        }
    }
    if (rc) {
        weir__buf_free(&duck);
        return rc;
    }
    weir_result *res = calloc(1, sizeof(*res));
    if (!res) {
        weir__rows_free(rows);
        weir__buf_free(&duck);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    res->p = p;
    res->rows = rows;
    res->sql = weir__buf_detach(&duck);
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
    p->open_results++;
    *out = res;
    return 0;
}

void weir_result_free(weir_result *r)
{
    if (!r)
        return;
    r->p->open_results--;
    weir__arrow_free(r->arrow);
    weir__rows_free(r->rows);
    free(r->sql);
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

static int arrow_open(weir_result *r, weir_error *err)
{
    if (r->arrow)
        return 0;
    if (!r->p->qstore)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the pipeline's storage was closed since the query");
    return weir__conn_arrow(r->p->qstore->conn, r->sql, &r->arrow, err);
}

int weir_result_arrow_schema(weir_result *r, struct ArrowSchema *schema,
                             weir_error *err)
{
    if (!r || !schema)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "result and schema are required");
    int rc = arrow_open(r, err);
    return rc ? rc : weir__arrow_schema(r->arrow, schema, err);
}

int weir_result_arrow_next(weir_result *r, struct ArrowArray *array,
                           weir_error *err)
{
    if (!r || !array)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "result and array are required");
    int rc = arrow_open(r, err);
    return rc ? rc : weir__arrow_next(r->arrow, array, err);
}
