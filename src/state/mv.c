/*
 * Materialized views' hidden state tables (see mv.h): their names, and
 * finding and dropping them.
 */
#include "state/mv.h"

#include "state/internal.h"

#define STATE_PREFIX "mv_state "

/* The name of a state table (see weir__mv_state_table), unquoted. */
static void state_name(weir_buf *b, const weir_gdataset *v, long col)
{
    weir__buf_puts(b, STATE_PREFIX);
    weir__buf_puts(b, v->display);
    if (col >= 0)
        weir__buf_printf(b, " #%ld", col);
}

void weir__mv_state_table(weir_buf *q, const weir_gdataset *v, long col)
{
    weir_buf name = WEIR_BUF_INIT;
    state_name(&name, v, col);
    weir__state_hidden_table(q, v->catalog, weir__buf_cstr(&name));
    if (name.failed)
        q->failed = true;
    weir__buf_free(&name);
}

/* "SELECT <what> FROM duckdb_tables() WHERE database_name = '<v's
 * catalog>' AND schema_name = '_weir' AND " */
static void tables_where(weir_buf *q, const char *what, const weir_gdataset *v)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), v->catalog);
    weir__buf_printf(q, "SELECT %s FROM duckdb_tables() WHERE database_name = ",
                     what);
    weir__buf_put_sql_string(q, alias);
    weir__buf_puts(q, " AND schema_name = '" WEIR_META_SCHEMA "' AND ");
}

int weir__mv_state_drop_tables(weir_conn *c, const weir_gdataset *v,
                               weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT, name = WEIR_BUF_INIT;
    state_name(&name, v, -1);
    tables_where(&q, "table_name", v);
    weir__buf_puts(&q, "(table_name = ");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&name));
    weir__buf_puts(&name, " #");
    weir__buf_puts(&q, " OR starts_with(table_name, ");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&name));
    weir__buf_puts(&q, "))");
    if (name.failed)
        q.failed = true;
    weir_rows *rows = NULL;
    int rc = weir__query_buf(c, &q, &rows, err);
    for (size_t i = 0; !rc && i < rows->n_rows; i++) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "DROP TABLE ");
        weir__state_hidden_table(&q, v->catalog, weir__rows_get(rows, i, 0));
        rc = weir__exec_buf(c, &q, err);
    }
    weir__rows_free(rows);
    weir__buf_free(&q);
    weir__buf_free(&name);
    return rc;
}

int weir__mv_state_exists(weir_conn *c, const weir_gdataset *v, long col,
                          bool *out, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT, name = WEIR_BUF_INIT;
    state_name(&name, v, col);
    tables_where(&q, "count(*)", v);
    weir__buf_puts(&q, "table_name = ");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&name));
    if (name.failed)
        q.failed = true;
    weir__buf_free(&name);
    int64_t n = 0;
    int rc = weir__scalar_buf(c, &q, &n, NULL, err);
    weir__buf_free(&q);
    *out = !rc && n == 1;
    return rc;
}
