/*
 * The checkpoint store (see checkpoint.h): every read and write of
 * _weir.checkpoints, _weir.flow_state, the file manifest _weir.files and
 * the Kafka sources' partition offsets _weir.kafka_offsets.
 */
#include "sources/checkpoint.h"

#include <stdlib.h>
#include <string.h>

const char *weir__state_catalog(const weir_graph *g, const weir_gdataset *t)
{
    return t->catalog ? t->catalog : g->default_catalog;
}

/* WHERE target = '..' AND flow = '..' */
static void where_flow(weir_buf *b, const weir_checkpoint *cp)
{
    weir__buf_puts(b, " WHERE target = ");
    weir__buf_put_sql_string(b, cp->target);
    weir__buf_puts(b, " AND flow = ");
    weir__buf_put_sql_string(b, cp->flow);
}

static int64_t cell_i64(const weir_rows *r, size_t row, size_t col)
{
    const char *v = weir__rows_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

void weir__checkpoint_put_row_count(weir_buf *q, const weir_checkpoint *cp)
{
    weir__buf_puts(q, "SELECT count(*) FROM ");
    weir__meta_table(q, cp->catalog, "checkpoints");
    where_flow(q, cp);
}

int weir__checkpoint_position(const weir_checkpoint *cp, int64_t *gen,
                              int64_t *next_batch)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, max(batch_id) + 1 FROM ");
    weir__meta_table(&q, cp->catalog, "checkpoints");
    where_flow(&q, cp);
    weir__buf_puts(&q, " GROUP BY generation ORDER BY generation DESC LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    *gen = *next_batch = 0;
    if (!rc && r->n_rows) {
        *gen = cell_i64(r, 0, 0);
        *next_batch = cell_i64(r, 0, 1);
    }
    weir__rows_free(r);
    return rc;
}

int weir__checkpoint_flow_state(const weir_checkpoint *cp, weir_flow_state *fs)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, batches, files FROM ");
    weir__meta_table(&q, cp->catalog, "flow_state");
    where_flow(&q, cp);
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    memset(fs, 0, sizeof(*fs));
    if (!rc && r->n_rows) {
        fs->found = true;
        fs->gen = cell_i64(r, 0, 0);
        fs->batches = cell_i64(r, 0, 1);
        fs->files = cell_i64(r, 0, 2);
    }
    weir__rows_free(r);
    return rc;
}

int weir__checkpoint_put_flow_state(const weir_checkpoint *cp, int64_t gen,
                                    int64_t batches, int64_t new_files)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__meta_table(&q, cp->catalog, "flow_state");
    weir__buf_printf(&q, " SET generation = %lld, batches = %lld, files = "
                         "CASE WHEN generation = %lld THEN files ELSE 0 END "
                         "+ %lld, update_id = ",
                     (long long)gen, (long long)batches, (long long)gen,
                     (long long)new_files);
    weir__buf_put_sql_string(&q, cp->update_id);
    where_flow(&q, cp);
    int64_t changed = 0;
    int rc = q.failed ? WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(cp->conn, weir__buf_cstr(&q), &changed,
                                        cp->err);
    if (!rc && changed == 0) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "INSERT INTO ");
        weir__meta_table(&q, cp->catalog, "flow_state");
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
    weir__meta_table(&q, cp->catalog, "checkpoints");
    where_flow(&q, cp);
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
        *end = cell_i64(r, 0, 0);
        *epoch = cell_i64(r, 0, 1);
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
    weir__meta_table(&q, cp->catalog, "checkpoints");
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

void weir__checkpoint_put_accounted_rows(weir_buf *q, const char *catalog,
                                         const char *target)
{
    weir__buf_puts(q, "(SELECT coalesce(sum(r), 0) FROM (SELECT "
                      "max(c.rows) AS r FROM ");
    weir__meta_table(q, catalog, "checkpoints");
    weir__buf_puts(q, " AS c JOIN (SELECT flow, max(generation) AS g FROM ");
    weir__meta_table(q, catalog, "checkpoints");
    weir__buf_puts(q, " WHERE target = ");
    weir__buf_put_sql_string(q, target);
    weir__buf_puts(q, " GROUP BY flow) AS m ON c.flow = m.flow AND "
                      "c.generation = m.g WHERE c.target = ");
    weir__buf_put_sql_string(q, target);
    weir__buf_puts(q, " AND c.batch_id >= 0 GROUP BY c.flow, c.batch_id))");
}

/* ---- the file manifest ---------------------------------------------------- */

