/*
 * Appending rows to a table through DuckDB's appender, by row or by
 * column (see db.h).
 */
#include "store/db.h"

#include <stdlib.h>
#include <string.h>

#include <duckdb.h>

#include "store/db_conn.h"
#include "weir.h"

struct weir_appender {
    duckdb_appender app;
    bool failed;
    const char *memory_limit;
    /* column-wise appending */
    duckdb_data_chunk chunk;
    idx_t n_cols, rows, cap;
};

int weir__appender_open(weir_appender **out, weir_conn *c, const char *catalog,
                        const char *schema, const char *table, weir_error *err)
{
    weir_appender *a = calloc(1, sizeof(*a));
    *out = NULL;
    if (!a)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (duckdb_appender_create_ext(c->handle, catalog, schema, table, &a->app) ==
        DuckDBError) {
        int rc = weir__db_error(err, "", duckdb_appender_error(a->app),
                              c->memory_limit);
        duckdb_appender_destroy(&a->app);
        free(a);
        return rc;
    }
    a->memory_limit = c->memory_limit;
    *out = a;
    return 0;
}

void weir__appender_text(weir_appender *a, const char *v)
{
    if ((v ? duckdb_append_varchar(a->app, v) : duckdb_append_null(a->app)) ==
        DuckDBError)
        a->failed = true;
}

void weir__appender_i64(weir_appender *a, int64_t v)
{
    if (duckdb_append_int64(a->app, v) == DuckDBError)
        a->failed = true;
}

void weir__appender_timestamp_us(weir_appender *a, int64_t us)
{
    duckdb_timestamp ts = { us };
    if (duckdb_append_timestamp(a->app, ts) == DuckDBError)
        a->failed = true;
}

void weir__appender_i32(weir_appender *a, int32_t v)
{
    if (duckdb_append_int32(a->app, v) == DuckDBError)
        a->failed = true;
}

void weir__appender_blob(weir_appender *a, const void *v, size_t len)
{
    if ((v ? duckdb_append_blob(a->app, v, (idx_t)len)
           : duckdb_append_null(a->app)) == DuckDBError)
        a->failed = true;
}

void weir__appender_end_row(weir_appender *a)
{
    if (duckdb_appender_end_row(a->app) == DuckDBError)
        a->failed = true;
}

/* The data chunk of column-wise appending, made on first use with the
 * table's column types. */
static bool col_chunk(weir_appender *a)
{
    if (a->chunk)
        return true;
    if (a->failed)
        return false;
    idx_t n = duckdb_appender_column_count(a->app);
    duckdb_logical_type *types = calloc(n ? n : 1, sizeof(*types));
    if (!types) {
        a->failed = true;
        return false;
    }
    for (idx_t i = 0; i < n; i++)
        types[i] = duckdb_appender_column_type(a->app, i);
    a->chunk = duckdb_create_data_chunk(types, n);
    for (idx_t i = 0; i < n; i++)
        duckdb_destroy_logical_type(&types[i]);
    free(types);
    a->n_cols = n;
    a->rows = 0;
    a->cap = duckdb_vector_size();
    if (!a->chunk)
        a->failed = true;
    return a->chunk != NULL;
}

static duckdb_vector col_vector(weir_appender *a, size_t col)
{
    if (!col_chunk(a) || col >= a->n_cols)
        return NULL;
    return duckdb_data_chunk_get_vector(a->chunk, col);
}

void weir__appender_col_null(weir_appender *a, size_t col)
{
    duckdb_vector v = col_vector(a, col);
    if (!v)
        return;
    duckdb_vector_ensure_validity_writable(v);
    duckdb_validity_set_row_invalid(duckdb_vector_get_validity(v), a->rows);
}

void weir__appender_col_bytes(weir_appender *a, size_t col, const void *p,
                              size_t len)
{
    duckdb_vector v = col_vector(a, col);
    if (v && !p)
        weir__appender_col_null(a, col);
    else if (v)
        duckdb_vector_assign_string_element_len(v, a->rows, (const char *)p,
                                                (idx_t)len);
}

void weir__appender_col_i32(weir_appender *a, size_t col, int32_t x)
{
    duckdb_vector v = col_vector(a, col);
    if (v)
        ((int32_t *)duckdb_vector_get_data(v))[a->rows] = x;
}

void weir__appender_col_i64(weir_appender *a, size_t col, int64_t x)
{
    duckdb_vector v = col_vector(a, col);
    if (v)
        ((int64_t *)duckdb_vector_get_data(v))[a->rows] = x;
}

static void col_flush(weir_appender *a)
{
    if (!a->chunk || !a->rows || a->failed)
        return;
    duckdb_data_chunk_set_size(a->chunk, a->rows);
    if (duckdb_append_data_chunk(a->app, a->chunk) == DuckDBError)
        a->failed = true;
    duckdb_data_chunk_reset(a->chunk);
    a->rows = 0;
}

void weir__appender_col_end_row(weir_appender *a)
{
    if (!col_chunk(a))
        return;
    if (++a->rows == a->cap)
        col_flush(a);
}

int weir__appender_close(weir_appender *a, weir_error *err)
{
    if (!a)
        return 0;
    col_flush(a);
    if (a->chunk)
        duckdb_destroy_data_chunk(&a->chunk);
    int rc = 0;
    if (a->failed || duckdb_appender_flush(a->app) == DuckDBError)
        rc = weir__db_error(err, "cannot append: ", duckdb_appender_error(a->app),
                          a->memory_limit);
    duckdb_appender_destroy(&a->app);
    free(a);
    return rc;
}
