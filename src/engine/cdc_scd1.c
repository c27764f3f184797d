/*
 * AUTO CDC, SCD type 1 (see cdc_apply.h): the target holds the latest row
 * per key. _weir."autocdc_state:<target>" keeps, per key ever seen, the
 * sequence of the change last applied and whether it was a delete (a
 * tombstone), and _weir."autocdc_truncate:<target>" the truncates'
 * sequences: a change not newer than both is late and ignored, the newest
 * change per key of the batch is MERGEd into the target. With IGNORE NULL
 * UPDATES a late change still gives columns their values where they are
 * newer, by the state's column sequences (cdc_scd1_inu.c).
 */
#include "engine/cdc_apply.h"

#include "engine/common.h"

/* The batch's truncates (*n of them): their latest sequence is recorded,
 * and the rows and state of keys whose last change is not newer go. */
static int truncate_scd1(cdc_run *r, int64_t *n, weir_cdc_metrics *m)
{
    *n = r->n_trunc;
    if (!*n)
        return 0;
    int rc;
    weir__buf_puts(&r->q, "INSERT INTO ");
    weir__cdc_hidden(r, "truncate");
    weir__buf_puts(&r->q, " SELECT max(__weir_seq) FROM " CDC_BATCH
                          " WHERE __weir_trunc");
    if ((rc = weir__cdc_run_q(r, NULL)))
        return rc;
    /* Rows whose last change is not newer than the truncate go. */
    int64_t gone = 0;
    weir__buf_puts(&r->q, "DELETE FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s WHERE ");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_s");
    weir__buf_puts(&r->q, " AND __weir_s.__weir_seq <= (SELECT max(__weir_seq) "
                          "FROM ");
    weir__cdc_hidden(r, "truncate");
    weir__buf_puts(&r->q, ")");
    if ((rc = weir__cdc_run_q(r, &gone)))
        return rc;
    m->deleted += gone;
    weir__buf_puts(&r->q, "DELETE FROM ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " WHERE __weir_seq <= (SELECT max(__weir_seq) FROM ");
    weir__cdc_hidden(r, "truncate");
    weir__buf_puts(&r->q, ")");
    rc = weir__cdc_run_q(r, NULL);
    /* The rows that stay lose the values set before the truncate. */
    if (!rc && r->c->ignore_null_updates)
        rc = weir__cdc_inu_truncate(r);
    return rc;
}

/* FROM and WHERE of the candidates: the changes newer than the key's
 * state and the last truncate. The batch's truncates are left out only
 * when it has some: DuckDB then guesses the filter keeps a fifth of the
 * batch and builds its hash table on the batch instead of the state
 * (bench/cdc-RESULTS.md). The last truncate is compared only when one is
 * recorded: the scalar subquery costs the statement a tenth of its time. */
static void scd1_candidates(cdc_run *r)
{
    weir__buf_puts(&r->q, " FROM " CDC_BATCH " AS __weir_b");
    weir__cdc_join_state(r);
    weir__buf_puts(&r->q, r->n_trunc ? " WHERE NOT __weir_b.__weir_trunc AND "
                                     : " WHERE ");
    weir__buf_puts(&r->q, "(__weir_s.__weir_seq IS NULL OR __weir_b.__weir_seq > "
                          "__weir_s.__weir_seq)");
    if (!r->truncated)
        return;
    weir__buf_puts(&r->q, " AND NOT coalesce(__weir_b.__weir_seq <= (SELECT "
                          "max(__weir_seq) FROM ");
    weir__cdc_hidden(r, "truncate");
    weir__buf_puts(&r->q, "), false)");
}

/* One row per key with candidates: the newest; __weir_n counts the key's
 * candidates. */
static int scd1_apply_rows(cdc_run *r)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_APPLY " AS "
                          "SELECT __weir_b.*, count(*) OVER (PARTITION BY ");
    weir__cdc_list(r, "__weir_b", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ") AS __weir_n");
    scd1_candidates(r);
    weir__buf_puts(&r->q, " QUALIFY row_number() OVER (PARTITION BY ");
    weir__cdc_list(r, "__weir_b", r->keys, r->n_keys);
    weir__buf_puts(&r->q, " ORDER BY __weir_b.__weir_seq DESC, "
                          "__weir_b.__weir_del DESC) = 1");
    return weir__cdc_run_q(r, NULL);
}