int weir__checkpoint_manifest_count(const weir_checkpoint *cp, int64_t gen,
                                    int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__meta_table(&q, cp->catalog, "files");
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
    weir__meta_table(&q, cp->catalog, "files");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, cp->flow);
    weir__buf_printf(&q, " AND generation = %lld AND source = ",
                     (long long)gen);
    weir__buf_put_sql_string(&q, source);
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
        weir__meta_table(&q, cp->catalog, table);
        weir__buf_puts(&q, " VALUES ");
        for (size_t j = k; j < n && j < k + 500; j++) {
            weir__buf_puts(&q, j > k ? ", (" : "(");
            weir__buf_put_sql_string(&q, cp->flow);
            weir__buf_printf(&q, ", %lld, ", (long long)gen);
            weir__buf_put_sql_string(&q, source);
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
    weir__buf_puts(&w, " WHERE flow = ");
    weir__buf_put_sql_string(&w, cp->flow);
    weir__buf_printf(&w, " AND generation = %lld AND source = ",
                     (long long)gen);
    weir__buf_put_sql_string(&w, source);
    weir__buf_puts(&q, "SELECT topic, partition, end_offset FROM ");
    weir__meta_table(&q, cp->catalog, "kafka_offsets");
    weir__buf_puts(&q, weir__buf_cstr(&w));
    weir__buf_puts(&q, " AND batch_id = (SELECT max(batch_id) FROM ");
    weir__meta_table(&q, cp->catalog, "kafka_offsets");
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

/* ---- what streaming reads of tables consumed -------------------------------- */

/* WHERE flow = '..' AND generation = g AND source = '..' */
static void where_read(weir_buf *q, const weir_checkpoint *cp, int64_t gen,
                       const char *source)
{
    weir__buf_puts(q, " WHERE flow = ");
    weir__buf_put_sql_string(q, cp->flow);
    weir__buf_printf(q, " AND generation = %lld AND source = ", (long long)gen);
    weir__buf_put_sql_string(q, source);
}

int weir__checkpoint_table_read(const weir_checkpoint *cp, int64_t gen,
                                const char *source, weir_arena *a,
                                weir_checkpoint_table_read *out)
{
    memset(out, 0, sizeof(*out));
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT columns, rows, CAST(hash AS VARCHAR), complete "
                       "FROM ");
    weir__meta_table(&q, cp->catalog, "table_reads");
    where_read(&q, cp, gen, source);
    /* Only the latest batch's record: an older one would be checked
     * against rows the flow read since. */
    weir__buf_puts(&q, " AND batch_id = (SELECT max(batch_id) FROM ");
    weir__meta_table(&q, cp->catalog, "checkpoints");
    where_flow(&q, cp);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id >= 0 AND "
                         "source = ", (long long)gen);
    weir__buf_put_sql_string(&q, source);
    weir__buf_puts(&q, ") LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0) && weir__rows_get(r, 0, 2)) {
        out->found = true;
        out->columns = weir__arena_strdup(a, weir__rows_get(r, 0, 0));
        out->rows = cell_i64(r, 0, 1);
        out->hash = weir__arena_strdup(a, weir__rows_get(r, 0, 2));
        const char *c = weir__rows_get(r, 0, 3);
        out->complete = c && !strcmp(c, "true");
        if (!out->columns || !out->hash)
            rc = WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__rows_free(r);
    return rc;
}

void weir__checkpoint_put_sample(weir_buf *q, const weir_checkpoint *cp,
                                 int64_t gen, const char *source)
{
    weir__buf_puts(q, "(SELECT hash FROM ");
    weir__meta_table(q, cp->catalog, "table_sample");
    where_read(q, cp, gen, source);
    weir__buf_putc(q, ')');
}

/* The table_reads row of a batch. */
static int put_table_read(const weir_checkpoint *cp, int64_t gen,
                          int64_t batch_id, const char *source,
                          const weir_checkpoint_table_read *r, bool complete)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__meta_table(&q, cp->catalog, "table_reads");
    weir__buf_puts(&q, " VALUES (");
    weir__buf_put_sql_string(&q, cp->flow);
    weir__buf_printf(&q, ", %lld, ", (long long)gen);
    weir__buf_put_sql_string(&q, source);
    weir__buf_printf(&q, ", %lld, ", (long long)batch_id);
    weir__buf_put_sql_string(&q, r->columns);
    weir__buf_printf(&q, ", %lld, CAST(", (long long)r->rows);
    weir__buf_put_sql_string(&q, r->hash);
    weir__buf_printf(&q, " AS HUGEINT), %s, ", complete ? "true" : "false");
    weir__buf_put_sql_string(&q, cp->update_id);
    weir__buf_putc(&q, ')');
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}

/* Add to the sample the smallest distinct hashes of the batch not in it
 * yet, WEIR_CHECKPOINT_SAMPLE_MAX + 1 of them at most; *added: how many.
 * bound > 0 considers only hashes up to it (a hash is uniform over
 * UBIGINT, so a bound the batch's size sets keeps a few times the rows
 * needed): without it DuckDB finds the distinct hashes of the whole
 * batch, the largest cost of recording a big batch. */
