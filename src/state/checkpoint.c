/*
 * A flow's progress (see checkpoint.h): every read and write of
 * _weir.checkpoints, _weir.flow_state, the file manifest _weir.files and
 * the Kafka sources' partition offsets _weir.kafka_offsets; a full
 * refresh's new generation and a project's relocation.
 */
#include "state/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "state/internal.h"

void weir__state_where_flow(weir_buf *b, const weir_checkpoint *cp)
{
    weir__buf_puts(b, " WHERE target = ");
    weir__buf_put_sql_string(b, cp->target);
    weir__buf_puts(b, " AND flow = ");
    weir__buf_put_sql_string(b, cp->flow);
}

void weir__checkpoint_put_row_count(weir_buf *q, const weir_checkpoint *cp)
{
    weir__buf_puts(q, "SELECT count(*) FROM ");
    weir__state_table(q, cp->catalog, "checkpoints");
    weir__state_where_flow(q, cp);
}

int weir__checkpoint_position(const weir_checkpoint *cp, int64_t *gen,
                              int64_t *next_batch)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, max(batch_id) + 1 FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__state_where_flow(&q, cp);
    weir__buf_puts(&q, " GROUP BY generation ORDER BY generation DESC LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    *gen = *next_batch = 0;
    if (!rc && r->n_rows) {
        *gen = weir__state_cell_i64(r, 0, 0);
        *next_batch = weir__state_cell_i64(r, 0, 1);
    }
    weir__rows_free(r);
    return rc;
}

int weir__checkpoint_flow_state(const weir_checkpoint *cp, weir_flow_state *fs)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, batches, files FROM ");
    weir__state_table(&q, cp->catalog, "flow_state");
    weir__state_where_flow(&q, cp);
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    memset(fs, 0, sizeof(*fs));
    if (!rc && r->n_rows) {
        fs->found = true;
        fs->gen = weir__state_cell_i64(r, 0, 0);
        fs->batches = weir__state_cell_i64(r, 0, 1);
        fs->files = weir__state_cell_i64(r, 0, 2);
    }
    weir__rows_free(r);
    return rc;
}

int weir__checkpoint_set_flow_state(const weir_checkpoint *cp, int64_t gen,
                                    int64_t batches, int64_t new_files)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__state_table(&q, cp->catalog, "flow_state");
    weir__buf_printf(&q, " SET generation = %lld, batches = %lld, files = "
                         "CASE WHEN generation = %lld THEN files ELSE 0 END "
                         "+ %lld, update_id = ",
                     (long long)gen, (long long)batches, (long long)gen,
                     (long long)new_files);
    weir__buf_put_sql_string(&q, cp->update_id);
    weir__state_where_flow(&q, cp);
    int64_t changed = 0;
    int rc = q.failed ? WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(cp->conn, weir__buf_cstr(&q), &changed,
                                        cp->err);
    if (!rc && changed == 0) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "INSERT INTO ");
        weir__state_table(&q, cp->catalog, "flow_state");
        weir__buf_puts(&q, " VALUES (");
        weir__buf_put_sql_string(&q, cp->flow);
        weir__buf_puts(&q, ", ");
        weir__buf_put_sql_string(&q, cp->target);
        weir__buf_printf(&q, ", %lld, %lld, %lld, ", (long long)gen,
                         (long long)batches, (long long)new_files);
        weir__buf_put_sql_string(&q, cp->update_id);
        weir__buf_putc(&q, ')');
        rc = weir__exec_buf(cp->conn, &q, cp->err);
    }
    weir__buf_free(&q);
    return rc;
}

int weir__checkpoint_source_end(const weir_checkpoint *cp, int64_t gen,
                                const char *key, int64_t *end, int64_t *epoch,
                                bool *none)
{
    weir_buf q = WEIR_BUF_INIT;
    /* The latest batch's: a table source's position moves back when the
     * table was replaced (sources/table.c). */
    weir__buf_puts(&q, "SELECT arg_max(end_offset, batch_id), "
                       "arg_max(source_epoch, batch_id) FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__state_where_flow(&q, cp);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id >= 0 AND source = ",
                     (long long)gen);
    weir__buf_put_sql_string(&q, key);
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    *end = *epoch = 0;
    *none = true;
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0)) {
        *none = false;
        *end = weir__state_cell_i64(r, 0, 0);
        *epoch = weir__state_cell_i64(r, 0, 1);
    }
    weir__rows_free(r);
    return rc;
}

