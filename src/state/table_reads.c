/*
 * What streaming reads of tables consumed (see checkpoint.h and
 * docs/sources.md#tables): every read and write of _weir.table_reads and
 * _weir.table_sample.
 */
#include "state/checkpoint.h"

#include <string.h>

#include "state/internal.h"

int weir__checkpoint_table_read(const weir_checkpoint *cp, int64_t gen,
                                const char *source, weir_arena *a,
                                weir_checkpoint_table_read *out)
{
    memset(out, 0, sizeof(*out));
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT columns, rows, CAST(hash AS VARCHAR), complete "
                       "FROM ");
    weir__state_table(&q, cp->catalog, "table_reads");
    weir__state_where_source(&q, cp, gen, source);
    /* Only the latest batch's record: an older one would be checked
     * against rows the flow read since. */
    weir__buf_puts(&q, " AND batch_id = (SELECT max(batch_id) FROM ");
    weir__state_table(&q, cp->catalog, "checkpoints");
    weir__state_where_flow(&q, cp);
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
        out->rows = weir__state_cell_i64(r, 0, 1);
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
    weir__state_table(q, cp->catalog, "table_sample");
    weir__state_where_source(q, cp, gen, source);
    weir__buf_putc(q, ')');
}

/* The table_reads row of a batch. */
static int put_table_read(const weir_checkpoint *cp, int64_t gen,
                          int64_t batch_id, const char *source,
                          const weir_checkpoint_table_read *r, bool complete)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__state_table(&q, cp->catalog, "table_reads");
    weir__buf_puts(&q, " VALUES (");
    weir__state_put_key(&q, cp, gen, source);
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
    weir__state_table(&q, cp->catalog, "table_sample");
    weir__buf_puts(&q, " SELECT ");
    weir__state_put_key(&q, cp, gen, source);
    weir__buf_printf(&q, ", h FROM (SELECT DISTINCT h FROM (%s) AS b(h) "
                         "WHERE ", hashes_sql);
    if (bound)
        weir__buf_printf(&q, "h <= CAST(%llu AS UBIGINT) AND ",
                         (unsigned long long)bound);
    weir__buf_puts(&q, "h NOT IN (SELECT hash FROM ");
    weir__state_table(&q, cp->catalog, "table_sample");
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
    weir__state_where_source(&key, cp, gen, source);
    int rc = 0;
    if (rebase || !hashes_sql) {
        weir__buf_puts(&q, "DELETE FROM ");
        weir__state_table(&q, cp->catalog, "table_sample");
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
        weir__state_table(&q, cp->catalog, "table_sample");
        weir__buf_puts(&q, weir__buf_cstr(&key));
        weir__buf_puts(&q, " AND hash > (SELECT hash FROM ");
        weir__state_table(&q, cp->catalog, "table_sample");
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

