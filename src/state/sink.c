/*
 * Sinks' batch logs and the catalog's state id (see sink.h): every read
 * and write of _weir.sink_batches and of the state_id row of _weir.meta.
 */
#include "state/sink.h"

#include "state/internal.h"
#include "util/str.h"

int weir__state_id(const weir_checkpoint *cp, char *out, size_t size)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT value FROM ");
    weir__state_table(&q, cp->catalog, "meta");
    weir__buf_puts(&q, " WHERE key = 'state_id' ORDER BY value LIMIT 1");
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    out[0] = '\0';
    if (!rc && r->n_rows && weir__rows_get(r, 0, 0))
        weir__str_copy(out, size, weir__rows_get(r, 0, 0));
    weir__rows_free(r);
    return rc;
}

/* " WHERE sink = '..' AND flow = '..'" */
static void where_sink_flow(weir_buf *q, const weir_checkpoint *cp,
                            const char *sink)
{
    weir__buf_puts(q, " WHERE sink = ");
    weir__buf_put_sql_string(q, sink);
    weir__buf_puts(q, " AND flow = ");
    weir__buf_put_sql_string(q, cp->flow);
}

int weir__sink_batch_add(const weir_checkpoint *cp, const char *sink,
                         int64_t gen, int64_t batch_id, int64_t rows)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__state_table(&q, cp->catalog, "sink_batches");
    weir__buf_puts(&q, " VALUES (");
    weir__buf_put_sql_string(&q, cp->flow);
    weir__buf_puts(&q, ", ");
    weir__buf_put_sql_string(&q, sink);
    weir__buf_printf(&q, ", %lld, %lld, 'committed', ", (long long)gen,
                     (long long)batch_id);
    weir__buf_put_sql_string(&q, cp->update_id);
    weir__buf_printf(&q, ", now()::TIMESTAMP, %lld)", (long long)rows);
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__sink_batch_published(const weir_checkpoint *cp, const char *sink,
                               int64_t gen, int64_t batch_id)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE ");
    weir__state_table(&q, cp->catalog, "sink_batches");
    weir__buf_puts(&q, " SET state = 'published'");
    where_sink_flow(&q, cp, sink);
    weir__buf_printf(&q, " AND generation = %lld AND batch_id = %lld",
                     (long long)gen, (long long)batch_id);
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__sink_batches_unpublished(const weir_checkpoint *cp,
                                   const char *sink, weir_rows **out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT generation, batch_id FROM ");
    weir__state_table(&q, cp->catalog, "sink_batches");
    where_sink_flow(&q, cp, sink);
    weir__buf_puts(&q, " AND state = 'committed' ORDER BY generation, batch_id");
    int rc = weir__query_buf(cp->conn, &q, out, cp->err);
    weir__buf_free(&q);
    return rc;
}

int weir__sink_batches_unrecorded(const weir_checkpoint *cp, const char *sink,
                                  int64_t gen, int64_t next_batch,
                                  int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__state_table(&q, cp->catalog, "sink_batches");
    where_sink_flow(&q, cp, sink);
    weir__buf_printf(&q, " AND (generation > %lld OR (generation = %lld "
                         "AND batch_id >= %lld))",
                     (long long)gen, (long long)gen, (long long)next_batch);
    *out = 0;
    int rc = weir__scalar_buf(cp->conn, &q, out, NULL, cp->err);
    weir__buf_free(&q);
    return rc;
}
