/*
 * AUTO CDC, SCD type 1 with IGNORE NULL UPDATES (see cdc_apply.h): each
 * column of a row holds the newest non-NULL value any change gave it
 * since the key's last delete or the last truncate, whatever order the
 * changes arrive in and however they are split into batches. A late
 * change still applies column by column: its values win where they are
 * newer than the ones the row holds.
 *
 * So the key's row in _weir."autocdc_state:<target>" keeps, beside the
 * sequence of its last change (__weir_seq) and whether that was a delete
 * (__weir_del):
 *   __weir_floor          upserts at or below it no longer apply: the
 *                         key's latest delete, or for a key carried over
 *                         from the layout before these columns, its
 *                         sequence then (its history is not known)
 *   "__weir_cseq:<col>"   per non-key column, the sequence of the change
 *                         that set the row's value; NULL when the value is
 *                         NULL (no change since the floor set one)
 * A delete, in order or late, clears the columns set before it; a
 * truncate, those set at or before it. These columns exist only while the
 * flow has IGNORE NULL UPDATES: a state made without them is converted in
 * the next batch (weir__cdc_inu_layout), and they are dropped when the
 * clause goes.
 */
#include "engine/cdc_apply.h"

#include <string.h>

#include "engine/common.h"
#include "util/str.h"

#define CSEQ_PREFIX "__weir_cseq:"

/* The state column holding column name's sequence, quoted. */
static void cseq(cdc_run *r, const char *prefix, const char *name)
{
    weir_buf n = WEIR_BUF_INIT;
    weir__buf_printf(&n, CSEQ_PREFIX "%s", name);
    weir__cdc_ident(r, prefix, n.failed ? "" : weir__buf_cstr(&n));
    if (n.failed)
        r->q.failed = true;
    weir__buf_free(&n);
}

bool weir__cdc_inu_column(const char *state_column)
{
    return weir__str_ieq(state_column, "__weir_floor") ||
           weir__str_istarts(state_column, CSEQ_PREFIX);
}

void weir__cdc_inu_state_cols(cdc_run *r, weir_buf *out)
{
    weir__buf_puts(out, ", __weir_seq AS __weir_floor");
    for (size_t i = 0; i < r->n_values; i++) {
        weir__buf_puts(out, ", __weir_seq AS ");
        weir_buf n = WEIR_BUF_INIT;
        weir__buf_printf(&n, CSEQ_PREFIX "%s", r->values[i]);
        weir__buf_put_sql_ident(out, n.failed ? "" : weir__buf_cstr(&n));
        if (n.failed)
            out->failed = true;
        weir__buf_free(&n);
    }
}

