/*
 * Results a data chunk at a time, without holding all the rows: Arrow
 * export and the streaming cursor (see db.h).
 */
#include "store/db.h"

#include <stdlib.h>
#include <string.h>

#include <duckdb.h>

#include "store/db_conn.h"
#include "weir.h"

/* ---- Arrow export ------------------------------------------------------- */

struct weir_arrow_stream {
    duckdb_result result;
    duckdb_arrow_options options;
    bool done;
    const char *memory_limit;
    idx_t rows;   /* the materialized result's row count */
    idx_t sent;   /* rows handed out so far */
    idx_t chunks; /* chunks fetched so far */
};

int weir__conn_arrow(weir_conn *c, const char *sql, weir_arrow_stream **out,
                     weir_error *err)
{
    *out = NULL;
    weir_arrow_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (weir__conn_query_shared(c, sql, &s->result) == DuckDBError) {
        int rc = weir__conn_query_error(c, err,
                                        duckdb_result_error(&s->result));
        duckdb_destroy_result(&s->result);
        free(s);
        return rc;
    }
    s->options = duckdb_result_get_arrow_options(&s->result);
    s->memory_limit = c->memory_limit;
    s->rows = duckdb_row_count(&s->result);
    *out = s;
    return 0;
}

static int arrow_error(weir_error *err, duckdb_error_data e)
{
    int rc = weir__db_error(err, "Arrow export failed: ",
                            duckdb_error_data_message(e), NULL);
    duckdb_destroy_error_data(&e);
    return rc;
}

