/*
 * The _weir schema of a catalog file (see state.h): its DDL, the catalog
 * that holds the state of a flow, and the names of its tables. Hidden
 * state tables made at run time (mv.c, cdc.c) are named here too.
 */
#include "state/internal.h"

#include <stdlib.h>

#include "util/str.h"

/* The _weir schema of a catalog file ('@': the catalog's quoted alias;
 * see weir_catalog_schema). The text is the storage format: its hash is
 * recorded in _weir.meta, so any edit of it (even of white space) runs
 * the script again on every existing file at its next open. Statements
 * are IF NOT EXISTS so that a file of an older version gains what is new
 * and keeps what it has. The file that reads and writes each table: */
static const char SCHEMA_SQL[] =
    "CREATE SCHEMA IF NOT EXISTS @._weir;"
    /* checkpoint.c: checkpoints, flow_state, files; file_schemas.c */
    "CREATE TABLE IF NOT EXISTS @._weir.checkpoints ("
    "  flow VARCHAR, target VARCHAR, generation INTEGER, batch_id BIGINT,"
    "  source VARCHAR, source_epoch BIGINT, end_offset BIGINT, rows BIGINT,"
    "  committed_at TIMESTAMP, update_id VARCHAR);"
    "CREATE TABLE IF NOT EXISTS @._weir.flow_state ("
    "  flow VARCHAR, target VARCHAR, generation INTEGER, batches BIGINT,"
    "  files BIGINT, update_id VARCHAR);"
    "CREATE TABLE IF NOT EXISTS @._weir.files ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, path VARCHAR,"
    "  size BIGINT, mtime BIGINT, batch_id BIGINT, update_id VARCHAR);"
    "CREATE TABLE IF NOT EXISTS @._weir.file_schemas ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, version BIGINT,"
    "  columns JSON, created_at TIMESTAMP, update_id VARCHAR);"
    /* The Kafka source's offsets per partition (checkpoint.c): every
     * partition's position after each batch. */
    "CREATE TABLE IF NOT EXISTS @._weir.kafka_offsets ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, batch_id BIGINT,"
    "  topic VARCHAR, partition INTEGER, start_offset BIGINT,"
    "  end_offset BIGINT, update_id VARCHAR);"
    /* Database sources read by cursor column (checkpoint.c): after each
     * batch, the cursor value it ended at, and a row per row hash of the
     * rows read at that value (NULL hash: none recorded). */
    "CREATE TABLE IF NOT EXISTS @._weir.jdbc_cursors ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, batch_id BIGINT,"
    "  value VARCHAR, hash UBIGINT, update_id VARCHAR);"
    /* What streaming reads of tables consumed (table_reads.c): a
     * fingerprint of the rows read so far after each batch, and a sample
     * of their row hashes (the smallest ones). */
    "CREATE TABLE IF NOT EXISTS @._weir.table_reads ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, batch_id BIGINT,"
    "  columns VARCHAR, rows BIGINT, hash HUGEINT, complete BOOLEAN,"
    "  update_id VARCHAR);"
    "CREATE TABLE IF NOT EXISTS @._weir.table_sample ("
    "  flow VARCHAR, generation INTEGER, source VARCHAR, hash UBIGINT);"
    /* sink.c */
    "CREATE TABLE IF NOT EXISTS @._weir.sink_batches ("
    "  flow VARCHAR, sink VARCHAR, generation INTEGER, batch_id BIGINT,"
    "  state VARCHAR, update_id VARCHAR, committed_at TIMESTAMP, rows BIGINT);"
    /* operator.c: stateful streaming operators' watermarks and what the
     * operator was; their own rows are hidden tables (operator.h). */
    "CREATE TABLE IF NOT EXISTS @._weir.operator_state ("
    "  flow VARCHAR, generation INTEGER, name VARCHAR, value BIGINT);"
    /* tables.c */
    "CREATE TABLE IF NOT EXISTS @._weir.tables ("
    "  name VARCHAR, kind VARCHAR, epoch BIGINT, properties JSON,"
    "  comment VARCHAR, format VARCHAR, partition_cols VARCHAR[],"
    "  cluster_cols VARCHAR[], updated_at TIMESTAMP, update_id VARCHAR);"
    /* A random id of this catalog's state, made when its _weir schema is:
     * recreated state (a deleted storage folder or catalog file) gets a
     * new one, so sink files it names never collide with earlier ones
     * (sink.c). The "schema" row is weir__storage_open's. */
    "CREATE TABLE IF NOT EXISTS @._weir.meta (key VARCHAR, value VARCHAR);"
    "INSERT INTO @._weir.meta SELECT 'state_id', CAST(uuid() AS VARCHAR) "
    "  WHERE NOT EXISTS (SELECT 1 FROM @._weir.meta WHERE key = 'state_id');";