/* ALTER TABLE state ADD COLUMN: the floor (col NULL) or col's sequence. */
static int add_column(cdc_run *r, const char *col, const char *type)
{
    weir__buf_puts(&r->q, "ALTER TABLE ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " ADD COLUMN ");
    if (col)
        cseq(r, NULL, col);
    else
        weir__buf_puts(&r->q, "__weir_floor");
    weir__buf_printf(&r->q, " %s", type);
    return weir__cdc_run_q(r, NULL);
}

/* A state made before the column sequences: every key's floor is its
 * sequence (changes not newer stay ignored, as they were), and each
 * non-NULL value of its row counts as set by its last change. The
 * columns are all added before the state is updated: DuckDB refuses to
 * commit a change of a table made before an ALTER of it in the same
 * transaction. */
static int migrate(cdc_run *r, const char *type)
{
    int rc = add_column(r, NULL, type);
    for (size_t i = 0; !rc && i < r->n_values; i++)
        rc = add_column(r, r->values[i], type);
    if (!rc) {
        weir__buf_puts(&r->q, "UPDATE ");
        weir__cdc_hidden(r, "state");
        weir__buf_puts(&r->q, " SET __weir_floor = __weir_seq");
        rc = weir__cdc_run_q(r, NULL);
    }
    if (rc || !r->n_values)
        return rc;
    weir__buf_puts(&r->q, "UPDATE ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s SET ");
    for (size_t i = 0; i < r->n_values; i++) {
        weir__buf_puts(&r->q, i ? ", " : "");
        cseq(r, NULL, r->values[i]);
        weir__buf_puts(&r->q, " = CASE WHEN ");
        weir__cdc_ident(r, "__weir_t", r->values[i]);
        weir__buf_puts(&r->q, " IS NOT NULL THEN __weir_s.__weir_seq END");
    }
    weir__buf_puts(&r->q, " FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t WHERE ");
    weir__cdc_keys_equal(r, "__weir_s", "__weir_t");
    weir__buf_puts(&r->q, " AND NOT __weir_s.__weir_del");
    return weir__cdc_run_q(r, NULL);
}

/* Whether one of the n state columns is the floor (col NULL) or col's
 * sequence. */
static bool has_column(const weir_db_column *cols, size_t n, const char *col)
{
    size_t p = strlen(CSEQ_PREFIX);
    for (size_t i = 0; i < n; i++) {
        const char *c = cols[i].name;
        if (col ? weir__str_istarts(c, CSEQ_PREFIX) && weir__str_ieq(c + p, col)
                : weir__str_ieq(c, "__weir_floor"))
            return true;
    }
    return false;
}

int weir__cdc_inu_layout(cdc_run *r)
{
    const weir_db_column *cols = r->state_cols;
    size_t n = r->n_state_cols;
    bool exists = r->state_exists;
    int rc = 0;
    const char *type = NULL;
    for (size_t i = 0; !rc && exists && i < n; i++)
        if (weir__str_ieq(cols[i].name, "__weir_seq"))
            type = cols[i].type;
    bool inu = r->c->ignore_null_updates;
    if (!rc && exists && type && inu && !has_column(cols, n, NULL)) {
        rc = migrate(r, type);
    } else if (!rc && exists && type && inu) {
        /* Columns the target gained: no value set yet. */
        for (size_t i = 0; !rc && i < r->n_values; i++)
            if (!has_column(cols, n, r->values[i]))
                rc = add_column(r, r->values[i], type);
    } else if (!rc && exists && !inu) {
        for (size_t i = 0; !rc && i < n; i++) {
            if (!weir__cdc_inu_column(cols[i].name))
                continue;
            weir__buf_puts(&r->q, "ALTER TABLE ");
            weir__cdc_hidden(r, "state");
            weir__buf_puts(&r->q, " DROP COLUMN ");
            weir__buf_put_sql_ident(&r->q, cols[i].name);
            rc = weir__cdc_run_q(r, NULL);
        }
    }
    return rc;
}

/* The latest truncate's sequence, as a scalar subquery. */
static void last_truncate(cdc_run *r)
{
    weir__buf_puts(&r->q, "(SELECT max(__weir_seq) FROM ");
    weir__cdc_hidden(r, "truncate");
    weir__buf_puts(&r->q, ")");
}

/* "<state>.cseq(col) <= <last truncate>" */
static void set_before_truncate(cdc_run *r, const char *col)
{
    cseq(r, "__weir_s", col);
    weir__buf_puts(&r->q, " <= ");
    last_truncate(r);
}

/* After a truncate: the values of surviving rows set at or before the
 * latest truncate go, in the target (target: true) or in the state. */
static int clear_truncated(cdc_run *r, bool target)
{
    if (!r->n_values) /* no column but the keys */
        return 0;
    weir__buf_puts(&r->q, "UPDATE ");
    if (target)
        weir__phys(&r->q, r->t);
    else
        weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, target ? " AS __weir_t SET " : " AS __weir_s SET ");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, i ? ", " : "");
        if (target)
            weir__cdc_ident(r, NULL, col);
        else
            cseq(r, NULL, col);
        weir__buf_puts(&r->q, " = CASE WHEN ");
        set_before_truncate(r, col);
        weir__buf_puts(&r->q, " THEN NULL ELSE ");
        if (target)
            weir__cdc_ident(r, "__weir_t", col);
        else
            cseq(r, "__weir_s", col);
        weir__buf_puts(&r->q, " END");
    }
    if (target) {
        weir__buf_puts(&r->q, " FROM ");
        weir__cdc_hidden(r, "state");
        weir__buf_puts(&r->q, " AS __weir_s WHERE ");
        weir__cdc_keys_equal(r, "__weir_t", "__weir_s");
        weir__buf_puts(&r->q, " AND (false");
    } else {
        weir__buf_puts(&r->q, " WHERE (false");
    }
    for (size_t i = 0; i < r->n_values; i++) {
        weir__buf_puts(&r->q, " OR ");
        set_before_truncate(r, r->values[i]);
    }
    weir__buf_puts(&r->q, ")");
    return weir__cdc_run_q(r, NULL);
}

