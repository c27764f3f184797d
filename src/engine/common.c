/*
 * Small helpers the engine's files share: physical names of tables and of
 * weir's metadata tables, column lists, comments, running a built
 * statement.
 */
#include "engine/common.h"

#include <string.h>

#include "util/str.h"

void weir__phys(weir_buf *b, const weir_gdataset *d)
{
    weir__storage_table_ref(b, d->catalog, d->database, d->name);
}

void weir__cli_name(weir_buf *b, const weir_graph *g, const weir_gdataset *d)
{
    const char *parts[3] = { d->catalog, d->database, d->name };
    size_t first = 0;
    if (!strcmp(d->catalog, g->default_catalog))
        first = !strcmp(d->database, g->default_database) ? 2 : 1;
    bool quoted = false;
    for (size_t i = first; i < 3; i++)
        quoted |= !weir__str_is_identifier(parts[i]);
    if (quoted)
        weir__buf_putc(b, '\'');
    for (size_t i = first; i < 3; i++) {
        if (i > first)
            weir__buf_putc(b, '.');
        bool tick = !weir__str_is_identifier(parts[i]);
        if (tick)
            weir__buf_putc(b, '`');
        for (const char *p = parts[i]; *p; p++) {
            if (*p == '`')
                weir__buf_putc(b, '`'); /* doubled inside backticks */
            if (*p == '\'')
                weir__buf_puts(b, "'\\'"); /* close, escaped quote, open */
            weir__buf_putc(b, *p);
        }
        if (tick)
            weir__buf_putc(b, '`');
    }
    if (quoted)
        weir__buf_putc(b, '\'');
}

void weir__column_type(weir_buf *b, const char *duck_type)
{
    weir__buf_puts(b, duck_type);
    /* Binary payloads (Kafka keys and values, serialized records): zstd
     * writes them two to three times faster than DuckDB's default for
     * strings (dictionary + FSST, made for text) and stores them smaller
     * (docs/storage.md). */
    if (!strcmp(duck_type, "BLOB"))
        weir__buf_puts(b, " USING COMPRESSION zstd");
}

void weir__column_defs(weir_buf *b, const weir_schema *s)
{
    weir__buf_putc(b, '(');
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__buf_put_sql_ident(b, s->cols[i].name);
        weir__buf_putc(b, ' ');
        weir__column_type(b, s->cols[i].duck_type);
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


bool weir__flow_reads_files(const weir_graph *g, const weir_gflow *f, int depth)
{
    for (size_t i = 0; depth < 64 && i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (in->source == WEIR_INPUT_FILES && in->streaming)
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

void weir__delta_view(weir_buf *b, weir_storage *st, const weir_gdataset *d)
{
    weir__buf_puts(b, "; CREATE OR REPLACE VIEW ");
    weir__phys(b, d);
    weir__buf_puts(b, " AS SELECT ");
    for (size_t i = 0; i < d->schema.n; i++) {
        const weir_column *c = &d->schema.cols[i];
        weir__buf_puts(b, i ? ", CAST(" : "CAST(");
        weir__buf_put_sql_ident(b, c->name);
        weir__buf_printf(b, " AS %s) AS ", c->duck_type);
        weir__buf_put_sql_ident(b, c->name);
    }
    weir_buf dir = WEIR_BUF_INIT;
    weir__storage_delta_dir(&dir, st, d->location, d->catalog, d->database, d->name);
    weir__buf_puts(b, " FROM delta_scan(");
    weir__buf_put_sql_string(b, weir__buf_cstr(&dir));
    weir__buf_putc(b, ')');
    weir__buf_free(&dir);
}
