/*
 * Small helpers the engine's files share: physical names of tables and of
 * weir's metadata tables, column lists, comments, running a built
 * statement.
 */
#include "engine/common.h"

#include <string.h>

void weir__meta_table(weir_buf *b, const char *catalog, const char *table)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__buf_put_sql_ident(b, alias);
    weir__buf_puts(b, "._weir.");
    weir__buf_puts(b, table);
}

/* The catalog whose _weir schema keeps a flow's checkpoints: its target's
 * (sinks keep theirs in the pipeline's default catalog). */
const char *weir__state_catalog(const weir_graph *g, const weir_gdataset *t)
{
    return t->catalog ? t->catalog : g->default_catalog;
}

void weir__phys(weir_buf *b, const weir_gdataset *d)
{
    weir__storage_table_ref(b, d->catalog, d->database, d->name);
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


void weir__column_defs(weir_buf *b, const weir_schema *s)
{
    weir__buf_putc(b, '(');
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_putc(b, ' ');
        weir__buf_puts(b, s->cols[i].duck_type);
        if (!s->cols[i].nullable)
            weir__buf_puts(b, " NOT NULL");
    }
    weir__buf_putc(b, ')');
}

void weir__comments(weir_buf *b, const weir_gdataset *d)
{
    const char *comment = d->def->comment;
    if (comment) {
        weir__buf_puts(b, "; COMMENT ON TABLE ");
        weir__phys(b, d);
        weir__buf_puts(b, " IS ");
        weir__buf_put_sql_string(b, comment);
    }
    for (size_t i = 0; i < d->schema.n; i++) {
        if (!d->schema.cols[i].comment)
            continue;
        weir__buf_puts(b, "; COMMENT ON COLUMN ");
        weir__phys(b, d);
        weir__buf_putc(b, '.');
        weir__buf_put_sql_ident(b, d->schema.cols[i].name);
        weir__buf_puts(b, " IS ");
        weir__buf_put_sql_string(b, d->schema.cols[i].comment);
    }
}


int weir__table_epoch(weir_conn *c, const weir_gdataset *d, int64_t *out,
                       weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT coalesce(max(epoch), 0) FROM ");
    weir__meta_table(&q, d->catalog, "tables");
    weir__buf_puts(&q, " WHERE name = ");
    weir__buf_put_sql_string(&q, d->display);
    int rc = weir__scalar_buf(c, &q, out, NULL, err);
    weir__buf_free(&q);
    return rc;
}

bool weir__flow_reads_files(const weir_graph *g, const weir_gflow *f, int depth)
{
    for (size_t i = 0; depth < 64 && i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (in->is_files && in->streaming)
            return true;
        if (in->dataset >= 0) {
            const weir_gdataset *d = &g->datasets[in->dataset];
            if ((d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW) &&
                d->n_flows &&
                weir__flow_reads_files(g, &g->flows[d->flows[0]], depth + 1))
                return true;
        }
    }
    return false;
}