int weir__cdc_inu_truncate(cdc_run *r)
{
    int rc = clear_truncated(r, true);
    return rc ? rc : clear_truncated(r, false);
}

/* ---- a batch --------------------------------------------------------------- */

/* The batch's changes that are not truncates nor at or before the last
 * truncate, each with its key's state (__weir_os, __weir_od, __weir_of,
 * __weir_oc<i>: its sequence, delete flag, floor, column sequences), the
 * key's newest delete in the batch (__weir_bd) and the floor after the
 * batch (__weir_x). */
static void with_changes(cdc_run *r)
{
    weir__buf_puts(&r->q, "WITH __weir_c AS (SELECT __weir_b.*");
    if (r->c->truncate_when) /* the batch has __weir_trunc (stage) */
        weir__buf_puts(&r->q, " EXCLUDE (__weir_trunc)");
    weir__buf_puts(&r->q, ", __weir_s.__weir_seq AS __weir_os, __weir_s.__weir_del "
                          "AS __weir_od, __weir_s.__weir_floor AS __weir_of");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", ");
        cseq(r, "__weir_s", col);
        weir__buf_printf(&r->q, " AS __weir_oc%zu", i);
    }
    weir__buf_puts(&r->q, ", max(CASE WHEN __weir_b.__weir_del THEN "
                          "__weir_b.__weir_seq END) OVER (PARTITION BY ");
    weir__cdc_list(r, "__weir_b", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ") AS __weir_bd FROM " CDC_BATCH " AS __weir_b");
    weir__cdc_join_state(r);
    weir__buf_puts(&r->q, " WHERE true");
    if (r->n_trunc)
        weir__buf_puts(&r->q, " AND NOT __weir_b.__weir_trunc");
    if (r->truncated) {
        weir__buf_puts(&r->q, " AND NOT coalesce(__weir_b.__weir_seq <= ");
        last_truncate(r);
        weir__buf_puts(&r->q, ", false)");
    }
    weir__buf_puts(&r->q, "), __weir_x AS (SELECT *, greatest(__weir_of, "
                          "__weir_bd) AS __weir_x FROM __weir_c)");
}

/* Per change: the newest sequence of the key's batch upserts above the
 * floor giving column i a value (__weir_bs<i>), and whether the key's old
 * value of it survives the batch's deletes (__weir_ok<i>). */
static void with_columns(cdc_run *r)
{
    weir__buf_puts(&r->q, ", __weir_w AS (SELECT *");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", max(CASE WHEN NOT __weir_del AND ");
        weir__cdc_ident(r, NULL, col);
        weir__buf_puts(&r->q, " IS NOT NULL AND (__weir_x IS NULL OR __weir_seq > "
                              "__weir_x) THEN __weir_seq END) OVER (PARTITION BY ");
        weir__cdc_list(r, NULL, r->keys, r->n_keys);
        weir__buf_printf(&r->q, ") AS __weir_bs%zu, (__weir_oc%zu IS NOT NULL AND "
                                "(__weir_bd IS NULL OR __weir_oc%zu > __weir_bd)) "
                                "AS __weir_ok%zu",
                         i, i, i, i);
    }
    weir__buf_puts(&r->q, " FROM __weir_x)");
}

