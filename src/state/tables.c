/*
 * The pipeline's tables as weir recorded them (see tables.h): every read
 * and write of _weir.tables.
 */
#include "state/tables.h"

#include <stdlib.h>
#include <string.h>

#include "state/internal.h"
#include "util/str.h"

/* The signature column: a row's content, in the form put_signature
 * writes it. */
#define SIGNATURE_SQL                                                       \
    "concat_ws(chr(31), kind, CAST(epoch AS VARCHAR), CAST(properties AS " \
    "VARCHAR), coalesce(comment, chr(30)), format, coalesce("              \
    "array_to_string(partition_cols, ','), ''), coalesce(array_to_string(" \
    "cluster_cols, ','), ''))"

int weir__tables_load(weir_table_records *out, weir_storage *st,
                      weir_error *err)
{
    memset(out, 0, sizeof(*out));
    weir__arena_init(&out->arena);
    weir__map_init(&out->by_name, true);
    weir_buf q = WEIR_BUF_INIT;
    size_t it = 0;
    const char *alias;
    while (weir__map_next(&st->attached, &it, &alias, NULL)) {
        if (q.len)
            weir__buf_puts(&q, " UNION ALL ");
        weir__buf_puts(&q, "SELECT name, epoch, array_to_string(partition_cols, "
                           "','), " SIGNATURE_SQL ", kind, format FROM ");
        weir__buf_put_sql_ident(&q, alias);
        weir__buf_puts(&q, "." WEIR_META_SCHEMA ".tables");
    }
    int rc = q.len ? weir__query_buf(st->conn, &q, &out->rows, err) : 0;
    weir__buf_free(&q);
    weir_rows *r = out->rows;
    for (size_t i = 0; !rc && r && i < r->n_rows; i++) {
        weir_table_record *m = weir__arena_alloc(&out->arena, sizeof(*m));
        if (!m)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        m->epoch = weir__state_cell_i64(r, i, 1);
        m->partitions = weir__rows_get(r, i, 2);
        m->signature = weir__rows_get(r, i, 3);
        m->kind = weir__rows_get(r, i, 4);
        m->format = weir__rows_get(r, i, 5);
        if (weir__map_put(&out->by_name, weir__rows_get(r, i, 0), m))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return rc;
}

const weir_table_record *weir__tables_get(const weir_table_records *r,
                                          const weir_gdataset *d)
{
    return weir__map_get(&r->by_name, d->display);
}

void weir__tables_free(weir_table_records *r)
{
    weir__map_free(&r->by_name);
    weir__rows_free(r->rows);
    weir__arena_free(&r->arena);
    r->rows = NULL;
}

static void list_sql(weir_buf *b, const char **items, size_t n)
{
    weir__buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__buf_put_sql_string(b, items[i]);
    }
    weir__buf_puts(b, "]::VARCHAR[]");
}

static void props_json(weir_buf *b, const weir_gdataset *d)
{
    weir__buf_putc(b, '{');
    for (size_t i = 0; i < d->def->n_properties; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__buf_put_json_string(b, d->def->properties[i].key);
        weir__buf_puts(b, ": ");
        weir__buf_put_json_string(b, d->def->properties[i].value);
    }
    weir__buf_putc(b, '}');
}

static void names_csv(weir_buf *b, const char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(b, "%s%s", i ? "," : "", items[i]);
}

void weir__tables_put_partitions(weir_buf *b, const weir_gdataset *d)
{
    names_csv(b, d->def->partition_cols, d->def->n_partition_cols);
}

/* The content of d's row at epoch as SIGNATURE_SQL spells it. */
static void put_signature(weir_buf *b, const weir_gdataset *d, int64_t epoch)
{
    weir__buf_printf(b, "%s\x1f%lld\x1f", weir__kind_name(d->kind),
                     (long long)epoch);
    props_json(b, d);
    weir__buf_printf(b, "\x1f%s\x1f%s\x1f",
                     d->def->comment ? d->def->comment : "\x1e",
                     d->format ? d->format : "duckdb");
    names_csv(b, d->def->partition_cols, d->def->n_partition_cols);
    weir__buf_putc(b, '\x1f');
    names_csv(b, d->def->cluster_cols, d->def->n_cluster_cols);
}

/* "alias"._weir.tables WHERE name = '<d>' */
static void row_of(weir_buf *b, const weir_gdataset *d)
{
    weir__state_table(b, d->catalog, "tables");
    weir__buf_puts(b, " WHERE name = ");
    weir__buf_put_sql_string(b, d->display);
}

