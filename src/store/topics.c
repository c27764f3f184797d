/*
 * Local Kafka topics (see topics.h): the table's definition, in DuckDB
 * types matching the Kafka source's columns (docs/kafka.md), and the
 * partition query the Kafka source plans its batches with.
 */
#include "store/topics.h"

#include "store/storage.h"

void weir__topics_ref(weir_buf *out, const char *catalog)
{
    weir__storage_table_ref(out, catalog, WEIR_TOPICS_DATABASE,
                            WEIR_TOPICS_TABLE);
}

int weir__topics_create(weir_conn *c, const char *catalog, weir_error *err)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "CREATE SCHEMA IF NOT EXISTS ");
    weir__buf_put_sql_ident(&q, alias);
    weir__buf_puts(&q, "." WEIR_TOPICS_DATABASE "; CREATE TABLE IF NOT EXISTS ");
    weir__topics_ref(&q, catalog);
    weir__buf_puts(&q, " (\"key\" BLOB, \"value\" BLOB, \"topic\" VARCHAR, "
                       "\"partition\" INTEGER, \"offset\" BIGINT, "
                       "\"timestamp\" TIMESTAMP, \"timestampType\" INTEGER, "
                       "\"headers\" STRUCT(\"key\" VARCHAR, \"value\" BLOB)[])");
    int rc = weir__exec_buf(c, &q, err);
    weir__buf_free(&q);
    return rc;
}

int weir__topics_partitions(weir_conn *c, const char *catalog, weir_rows **out,
                            weir_error *err)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM duckdb_tables() WHERE "
                       "database_name = ");
    weir__buf_put_sql_string(&q, alias);
    weir__buf_puts(&q, " AND schema_name = '" WEIR_TOPICS_DATABASE
                       "' AND table_name = '" WEIR_TOPICS_TABLE "'");
    int64_t n = 0;
    int rc = weir__scalar_buf(c, &q, &n, NULL, err);
    weir__buf_free(&q);
    if (rc)
        return rc;
    if (n == 0)
        weir__buf_puts(&q, "SELECT NULL, NULL, NULL, NULL WHERE false");
    else {
        weir__buf_puts(&q, "SELECT \"topic\", \"partition\", min(\"offset\"), "
                           "max(\"offset\") + 1 FROM ");
        weir__topics_ref(&q, catalog);
        weir__buf_puts(&q, " WHERE \"topic\" IS NOT NULL AND \"partition\" >= 0 "
                           "GROUP BY ALL ORDER BY ALL");
    }
    rc = weir__query_buf(c, &q, out, err);
    weir__buf_free(&q);
    return rc;
}