int weir__checkpoint_add_batch(const weir_checkpoint *cp, int64_t gen,
                               int64_t batch_id, const weir_checkpoint_row *rows,
                               size_t n, int64_t rows_written)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__buf_puts(&q, " VALUES ");
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(&q, ", ");
        weir__buf_putc(&q, '(');
        weir__buf_put_sql_string(&q, cp->flow);
        weir__buf_puts(&q, ", ");
        weir__buf_put_sql_string(&q, cp->target);
        weir__buf_printf(&q, ", %lld, %lld, ", (long long)gen,
                         (long long)batch_id);
        weir__buf_put_sql_string(&q, rows[i].source);
        weir__buf_printf(&q, ", %lld, %lld, %lld, now()::TIMESTAMP, ",
                         (long long)rows[i].epoch, (long long)rows[i].end,
                         (long long)rows_written);
        weir__buf_put_sql_string(&q, cp->update_id);
        weir__buf_putc(&q, ')');
    }
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__checkpoint_accounted_rows(const weir_checkpoint *cp, int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT coalesce(sum(r), 0) FROM (SELECT max(c.rows) "
                       "AS r FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__buf_puts(&q, " AS c JOIN (SELECT flow, max(generation) AS g FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__buf_puts(&q, " WHERE target = ");
    weir__buf_put_sql_string(&q, cp->target);
    weir__buf_puts(&q, " GROUP BY flow) AS m ON c.flow = m.flow AND "
                       "c.generation = m.g WHERE c.target = ");
    weir__buf_put_sql_string(&q, cp->target);
    weir__buf_puts(&q, " AND c.batch_id >= 0 GROUP BY c.flow, c.batch_id)");
    *out = 0;
    int rc = weir__scalar_buf(cp->conn, &q, out, NULL, cp->err);
    weir__buf_free(&q);
    return rc;
}

/* ---- the file manifest ---------------------------------------------------- */

int weir__checkpoint_manifest_count(const weir_checkpoint *cp, int64_t gen,
                                    int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__state_table(&q, cp->catalog, "files");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, cp->flow);
    weir__buf_printf(&q, " AND generation = %lld", (long long)gen);
    *out = 0;
    int rc = weir__scalar_buf(cp->conn, &q, out, NULL, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__checkpoint_manifest_read(const weir_checkpoint *cp, int64_t gen,
                                   const char *source, weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT path, size, mtime FROM ");
    weir__state_table(&q, cp->catalog, "files");
    weir__state_where_source(&q, cp, gen, source);
    weir__buf_puts(&q, " ORDER BY batch_id"); /* the latest read wins */
    int rc = weir__query_buf(cp->conn, &q, out, cp->err);
    weir__buf_free(&q);
    return rc;
}

/* Insert n rows into the _weir table `table`, 500 per statement: each
 * row is (flow, generation, source, ...what row() appends..., update_id). */
typedef void (*put_row)(weir_buf *q, size_t j, const void *ctx);
static int insert_rows(const weir_checkpoint *cp, const char *table,
                       int64_t gen, const char *source, size_t n, put_row row,
                       const void *ctx)
{
    weir_buf q = WEIR_BUF_INIT;
    int rc = 0;
    for (size_t k = 0; !rc && k < n; k += 500) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "INSERT INTO ");
        weir__state_table(&q, cp->catalog, table);
        weir__buf_puts(&q, " VALUES ");
        for (size_t j = k; j < n && j < k + 500; j++) {
            weir__buf_puts(&q, j > k ? ", (" : "(");
            weir__state_put_key(&q, cp, gen, source);
            weir__buf_puts(&q, ", ");
            row(&q, j, ctx);
            weir__buf_puts(&q, ", ");
            weir__buf_put_sql_string(&q, cp->update_id);
            weir__buf_putc(&q, ')');
        }
        rc = weir__exec_buf(cp->conn, &q, cp->err);
    }
    weir__buf_free(&q);
    return rc;
}

typedef struct manifest_rows {
    int64_t batch_id;
    const char *const *paths;
    const uint64_t *sizes;
    const int64_t *mtimes;
} manifest_rows;

static void manifest_row(weir_buf *q, size_t j, const void *ctx)
{
    const manifest_rows *m = ctx;
    weir__buf_put_sql_string(q, m->paths[j]);
    weir__buf_printf(q, ", %llu, %lld, %lld", (unsigned long long)m->sizes[j],
                     (long long)m->mtimes[j], (long long)m->batch_id);
}

int weir__checkpoint_manifest_add(const weir_checkpoint *cp, int64_t gen,
                                  int64_t batch_id, const char *source,
                                  const char *const *paths,
                                  const uint64_t *sizes, const int64_t *mtimes,
                                  size_t n)
{
    manifest_rows m = { batch_id, paths, sizes, mtimes };
    return insert_rows(cp, "files", gen, source, n, manifest_row, &m);
}

/* ---- per-partition offsets of Kafka sources --------------------------------- */

int weir__checkpoint_partitions_read(const weir_checkpoint *cp, int64_t gen,
                                     const char *source, weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT, w = WEIR_BUF_INIT;
    weir__state_where_source(&w, cp, gen, source);
    weir__buf_puts(&q, "SELECT topic, partition, end_offset FROM ");
    weir__state_table(&q, cp->catalog, "kafka_offsets");
    weir__buf_puts(&q, weir__buf_cstr(&w));
    weir__buf_puts(&q, " AND batch_id = (SELECT max(batch_id) FROM ");
    weir__state_table(&q, cp->catalog, "kafka_offsets");
    weir__buf_puts(&q, weir__buf_cstr(&w));
    weir__buf_puts(&q, ") ORDER BY topic, partition");
    int rc = weir__query_buf(cp->conn, &q, out, cp->err);
    weir__buf_free(&q);
    weir__buf_free(&w);
    return rc;
}

typedef struct partition_rows {
    int64_t batch_id;
    const weir_checkpoint_partition *parts;
} partition_rows;

static void partition_row(weir_buf *q, size_t j, const void *ctx)
{
    const partition_rows *p = ctx;
    weir__buf_printf(q, "%lld, ", (long long)p->batch_id);
    weir__buf_put_sql_string(q, p->parts[j].topic);
    weir__buf_printf(q, ", %d, %lld, %lld", (int)p->parts[j].partition,
                     (long long)p->parts[j].start, (long long)p->parts[j].end);
}

int weir__checkpoint_partitions_add(const weir_checkpoint *cp, int64_t gen,
                                    int64_t batch_id, const char *source,
                                    const weir_checkpoint_partition *parts,
                                    size_t n)
{
    partition_rows p = { batch_id, parts };
    return insert_rows(cp, "kafka_offsets", gen, source, n, partition_row, &p);
}

/* ---- cursors of database sources --------------------------------------- */

/* WHERE ... AND batch_id = the latest batch of the source. */
static void where_latest_cursor(weir_buf *q, const weir_checkpoint *cp,
                                int64_t gen, const char *source)
{
    weir_buf w = WEIR_BUF_INIT;
    weir__state_where_source(&w, cp, gen, source);
    weir__buf_puts(q, weir__buf_cstr(&w));
    weir__buf_puts(q, " AND batch_id = (SELECT max(batch_id) FROM ");
    weir__state_table(q, cp->catalog, "jdbc_cursors");
    weir__buf_puts(q, weir__buf_cstr(&w));
    weir__buf_putc(q, ')');
    weir__buf_free(&w);
}

int weir__checkpoint_cursor_read(const weir_checkpoint *cp, int64_t gen,
                                 const char *source, weir_arena *a,
                                 const char **value)
{
    *value = NULL;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT value FROM ");
    weir__state_table(&q, cp->catalog, "jdbc_cursors");
    where_latest_cursor(&q, cp, gen, source);
    weir__buf_puts(&q, " LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0)) {
        *value = weir__arena_strdup(a, weir__rows_get(r, 0, 0));
        if (!*value)
            rc = WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__rows_free(r);
    weir__buf_free(&q);
    return rc;
}

void weir__checkpoint_put_cursor_hashes(weir_buf *q, const weir_checkpoint *cp,
                                        int64_t gen, const char *source)
{
    weir__buf_puts(q, "(SELECT hash FROM ");
    weir__state_table(q, cp->catalog, "jdbc_cursors");
    where_latest_cursor(q, cp, gen, source);
    weir__buf_puts(q, " AND hash IS NOT NULL)");
}

int weir__checkpoint_cursor_add(const weir_checkpoint *cp, int64_t gen,
                                int64_t batch_id, const char *source,
                                const char *value, const char *hashes_sql)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__state_table(&q, cp->catalog, "jdbc_cursors");
    weir__buf_puts(&q, " SELECT ");
    weir__state_put_key(&q, cp, gen, source);
    weir__buf_printf(&q, ", %lld, ", (long long)batch_id);
    weir__buf_put_sql_string(&q, value);
    weir__buf_puts(&q, ", h.hash, ");
    weir__buf_put_sql_string(&q, cp->update_id);
    /* The value's row even when no hash is recorded. */
    weir__buf_printf(&q, " FROM (SELECT CAST(NULL AS UBIGINT) AS hash UNION ALL "
                         "SELECT CAST(hash AS UBIGINT) FROM (%s)) h WHERE h.hash IS "
                         "NOT NULL OR NOT EXISTS (SELECT 1 FROM (%s) WHERE hash IS "
                         "NOT NULL)",
                     hashes_sql, hashes_sql);
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__checkpoint_batch_sources(const weir_checkpoint *cp, int64_t gen,
                                   int64_t batch_id, weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT;
    /* A row per source (a DISTINCT or ORDER BY would cost DuckDB more
     * than the rows it saves). */
    weir__buf_puts(&q, "SELECT source FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__state_where_flow(&q, cp);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id = %lld",
                     (long long)gen, (long long)batch_id);
    int rc = weir__query_buf(cp->conn, &q, out, cp->err);
    weir__buf_free(&q);
    return rc;
}

/* ---- full refresh and relocation ------------------------------------------ */

/* "<catalog>._weir.<table> WHERE target = '<target>'" */
static void of_target(weir_buf *q, const char *catalog, const char *table,
                      const char *target)
{
    weir__state_table(q, catalog, table);
    weir__buf_puts(q, " WHERE target = ");
    weir__buf_put_sql_string(q, target);
}

void weir__checkpoint_put_reset(weir_buf *q, const char *catalog,
                                const char *target,
                                const char *const *flows, size_t n_flows,
                                const char *update_id)
{
    /* A new generation for each flow: one past the target's highest. */
    for (size_t i = 0; i < n_flows; i++) {
        weir__buf_puts(q, "; INSERT INTO ");
        weir__state_table(q, catalog, "checkpoints");
        weir__buf_puts(q, " SELECT ");
        weir__buf_put_sql_string(q, flows[i]);
        weir__buf_puts(q, ", ");
        weir__buf_put_sql_string(q, target);
        weir__buf_puts(q, ", coalesce(max(generation), 0) + 1, -1, '', 0, 0, 0, "
                          "now()::TIMESTAMP, ");
        weir__buf_put_sql_string(q, update_id);
        weir__buf_puts(q, " FROM ");
        of_target(q, catalog, "checkpoints", target);
    }
    /* The new generation starts with no batches. */
    weir__buf_puts(q, "; DELETE FROM ");
    of_target(q, catalog, "flow_state", target);
}

void weir__checkpoint_put_reset_target(weir_buf *q, const char *catalog,
                                       const char *target,
                                       const char *update_id)
{
    weir__buf_puts(q, "; INSERT INTO ");
    weir__state_table(q, catalog, "checkpoints");
    weir__buf_puts(q, " SELECT flow, target, (SELECT coalesce(max(generation), "
                      "0) + 1 FROM ");
    of_target(q, catalog, "checkpoints", target);
    weir__buf_puts(q, "), -1, '', 0, 0, 0, now()::TIMESTAMP, ");
    weir__buf_put_sql_string(q, update_id);
    weir__buf_puts(q, " FROM (SELECT DISTINCT flow, target FROM ");
    of_target(q, catalog, "checkpoints", target);
    weir__buf_puts(q, "); DELETE FROM ");
    of_target(q, catalog, "flow_state", target);
}

/* col = new || the rest, for values at or under old (in prefix form:
 * "files:" for source keys, "" for paths). */
static void rewrite(weir_buf *q, const char *alias, const char *table,
                    const char *col, const char *prefix, const char *from,
                    const char *to)
{
    weir_buf old = WEIR_BUF_INIT, now = WEIR_BUF_INIT;
    weir__buf_printf(&old, "%s%s", prefix, from);
    weir__buf_printf(&now, "%s%s", prefix, to);
    weir__buf_puts(q, "UPDATE ");
    weir__buf_put_sql_ident(q, alias);
    weir__buf_printf(q, "._weir.%s SET %s = ", table, col);
    weir__buf_put_sql_string(q, weir__buf_cstr(&now));
    weir__buf_printf(q, " || substr(%s, %zu) WHERE %s = ", col, old.len + 1, col);
    weir__buf_put_sql_string(q, weir__buf_cstr(&old));
    weir__buf_printf(q, " OR starts_with(%s, ", col);
    weir__buf_putc(&old, '/');
    weir__buf_put_sql_string(q, weir__buf_cstr(&old));
    weir__buf_puts(q, ");\n");
    weir__buf_free(&old);
    weir__buf_free(&now);
}

void weir__checkpoint_put_relocate(weir_buf *q, const char *alias,
                                   const char *from, const char *to)
{
    rewrite(q, alias, "checkpoints", "source", "files:", from, to);
    rewrite(q, alias, "file_schemas", "source", "files:", from, to);
    rewrite(q, alias, "files", "source", "files:", from, to);
    rewrite(q, alias, "files", "path", "", from, to);
}