/* The target: the candidates' rows replace, delete or insert the keys'
 * rows. *ups: rows inserted or updated; *changed: rows changed. */
static int scd1_merge(cdc_run *r, int64_t *n_cand, int64_t *ups,
                      int64_t *changed)
{
    int rc = scd1_apply_rows(r);
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "SELECT sum(__weir_n), count(*) FILTER (WHERE NOT "
                          "__weir_del) FROM " CDC_APPLY);
    int64_t c[2] = { 0, 0 };
    if ((rc = weir__cdc_scalars_q(r, c, 2)))
        return rc;
    *n_cand = c[0];
    *ups = c[1];
    weir__buf_puts(&r->q, "MERGE INTO ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING " CDC_APPLY " AS __weir_a ON (");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_del THEN DELETE");
    for (size_t i = 0; i < r->n_values; i++) {
        weir__buf_puts(&r->q, i ? ", " : " WHEN MATCHED THEN UPDATE SET ");
        weir__cdc_ident(r, NULL, r->values[i]);
        weir__buf_puts(&r->q, " = ");
        weir__cdc_ident(r, "__weir_a", r->values[i]);
    }
    weir__buf_puts(&r->q, " WHEN NOT MATCHED AND NOT __weir_a.__weir_del THEN "
                          "INSERT (");
    weir__cdc_list(r, NULL, r->data, r->n_data);
    weir__buf_puts(&r->q, ") VALUES (");
    weir__cdc_list(r, "__weir_a", r->data, r->n_data);
    weir__buf_puts(&r->q, ")");
    if ((rc = weir__cdc_run_q(r, changed)))
        return rc;
    /* The keys' state: tombstones included. */
    return weir__cdc_state_merge(r, CDC_APPLY);
}

int weir__cdc_scd1(cdc_run *r, bool fresh, int64_t n_changes,
                   weir_cdc_metrics *m)
{
    bool inu = r->c->ignore_null_updates;
    weir_buf kc = WEIR_BUF_INIT;
    int rc = weir__cdc_key_cols(r, &kc);
    weir__buf_puts(&kc, ", __weir_seq, __weir_del");
    if (inu)
        weir__cdc_inu_state_cols(r, &kc);
    if (!rc)
        rc = kc.failed ? weir__cdc_oom(r->err)
                       : weir__cdc_hidden_table(r, "state",
                                                weir__buf_cstr(&kc), fresh);
    weir__buf_free(&kc);
    if (!rc && !fresh)
        rc = weir__cdc_inu_layout(r);
    int64_t n_trunc = 0, n_cand = 0, ups = 0, changed = 0;
    if (!rc)
        rc = weir__cdc_hidden_table(r, "truncate", "__weir_seq", fresh);
    if (!rc)
        rc = truncate_scd1(r, &n_trunc, m);
    int64_t recorded = 0;
    if (!rc) {
        weir__buf_puts(&r->q, "SELECT count(*) FROM ");
        weir__cdc_hidden(r, "truncate");
        rc = weir__cdc_scalar_q(r, &recorded);
        r->truncated = recorded > 0;
    }
    if (!rc)
        rc = inu ? weir__cdc_inu_apply(r, &n_cand, &ups, &changed)
                 : scd1_merge(r, &n_cand, &ups, &changed);
    if (rc)
        return rc;
    m->ignored += n_changes - n_trunc - n_cand;
    m->upserted += ups;
    /* Each upsert inserts or updates one row: the rest are deletions. */
    m->deleted += changed - ups;
    return 0;
}