static const weir_catalog_schema SCHEMA = {
    .script = SCHEMA_SQL,
    .version_table = "@." WEIR_META_SCHEMA ".meta",
};

const weir_catalog_schema *weir__state_schema(void)
{
    return &SCHEMA;
}

const char *weir__state_catalog(const weir_graph *g, const weir_gdataset *t)
{
    return t->catalog ? t->catalog : g->default_catalog;
}

void weir__state_table(weir_buf *b, const char *catalog, const char *table)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__buf_put_sql_ident(b, alias);
    weir__buf_puts(b, "." WEIR_META_SCHEMA ".");
    weir__buf_puts(b, table);
}

void weir__state_hidden_table(weir_buf *b, const char *catalog,
                              const char *name)
{
    weir__state_table(b, catalog, "");
    weir__buf_put_sql_ident(b, name);
}

void weir__state_where_source(weir_buf *b, const weir_checkpoint *cp,
                              int64_t gen, const char *source)
{
    weir__buf_puts(b, " WHERE flow = ");
    weir__buf_put_sql_string(b, cp->flow);
    weir__buf_printf(b, " AND generation = %lld AND source = ", (long long)gen);
    weir__buf_put_sql_string(b, source);
}

void weir__state_put_key(weir_buf *b, const weir_checkpoint *cp, int64_t gen,
                         const char *source)
{
    weir__buf_put_sql_string(b, cp->flow);
    weir__buf_printf(b, ", %lld, ", (long long)gen);
    weir__buf_put_sql_string(b, source);
}

int64_t weir__state_cell_i64(const weir_rows *r, size_t row, size_t col)
{
    const char *v = weir__rows_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

/* The tables of the _weir schemas (a dropped, recreated or altered one
 * gets a new oid or column count; dropping the schema drops its tables). */
#define OBJECTS_SQL                                                       \
    "SELECT 'table ' || database_name || '.' || schema_name || '.' || "   \
    "table_name || ' ' || table_oid || ' ' || column_count AS v FROM "     \
    "duckdb_tables() WHERE lower(schema_name) = '" WEIR_META_SCHEMA "'"

int weir__state_print_sql(weir_conn *c, char **out, weir_error *err)
{
    *out = NULL;
    weir_rows *tables = NULL;
    int rc = weir__conn_query(c,
                              "SELECT database_name, schema_name, table_name "
                              "FROM duckdb_tables() WHERE lower(schema_name) "
                              "= '" WEIR_META_SCHEMA "' ORDER BY ALL",
                              &tables, err);
    /* The objects, then each table's row count and an order-independent
     * sum of row hashes, as one text. */
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT string_agg(v, chr(10) ORDER BY v) FROM (" OBJECTS_SQL);
    for (size_t i = 0; !rc && i < tables->n_rows; i++) {
        weir_buf name = WEIR_BUF_INIT;
        for (size_t k = 0; k < 3; k++) {
            if (k)
                weir__buf_putc(&name, '.');
            weir__buf_put_sql_ident(&name, weir__rows_get(tables, i, k));
        }
        weir__buf_puts(&q, " UNION ALL SELECT ");
        weir__buf_put_sql_string(&q, weir__buf_cstr(&name));
        weir__buf_puts(&q, " || ' ' || count(*) || ' ' || coalesce(sum(hash("
                           "\"__weir_row\")::HUGEINT), 0) FROM ");
        weir__buf_puts(&q, weir__buf_cstr(&name));
        weir__buf_puts(&q, " AS \"__weir_row\"");
        if (name.failed)
            q.failed = true;
        weir__buf_free(&name);
    }
    weir__buf_putc(&q, ')');
    weir__rows_free(tables);
    if (!rc && q.failed)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && !(*out = weir__buf_detach(&q)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__buf_free(&q);
    return rc;
}