/* Whether a change counts as applied: a delete above the key's floor; an
 * upsert newer than the key's last change, or above the floor and giving
 * a column its value. The others are late or repeated: ignored. */
static void applied(cdc_run *r)
{
    weir__buf_puts(&r->q, "CASE WHEN __weir_del THEN __weir_of IS NULL OR "
                          "__weir_seq > __weir_of ELSE __weir_os IS NULL OR "
                          "__weir_seq > __weir_os OR ((__weir_x IS NULL OR "
                          "__weir_seq > __weir_x) AND (false");
    for (size_t i = 0; i < r->n_values; i++)
        weir__buf_printf(&r->q, " OR (__weir_seq = __weir_bs%zu AND (NOT "
                                "__weir_ok%zu OR __weir_seq > __weir_oc%zu))",
                         i, i, i);
    weir__buf_puts(&r->q, ")) END");
}

/* One row per key of the batch: each column's value from the batch
 * (<col>), where its value comes from (__weir_m<i>: 1 the batch, 2 the
 * row as it is, 0 none: NULL) and its sequence, the key's new sequence,
 * delete flag and floor, and how many of its changes applied
 * (__weir_n). */
static int apply_rows(cdc_run *r)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_APPLY " AS ");
    with_changes(r);
    with_columns(r);
    weir__buf_puts(&r->q, ", __weir_g AS (SELECT ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", arg_max(");
        weir__cdc_ident(r, NULL, col);
        weir__buf_printf(&r->q, ", __weir_seq) FILTER (WHERE __weir_seq = "
                                "__weir_bs%zu AND NOT __weir_del) AS ",
                         i);
        weir__cdc_ident(r, NULL, col);
        weir__buf_printf(&r->q, ", any_value(__weir_bs%zu) AS __weir_bs%zu, "
                                "any_value(__weir_oc%zu) AS __weir_oc%zu, "
                                "bool_or(__weir_ok%zu) AS __weir_ok%zu",
                         i, i, i, i, i, i);
    }
    weir__buf_puts(&r->q, ", any_value(__weir_os) AS __weir_os, any_value(__weir_od) "
                          "AS __weir_od, any_value(__weir_of) AS __weir_of, "
                          "max(__weir_bd) AS __weir_bd, max(__weir_seq) AS "
                          "__weir_bseq, count(*) FILTER (WHERE ");
    applied(r);
    weir__buf_puts(&r->q, ") AS __weir_n FROM __weir_w GROUP BY ALL) SELECT ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", ");
        weir__cdc_ident(r, NULL, col);
        weir__buf_printf(&r->q, ", CASE WHEN __weir_bs%zu IS NOT NULL AND (NOT "
                                "__weir_ok%zu OR __weir_bs%zu > __weir_oc%zu) THEN 1 "
                                "WHEN __weir_ok%zu THEN 2 ELSE 0 END AS __weir_m%zu",
                         i, i, i, i, i, i);
        weir__buf_printf(&r->q, ", CASE WHEN __weir_bs%zu IS NOT NULL AND (NOT "
                                "__weir_ok%zu OR __weir_bs%zu > __weir_oc%zu) THEN "
                                "__weir_bs%zu WHEN __weir_ok%zu THEN __weir_oc%zu "
                                "END AS ",
                         i, i, i, i, i, i, i);
        cseq(r, NULL, col);
    }
    /* The key's last change: the batch's newest when it is newer (a
     * delete winning a tie), else the one before. */
    weir__buf_puts(&r->q, ", greatest(__weir_os, __weir_bseq) AS __weir_seq, CASE "
                          "WHEN __weir_os IS NULL OR __weir_bseq > __weir_os OR "
                          "(__weir_bseq = __weir_os AND __weir_bd = __weir_bseq) "
                          "THEN coalesce(__weir_bd = __weir_bseq, false) ELSE "
                          "__weir_od END AS __weir_del, greatest(__weir_of, "
                          "__weir_bd) AS __weir_floor, __weir_n FROM __weir_g");
    return weir__cdc_run_q(r, NULL);
}

