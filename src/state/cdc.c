/*
 * AUTO CDC's hidden state tables (see cdc.h): their names and columns.
 */
#include "state/cdc.h"

#include <stdio.h>

#include "state/internal.h"

static void table_name(char *out, size_t size, const char *target,
                       const char *what)
{
    snprintf(out, size, "autocdc_%s:%s", what, target);
}

void weir__autocdc_table(weir_buf *q, const char *catalog, const char *target,
                         const char *what)
{
    char name[900];
    table_name(name, sizeof(name), target, what);
    weir__state_hidden_table(q, catalog, name);
}

int weir__autocdc_table_columns(weir_conn *c, const char *catalog,
                                const char *target, const char *what,
                                bool *exists, weir_db_column **cols,
                                size_t *n, weir_arena *a, weir_error *err)
{
    char alias[300], name[900];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    table_name(name, sizeof(name), target, what);
    return weir__conn_table_columns(c, alias, WEIR_META_SCHEMA, name, exists,
                                    NULL, cols, n, a, err);
}
