/*
 * Appending rows to a table through DuckDB's appender, a row at a time
 * (see db.h).
 */
#include "store/db.h"

#include <stdlib.h>

#include <duckdb.h>

#include "store/db_conn.h"
#include "weir.h"

struct weir_appender {
    duckdb_appender app;
    bool failed;
    const char *memory_limit;
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

void weir__appender_end_row(weir_appender *a)
{
    if (duckdb_appender_end_row(a->app) == DuckDBError)
        a->failed = true;
}

int weir__appender_close(weir_appender *a, weir_error *err)
{
    if (!a)
        return 0;
    int rc = 0;
    if (a->failed || duckdb_appender_flush(a->app) == DuckDBError)
        rc = weir__db_error(err, "cannot append: ", duckdb_appender_error(a->app),
                          a->memory_limit);
    duckdb_appender_destroy(&a->app);
    free(a);
    return rc;
}