/* The target: rows of keys now deleted go, the others take each column
 * from where __weir_m<i> says. *changed: the rows deleted, updated or
 * inserted. */
static int merge_target(cdc_run *r, int64_t *changed)
{
    weir__buf_puts(&r->q, "MERGE INTO ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING " CDC_APPLY " AS __weir_a ON (");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_del THEN DELETE");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, i ? ", " : " WHEN MATCHED AND __weir_a.__weir_n > 0 "
                                         "THEN UPDATE SET ");
        weir__cdc_ident(r, NULL, col);
        weir__buf_printf(&r->q, " = CASE __weir_a.__weir_m%zu WHEN 1 THEN ", i);
        weir__cdc_ident(r, "__weir_a", col);
        weir__buf_puts(&r->q, " WHEN 2 THEN ");
        weir__cdc_ident(r, "__weir_t", col);
        weir__buf_puts(&r->q, " END");
    }
    weir__buf_puts(&r->q, " WHEN NOT MATCHED AND NOT __weir_a.__weir_del AND "
                          "__weir_a.__weir_n > 0 THEN INSERT (");
    weir__cdc_list(r, NULL, r->data, r->n_data);
    weir__buf_puts(&r->q, ") VALUES (");
    size_t v = 0;
    for (size_t k = 0; k < r->n_data; k++) {
        weir__buf_puts(&r->q, k ? ", " : "");
        if (weir__cdc_is_key(r, r->data[k])) {
            weir__cdc_ident(r, "__weir_a", r->data[k]);
            continue;
        }
        weir__buf_printf(&r->q, "CASE WHEN __weir_a.__weir_m%zu = 1 THEN ", v++);
        weir__cdc_ident(r, "__weir_a", r->data[k]);
        weir__buf_puts(&r->q, " END");
    }
    weir__buf_puts(&r->q, ")");
    return weir__cdc_run_q(r, changed);
}

/* The keys' state, for the keys where a change applied. */
static int merge_state(cdc_run *r)
{
    weir__buf_puts(&r->q, "MERGE INTO ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s USING " CDC_APPLY " AS __weir_a ON (");
    weir__cdc_keys_equal(r, "__weir_s", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_n > 0 THEN UPDATE "
                          "SET __weir_seq = __weir_a.__weir_seq, __weir_del = "
                          "__weir_a.__weir_del, __weir_floor = __weir_a.__weir_floor");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", ");
        cseq(r, NULL, col);
        weir__buf_puts(&r->q, " = ");
        cseq(r, "__weir_a", col);
    }
    weir__buf_puts(&r->q, " WHEN NOT MATCHED THEN INSERT (");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_seq, __weir_del, __weir_floor");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", ");
        cseq(r, NULL, col);
    }
    weir__buf_puts(&r->q, ") VALUES (");
    weir__cdc_list(r, "__weir_a", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_a.__weir_seq, __weir_a.__weir_del, "
                          "__weir_a.__weir_floor");
    for (size_t i = 0; i < r->n_values; i++) {
        const char *col = r->values[i];
        weir__buf_puts(&r->q, ", ");
        cseq(r, "__weir_a", col);
    }
    weir__buf_puts(&r->q, ")");
    return weir__cdc_run_q(r, NULL);
}

int weir__cdc_inu_apply(cdc_run *r, int64_t *n_applied, int64_t *upserted,
                        int64_t *changed)
{
    int rc = apply_rows(r);
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "SELECT sum(__weir_n), count(*) FILTER (WHERE NOT "
                          "__weir_del AND __weir_n > 0) FROM " CDC_APPLY);
    int64_t c[2] = { 0, 0 };
    if ((rc = weir__cdc_scalars_q(r, c, 2)))
        return rc;
    *n_applied = c[0];
    *upserted = c[1];
    if ((rc = merge_target(r, changed)))
        return rc;
    return merge_state(r);
}
