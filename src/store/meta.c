/*
 * Names of weir's metadata tables and running built statements (see
 * meta.h).
 */
#include "store/meta.h"

#include "store/storage.h"

void weir__meta_table(weir_buf *b, const char *catalog, const char *table)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__buf_put_sql_ident(b, alias);
    weir__buf_puts(b, "." WEIR_META_SCHEMA ".");
    weir__buf_puts(b, table);
}

int weir__exec_buf(weir_conn *c, weir_buf *sql, weir_error *err)
{
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_exec(c, weir__buf_cstr(sql), NULL, err);
}

int weir__query_buf(weir_conn *c, weir_buf *sql, weir_rows **out,
                    weir_error *err)
{
    *out = NULL;
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_query(c, weir__buf_cstr(sql), out, err);
}

int weir__scalar_buf(weir_conn *c, weir_buf *sql, int64_t *out, bool *null,
                     weir_error *err)
{
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_scalar_i64(c, weir__buf_cstr(sql), out, null, err);
}
