/*
 * The state of stateful streaming operators in _weir (see operator.h):
 * the watermark rows and the names of the operators' own tables.
 */
#include "state/operator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/internal.h"

static void put_flow_gen(weir_buf *q, const weir_checkpoint *cp, int64_t gen)
{
    weir__buf_puts(q, " WHERE flow = ");
    weir__buf_put_sql_string(q, cp->flow);
    weir__buf_printf(q, " AND generation = %lld", (long long)gen);
}

int weir__op_state_get(const weir_checkpoint *cp, int64_t gen, size_t n_inputs,
                       weir_op_state *out)
{
    memset(out, 0, sizeof(*out));
    out->n_inputs = n_inputs < WEIR_OP_MAX_INPUTS ? n_inputs : WEIR_OP_MAX_INPUTS;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT name, value FROM ");
    weir__state_table(&q, cp->catalog, "operator_state");
    put_flow_gen(&q, cp, gen);
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const char *name = weir__rows_get(r, i, 0);
        const char *value = weir__rows_get(r, i, 1);
        if (!name || !value)
            continue;
        int64_t v = strtoll(value, NULL, 10);
        unsigned k;
        if (!strcmp(name, "signature")) {
            out->has_signature = true;
            out->signature = v;
        } else if (!strcmp(name, "watermark")) {
            out->has_watermark = true;
            out->watermark_ms = v;
        } else if (sscanf(name, "max_event #%u", &k) == 1 && k < out->n_inputs) {
            out->has_max[k] = true;
            out->max_event_ms[k] = v;
        }
    }
    weir__rows_free(r);
    return rc;
}

int weir__op_state_put(const weir_checkpoint *cp, int64_t gen,
                       const weir_op_state *st)
{
    weir_buf q = WEIR_BUF_INIT, v = WEIR_BUF_INIT;
    for (size_t i = 0; i <= st->n_inputs + 1; i++) {
        bool wm = i == st->n_inputs, sig = i == st->n_inputs + 1;
        if (sig ? !st->has_signature : wm ? !st->has_watermark : !st->has_max[i])
            continue;
        weir__buf_puts(&v, v.len ? ", (" : "(");
        weir__buf_put_sql_string(&v, cp->flow);
        if (sig)
            weir__buf_printf(&v, ", %lld, 'signature', %lld)", (long long)gen,
                             (long long)st->signature);
        else if (wm)
            weir__buf_printf(&v, ", %lld, 'watermark', %lld)", (long long)gen,
                             (long long)st->watermark_ms);
        else
            weir__buf_printf(&v, ", %lld, 'max_event #%zu', %lld)",
                             (long long)gen, i, (long long)st->max_event_ms[i]);
    }
    weir__buf_puts(&q, "DELETE FROM ");
    weir__state_table(&q, cp->catalog, "operator_state");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, cp->flow);
    if (v.len) {
        weir__buf_puts(&q, "; INSERT INTO ");
        weir__state_table(&q, cp->catalog, "operator_state");
        weir__buf_printf(&q, " VALUES %s", weir__buf_cstr(&v));
    }
    if (v.failed)
        q.failed = true;
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    weir__buf_free(&v);
    return rc;
}

static void table_name(weir_buf *b, const weir_checkpoint *cp, const char *kind,
                       int64_t gen)
{
    weir__buf_printf(b, "%s %s #%lld", kind, cp->flow, (long long)gen);
}

void weir__op_state_table(weir_buf *q, const weir_checkpoint *cp,
                          const char *kind, int64_t gen)
{
    weir_buf name = WEIR_BUF_INIT;
    table_name(&name, cp, kind, gen);
    weir__state_hidden_table(q, cp->catalog, weir__buf_cstr(&name));
    if (name.failed)
        q->failed = true;
    weir__buf_free(&name);
}

int weir__op_state_prepare(const weir_checkpoint *cp, const char *kind,
                           int64_t gen, bool *exists)
{
    *exists = false;
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), cp->catalog);
    weir_buf prefix = WEIR_BUF_INIT, name = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    weir__buf_printf(&prefix, "%s %s #", kind, cp->flow);
    table_name(&name, cp, kind, gen);
    /* The usual case, without listing the catalog: it exists. */
    if (!name.failed &&
        weir__conn_is_table(cp->conn, alias, WEIR_META_SCHEMA, weir__buf_cstr(&name))) {
        *exists = true;
        weir__buf_free(&prefix);
        weir__buf_free(&name);
        return 0;
    }
    weir__buf_puts(&q, "SELECT table_name FROM duckdb_tables() WHERE "
                       "database_name = ");
    weir__buf_put_sql_string(&q, alias);
    weir__buf_puts(&q, " AND schema_name = '" WEIR_META_SCHEMA "' AND "
                       "starts_with(table_name, ");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&prefix));
    weir__buf_putc(&q, ')');
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_clear(&q);
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const char *t = weir__rows_get(r, i, 0);
        if (!t)
            continue;
        if (!strcmp(t, weir__buf_cstr(&name))) {
            *exists = true;
            continue;
        }
        weir__buf_puts(&q, "DROP TABLE IF EXISTS ");
        weir__state_hidden_table(&q, cp->catalog, t);
        weir__buf_puts(&q, ";");
    }
    weir__rows_free(r);
    if (!rc && q.len && !*exists)
        rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    weir__buf_free(&prefix);
    weir__buf_free(&name);
    return rc;
}