static int sample_add(const weir_checkpoint *cp, int64_t gen,
                      const char *source, const char *key,
                      const char *hashes_sql, uint64_t bound, int64_t *added)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__meta_table(&q, cp->catalog, "table_sample");
    weir__buf_puts(&q, " SELECT ");
    weir__buf_put_sql_string(&q, cp->flow);
    weir__buf_printf(&q, ", %lld, ", (long long)gen);
    weir__buf_put_sql_string(&q, source);
    weir__buf_printf(&q, ", h FROM (SELECT DISTINCT h FROM (%s) AS b(h) "
                         "WHERE ", hashes_sql);
    if (bound)
        weir__buf_printf(&q, "h <= CAST(%llu AS UBIGINT) AND ",
                         (unsigned long long)bound);
    weir__buf_puts(&q, "h NOT IN (SELECT hash FROM ");
    weir__meta_table(&q, cp->catalog, "table_sample");
    weir__buf_puts(&q, key);
    weir__buf_printf(&q, ")) ORDER BY h LIMIT %d", WEIR_CHECKPOINT_SAMPLE_MAX + 1);
    int rc = q.failed ? WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(cp->conn, weir__buf_cstr(&q), added,
                                        cp->err);
    weir__buf_free(&q);
    return rc;
}

/* A bound on the hashes that keeps about four times the sample's size of
 * a batch of `rows` rows, or 0 when the batch is too small to need one. */
static uint64_t sample_bound(int64_t rows)
{
    const double keep = 4.0 * (WEIR_CHECKPOINT_SAMPLE_MAX + 1);
    if (rows <= 0 || (double)rows <= 2 * keep)
        return 0;
    return (uint64_t)(keep / (double)rows * 18446744073709551615.0);
}

int weir__checkpoint_table_add(const weir_checkpoint *cp, int64_t gen,
                               int64_t batch_id, const char *source,
                               const weir_checkpoint_table_read *r,
                               bool rebase, const char *hashes_sql,
                               int64_t batch_rows)
{
    weir_buf q = WEIR_BUF_INIT, key = WEIR_BUF_INIT;
    where_read(&key, cp, gen, source);
    int rc = 0;
    if (rebase || !hashes_sql) {
        weir__buf_puts(&q, "DELETE FROM ");
        weir__meta_table(&q, cp->catalog, "table_sample");
        weir__buf_puts(&q, " WHERE flow = ");
        weir__buf_put_sql_string(&q, cp->flow);
        weir__buf_puts(&q, " AND source = ");
        weir__buf_put_sql_string(&q, source);
        rc = q.failed ? WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__exec_buf(cp->conn, &q, cp->err);
        weir__buf_clear(&q);
    }
    if (rc || !hashes_sql) {
        /* No sample: an incomplete one, empty. */
        weir__buf_free(&q);
        weir__buf_free(&key);
        return rc ? rc : put_table_read(cp, gen, batch_id, source, r, false);
    }
    /* The batch's distinct hashes not in the sample yet, at most as many
     * as it keeps. Under a bound, N + 1 of them found are the smallest N
     * + 1 of the batch; fewer (duplicate rows, an estimate too high) and
     * the batch is looked at whole. */
    uint64_t bound = key.failed ? 0 : sample_bound(batch_rows);
    int64_t added = 0;
    if (key.failed)
        rc = WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = sample_add(cp, gen, source, weir__buf_cstr(&key), hashes_sql,
                        bound, &added);
    if (!rc && bound && added < WEIR_CHECKPOINT_SAMPLE_MAX + 1)
        rc = sample_add(cp, gen, source, weir__buf_cstr(&key), hashes_sql, 0,
                        &added);
    /* Then the sample trimmed to its smallest. */
    int64_t trimmed = 0;
    if (!rc) {
        weir__buf_puts(&q, "DELETE FROM ");
        weir__meta_table(&q, cp->catalog, "table_sample");
        weir__buf_puts(&q, weir__buf_cstr(&key));
        weir__buf_puts(&q, " AND hash > (SELECT hash FROM ");
        weir__meta_table(&q, cp->catalog, "table_sample");
        weir__buf_puts(&q, weir__buf_cstr(&key));
        weir__buf_printf(&q, " ORDER BY hash LIMIT 1 OFFSET %d)",
                         WEIR_CHECKPOINT_SAMPLE_MAX - 1);
        rc = q.failed ? WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(cp->conn, weir__buf_cstr(&q), &trimmed,
                                        cp->err);
    }
    bool complete = (rebase || r->complete) && trimmed == 0;
    weir__buf_free(&q);
    weir__buf_free(&key);
    return rc ? rc : put_table_read(cp, gen, batch_id, source, r, complete);
}

int weir__checkpoint_batch_sources(const weir_checkpoint *cp, int64_t gen,
                                   int64_t batch_id, weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT;
    /* A row per source (a DISTINCT or ORDER BY would cost DuckDB more
     * than the rows it saves). */
    weir__buf_puts(&q, "SELECT source FROM ");
    weir__meta_table(&q, cp->catalog, "checkpoints");
    where_flow(&q, cp);
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
    weir__meta_table(q, catalog, table);
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
        weir__meta_table(q, catalog, "checkpoints");
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
    weir__meta_table(q, catalog, "checkpoints");
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