void weir__tables_put(weir_buf *b, const weir_gdataset *d, int64_t epoch,
                      const weir_table_record *old, const char *update_id)
{
    if (old && old->signature) {
        weir_buf sig = WEIR_BUF_INIT;
        put_signature(&sig, d, epoch);
        bool same = !sig.failed && strcmp(weir__buf_cstr(&sig), old->signature) == 0;
        weir__buf_free(&sig);
        if (same)
            return;
    }
    weir__buf_puts(b, "; DELETE FROM ");
    row_of(b, d);
    weir__buf_puts(b, "; INSERT INTO ");
    weir__state_table(b, d->catalog, "tables");
    weir__buf_puts(b, " VALUES (");
    weir__buf_put_sql_string(b, d->display);
    weir__buf_puts(b, ", ");
    weir__buf_put_sql_string(b, weir__kind_name(d->kind));
    weir__buf_printf(b, ", %lld, ", (long long)epoch);
    weir_buf props = WEIR_BUF_INIT;
    props_json(&props, d);
    weir__buf_put_sql_string(b, weir__buf_cstr(&props));
    weir__buf_free(&props);
    weir__buf_puts(b, ", ");
    if (d->def->comment)
        weir__buf_put_sql_string(b, d->def->comment);
    else
        weir__buf_puts(b, "NULL");
    weir__buf_puts(b, ", ");
    weir__buf_put_sql_string(b, d->format ? d->format : "duckdb");
    weir__buf_puts(b, ", ");
    list_sql(b, d->def->partition_cols, d->def->n_partition_cols);
    weir__buf_puts(b, ", ");
    list_sql(b, d->def->cluster_cols, d->def->n_cluster_cols);
    weir__buf_puts(b, ", now()::TIMESTAMP, ");
    weir__buf_put_sql_string(b, update_id);
    weir__buf_putc(b, ')');
}

/* " WHERE lower(name) = lower('<d>')" */
static void where_name(weir_buf *b, const weir_gdataset *d)
{
    weir__buf_puts(b, " WHERE lower(name) = lower(");
    weir__buf_put_sql_string(b, d->display);
    weir__buf_putc(b, ')');
}

void weir__tables_put_forget(weir_buf *b, const weir_gdataset *d)
{
    weir__buf_puts(b, "; DELETE FROM ");
    weir__state_table(b, d->catalog, "tables");
    where_name(b, d);
}

int weir__tables_recorded_kind(weir_conn *c, const weir_gdataset *d,
                               char **kind, bool *resettable, weir_error *err)
{
    *kind = NULL;
    *resettable = true;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT kind, (SELECT any_value(j.value ->> '$') FROM "
                       "json_each(properties) AS j WHERE lower(j.key) = "
                       "'pipelines.reset.allowed') FROM ");
    weir__state_table(&q, d->catalog, "tables");
    where_name(&q, d);
    weir_rows *r = NULL;
    int rc = weir__query_buf(c, &q, &r, err);
    weir__buf_free(&q);
    const char *k = !rc && r->n_rows ? weir__rows_get(r, 0, 0) : NULL;
    const char *allowed = k ? weir__rows_get(r, 0, 1) : NULL;
    if (allowed)
        weir__str_parse_bool(allowed, resettable);
    if (k && !(*kind = strdup(k)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__rows_free(r);
    return rc;
}

int weir__tables_epoch(weir_conn *c, const weir_gdataset *d, int64_t *out,
                       weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT coalesce(max(epoch), 0) FROM ");
    row_of(&q, d);
    int rc = weir__scalar_buf(c, &q, out, NULL, err);
    weir__buf_free(&q);
    return rc;
}

int weir__tables_bump_epoch(weir_conn *c, const weir_gdataset *d,
                            weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__state_table(&q, d->catalog, "tables");
    weir__buf_puts(&q, " SET epoch = epoch + 1 WHERE name = ");
    weir__buf_put_sql_string(&q, d->display);
    int rc = weir__exec_buf(c, &q, err);
    weir__buf_free(&q);
    return rc;
}

/* "alias"._weir.tables */
static void tables_of(weir_buf *q, const char *alias)
{
    weir__buf_put_sql_ident(q, alias);
    weir__buf_puts(q, "." WEIR_META_SCHEMA ".tables");
}

int weir__tables_managed_kind(weir_conn *c, const char *alias,
                              const char *schema, const char *table,
                              char **kind, weir_error *err)
{
    *kind = NULL;
    weir_buf suffix = WEIR_BUF_INIT;
    weir__buf_printf(&suffix, ".%s.%s", schema, table);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT kind || CASE WHEN ends_with(lower(name), lower(");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&suffix));
    weir__buf_puts(&q, ")) THEN '' ELSE ' (its quarantine table)' END FROM ");
    tables_of(&q, alias);
    weir__buf_puts(&q, " WHERE ends_with(lower(name), lower(");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&suffix));
    weir__buf_puts(&q, ")) OR ends_with(lower(name) || '_quarantine', lower(");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&suffix));
    weir__buf_puts(&q, ")) ORDER BY 1 LIMIT 1");
    int rc = (q.failed || suffix.failed)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__conn_scalar_text(c, weir__buf_cstr(&q), kind, err);
    weir__buf_free(&q);
    weir__buf_free(&suffix);
    return rc;
}

int weir__tables_managed_in_schema(weir_conn *c, const char *alias,
                                   const char *schema, char **name,
                                   weir_error *err)
{
    *name = NULL;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT min(name) FROM ");
    tables_of(&q, alias);
    weir__buf_puts(&q, " WHERE lower(name) LIKE '%.' || lower(");
    weir__buf_put_sql_string(&q, schema);
    weir__buf_puts(&q, ") || '.%'");
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_scalar_text(c, weir__buf_cstr(&q), name,
                                               err);
    weir__buf_free(&q);
    return rc;
}