int weir__arrow_schema(weir_arrow_stream *s, struct ArrowSchema *out,
                       weir_error *err)
{
    idx_t n = duckdb_column_count(&s->result);
    duckdb_logical_type *types = calloc(n + 1, sizeof(*types));
    const char **names = calloc(n + 1, sizeof(*names));
    if (!types || !names) {
        free(types);
        free(names);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    for (idx_t i = 0; i < n; i++) {
        types[i] = duckdb_column_logical_type(&s->result, i);
        names[i] = duckdb_column_name(&s->result, i);
    }
    duckdb_error_data e = duckdb_to_arrow_schema(s->options, types, names, n,
                                                 out);
    for (idx_t i = 0; i < n; i++)
        duckdb_destroy_logical_type(&types[i]);
    free(types);
    free(names);
    if (e)
        return arrow_error(err, e);
    return 0;
}

/* The result's next chunk, or NULL. Test builds only (option
 * WEIR_TEST_HOOKS, tests/e2e/README.md): WEIR_TEST_FETCH_FAIL_AFTER=N makes
 * the fetch after N chunks return NULL as DuckDB does when it fails. */
static duckdb_data_chunk fetch_chunk(weir_arrow_stream *s)
{
#ifdef WEIR_TEST_HOOKS
    const char *env = getenv("WEIR_TEST_FETCH_FAIL_AFTER");
    if (env && s->chunks >= strtoull(env, NULL, 10))
        return NULL;
#endif
    s->chunks++;
    return duckdb_fetch_chunk(s->result);
}

int weir__arrow_next(weir_arrow_stream *s, struct ArrowArray *out,
                     weir_error *err)
{
    memset(out, 0, sizeof(*out));
    if (s->done)
        return 0;
    duckdb_data_chunk chunk = fetch_chunk(s);
    if (!chunk) {
        s->done = true;
        /* DuckDB's fetch returns NULL both at the end and when reading a
         * chunk threw (e.g. a spilled block it could not pin), recording no
         * error: fewer rows than the result holds is that failure, never a
         * short answer. */
        if (s->sent < s->rows)
            return WEIR_ERR(err, WEIR_EIO, NULL,
                            "reading the query's result failed after %llu of "
                            "its %llu rows (out of memory?)",
                            (unsigned long long)s->sent,
                            (unsigned long long)s->rows);
        return 0;
    }
    s->sent += duckdb_data_chunk_get_size(chunk);
    duckdb_error_data e = duckdb_data_chunk_to_arrow(s->options, chunk, out);
    duckdb_destroy_data_chunk(&chunk);
    if (e)
        return arrow_error(err, e);
    return 0;
}

void weir__arrow_free(weir_arrow_stream *s)
{
    if (!s)
        return;
    duckdb_destroy_arrow_options(&s->options);
    duckdb_destroy_result(&s->result);
    free(s);
}

/* ---- Streaming cursor --------------------------------------------------- */

struct weir_db_cursor {
    weir_db *db;
    bool shared; /* shares db's gate until freed */
    duckdb_prepared_statement stmt;
    duckdb_result result;
    bool have_result;
    duckdb_data_chunk chunk;
    size_t n_cols;
    duckdb_vector *vecs;
    uint64_t **valid;
    const char *memory_limit;
    weir_conn *conn;     /* the connection it streams from (borrowed) */
    uint64_t statements; /* conn's statement count once it started */
    uint64_t chunks;     /* chunks fetched so far */
};

int weir__conn_cursor(weir_conn *c, const char *sql, weir_db_cursor **out,
                      weir_error *err)
{
    *out = NULL;
    weir_db_cursor *k = calloc(1, sizeof *k);
    if (!k)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    k->memory_limit = c->memory_limit;
    /* A streaming result runs its query as it is fetched. */
    k->db = c->db;
    k->shared = weir__db_gate_share(c->db, sql);
    int rc = 0;
    if (duckdb_prepare(weir__conn_counted(c, sql), sql, &k->stmt) == DuckDBError) {
        rc = weir__conn_prepare_error(c, err, duckdb_prepare_error(k->stmt));
    } else {
        if (duckdb_execute_prepared_streaming(k->stmt, &k->result) == DuckDBError)
            rc = weir__conn_query_error(c, err,
                                        duckdb_result_error(&k->result));
        k->have_result = true;
    }
    k->conn = c;
    k->statements = c->statements;
    if (!rc) {
        k->n_cols = duckdb_column_count(&k->result);
        k->vecs = calloc(k->n_cols + 1, sizeof *k->vecs);
        k->valid = calloc(k->n_cols + 1, sizeof *k->valid);
        if (!k->vecs || !k->valid)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (rc) {
        weir__cursor_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

/* The cursor's next chunk, or NULL. Test builds only (option
 * WEIR_TEST_HOOKS, tests/e2e/README.md): WEIR_TEST_FETCH_FAIL_AFTER=N runs
 * a statement on the cursor's connection after N chunks, which closes the
 * stream: DuckDB's next fetch returns NULL and records no error. */
static duckdb_data_chunk cursor_fetch(weir_db_cursor *k)
{
#ifdef WEIR_TEST_HOOKS
    const char *env = getenv("WEIR_TEST_FETCH_FAIL_AFTER");
    if (env && k->chunks == strtoull(env, NULL, 10) &&
        k->conn->statements == k->statements) {
        duckdb_result r;
        duckdb_query(weir__conn_counted(k->conn, "SELECT 1"), "SELECT 1", &r);
        duckdb_destroy_result(&r);
    }
#endif
    k->chunks++;
    return duckdb_fetch_chunk(k->result);
}

/* The stream gave no chunk: its end, or its failure. DuckDB 1.4 records
 * an error when running the query fails, but a stream that another
 * statement on its connection closed (DuckDB runs one query at a time on
 * a connection) ends with none: rows would be lost, never a short batch. */
static int cursor_end(weir_db_cursor *k, weir_error *err)
{
    const char *e = duckdb_result_error(&k->result);
    if (e)
        return weir__db_error(err, "", e, k->memory_limit);
    if (k->conn->statements != k->statements)
        return WEIR_ERR(err, WEIR_ERROR, NULL,
                        "internal error: a streaming query result was closed "
                        "after %llu chunk(s), before its end, by another "
                        "statement on its connection",
                        (unsigned long long)(k->chunks - 1));
    return 0;
}

int weir__cursor_next(weir_db_cursor *k, size_t *n_rows, weir_error *err)
{
    *n_rows = 0;
    if (k->chunk)
        duckdb_destroy_data_chunk(&k->chunk);
    k->chunk = NULL;
    for (;;) {
        k->chunk = cursor_fetch(k);
        if (!k->chunk)
            return cursor_end(k, err);
        idx_t n = duckdb_data_chunk_get_size(k->chunk);
        if (n) {
            for (size_t i = 0; i < k->n_cols; i++) {
                k->vecs[i] = duckdb_data_chunk_get_vector(k->chunk, i);
                k->valid[i] = duckdb_vector_get_validity(k->vecs[i]);
            }
            *n_rows = n;
            return 0;
        }
        duckdb_destroy_data_chunk(&k->chunk);
    }
}

static bool cursor_null(const weir_db_cursor *k, size_t col, size_t row)
{
    return k->valid[col] && !duckdb_validity_row_is_valid(k->valid[col], row);
}

bool weir__cursor_bytes(const weir_db_cursor *k, size_t col, size_t row,
                        const void **p, size_t *len)
{
    if (cursor_null(k, col, row)) {
        *p = NULL;
        *len = 0;
        return false;
    }
    duckdb_string_t *s = (duckdb_string_t *)duckdb_vector_get_data(k->vecs[col]) + row;
    *len = duckdb_string_t_length(*s);
    *p = duckdb_string_is_inlined(*s) ? (const void *)s->value.inlined.inlined
                                      : (const void *)s->value.pointer.ptr;
    return true;
}

bool weir__cursor_i32(const weir_db_cursor *k, size_t col, size_t row,
                      int32_t *out)
{
    if (cursor_null(k, col, row))
        return false;
    *out = ((const int32_t *)duckdb_vector_get_data(k->vecs[col]))[row];
    return true;
}

bool weir__cursor_i64(const weir_db_cursor *k, size_t col, size_t row,
                      int64_t *out)
{
    if (cursor_null(k, col, row))
        return false;
    *out = ((const int64_t *)duckdb_vector_get_data(k->vecs[col]))[row];
    return true;
}

void weir__cursor_free(weir_db_cursor *k)
{
    if (!k)
        return;
    if (k->chunk)
        duckdb_destroy_data_chunk(&k->chunk);
    if (k->have_result)
        duckdb_destroy_result(&k->result);
    duckdb_destroy_prepare(&k->stmt);
    weir__db_gate_unshare(k->db, k->shared);
    free(k->vecs);
    free(k->valid);
    free(k);
}
