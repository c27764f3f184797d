/*
 * AUTO CDC, SCD type 2 (see cdc_apply.h): the target holds each key's
 * history, one version a row between __START_AT and __END_AT. The change
 * log is kept in _weir."autocdc_log:<target>" and each key's last change
 * in the state table. A key whose new changes are all newer than its last
 * one (the in-order case) continues from its current version: the versions
 * of its new changes are appended after it, with no look at the log.
 * Another key's history is rewritten from the log, from the version
 * holding its oldest new change on, so that a late change lands in its
 * place in the history whatever the order of arrival.
 */
#include "engine/cdc_apply.h"

#include "engine/common.h"
#include "util/str.h"

/* Columns whose change opens a new version. */
static bool tracked(const cdc_run *r, const char *name)
{
    const weir_sql_cdc_columns *th = &r->c->track_history;
    if (weir__cdc_is_key(r, name))
        return false;
    if (!th->set)
        return true;
    bool listed = weir__cdc_in_names(th->cols, th->n, name);
    return th->except ? !listed : listed;
}

/* The change log (with the columns the source gained since it was made:
 * the target got them at materialization) and the keys' state, made from
 * the log when the target predates it. */
static int scd2_tables(cdc_run *r, bool fresh)
{
    weir_buf cols = WEIR_BUF_INIT;
    for (size_t i = 0; i < r->n_data; i++) {
        weir__buf_put_sql_ident(&cols, r->data[i]);
        weir__buf_puts(&cols, ", ");
    }
    weir__buf_puts(&cols, "__weir_seq, __weir_del");
    int rc = cols.failed ? weir__cdc_oom(r->err)
                         : weir__cdc_hidden_table(r, "log",
                                                  weir__buf_cstr(&cols), fresh);
    weir__buf_free(&cols);
    for (size_t i = 0; !rc && !fresh && i < r->schema->n; i++) {
        const weir_column *c = &r->schema->cols[i];
        if (weir__str_ieq(c->name, WEIR_CDC_START_AT) ||
            weir__str_ieq(c->name, WEIR_CDC_END_AT))
            continue;
        weir__buf_puts(&r->q, "ALTER TABLE ");
        weir__cdc_hidden(r, "log");
        weir__buf_puts(&r->q, " ADD COLUMN IF NOT EXISTS ");
        weir__cdc_ident(r, NULL, c->name);
        weir__buf_printf(&r->q, " %s", c->duck_type);
        rc = weir__cdc_run_q(r, NULL);
    }
    if (!rc && fresh) {
        weir__buf_puts(&r->q, "DROP TABLE IF EXISTS ");
        weir__cdc_hidden(r, "state");
        rc = weir__cdc_run_q(r, NULL);
    }
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "CREATE TABLE IF NOT EXISTS ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " AS SELECT ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", max(__weir_seq) AS __weir_seq, arg_max(__weir_del, "
                          "__weir_seq) AS __weir_del FROM ");
    weir__cdc_hidden(r, "log");
    weir__buf_puts(&r->q, " GROUP BY ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    return weir__cdc_run_q(r, NULL);
}

/* New changes: once per key and sequence, not logged before, each with
 * its key's last applied sequence (__weir_last; NULL for a new key). Only
 * the changes not newer than that can be repeats, so only they are looked
 * up in the log. */
static int scd2_new(cdc_run *r)
{
    /* A change delivered twice in the batch is rare: dropping repeats
     * (a delete wins a tie) costs a window only when there are some. */
    int64_t twice = 0;
    weir__buf_puts(&r->q, "SELECT count(*) FROM (SELECT 1 FROM " CDC_BATCH
                          " GROUP BY ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_seq HAVING count(*) > 1)");
    int rc = weir__cdc_scalar_q(r, &twice);
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_NEW " AS SELECT "
                          "__weir_b.*");
    if (r->c->truncate_when) /* the batch has __weir_trunc (stage) */
        weir__buf_puts(&r->q, " EXCLUDE (__weir_trunc)");
    weir__buf_puts(&r->q, ", __weir_s.__weir_seq AS __weir_last FROM " CDC_BATCH
                          " AS __weir_b");
    weir__cdc_join_state(r);
    if (twice) {
        weir__buf_puts(&r->q, " QUALIFY row_number() OVER (PARTITION BY ");
        weir__cdc_list(r, "__weir_b", r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_b.__weir_seq ORDER BY "
                              "__weir_b.__weir_del DESC) = 1");
    }
    if ((rc = weir__cdc_run_q(r, NULL)))
        return rc;
    weir__buf_puts(&r->q, "DELETE FROM " CDC_NEW " AS __weir_n USING (SELECT ");
    weir__cdc_list(r, "__weir_l", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_l.__weir_seq FROM " CDC_NEW " AS __weir_x JOIN ");
    weir__cdc_hidden(r, "log");
    weir__buf_puts(&r->q, " AS __weir_l ON ");
    weir__cdc_keys_equal(r, "__weir_l", "__weir_x");
    weir__buf_puts(&r->q, " AND __weir_l.__weir_seq = __weir_x.__weir_seq WHERE "
                          "__weir_x.__weir_seq <= __weir_x.__weir_last) AS "
                          "__weir_r WHERE ");
    weir__cdc_keys_equal(r, "__weir_n", "__weir_r");
    weir__buf_puts(&r->q, " AND __weir_n.__weir_seq = __weir_r.__weir_seq");
    return weir__cdc_run_q(r, NULL);
}

/* The touched keys and where their history is rebuilt from. A key whose
 * new changes are all newer than its last applied one (__weir_fast, the
 * in-order case) continues from its current version, if it has one.
 * Another key is rebuilt from the log from the version that holds its
 * oldest new change on (all of it when no version starts before that
 * change, or with IGNORE NULL UPDATES, which carries values forward from
 * the key's last delete on): versions before it cannot change. */
static int scd2_window(cdc_run *r)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_WIN " AS WITH "
                          "__weir_k AS (SELECT ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", min(__weir_seq) AS __weir_min, coalesce("
                          "min(__weir_seq) > any_value(__weir_last), true) AS "
                          "__weir_fast FROM " CDC_NEW " GROUP BY ALL) SELECT "
                          "__weir_k.*, __weir_f.__weir_from FROM __weir_k LEFT "
                          "JOIN (SELECT ");
    weir__cdc_list(r, "__weir_n", r->keys, r->n_keys);
    weir__buf_printf(&r->q, ", max(__weir_t.\"" WEIR_CDC_START_AT "\")%s AS "
                            "__weir_from FROM __weir_k AS __weir_n JOIN ",
                     r->c->ignore_null_updates ? " FILTER (WHERE false)" : "");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t ON ");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " AND __weir_t.\"" WEIR_CDC_START_AT "\" <= "
                          "__weir_n.__weir_min WHERE NOT __weir_n.__weir_fast "
                          "GROUP BY ALL) AS __weir_f ON ");
    weir__cdc_keys_equal(r, "__weir_k", "__weir_f");
    int rc = weir__cdc_run_q(r, NULL);
    if (rc)
        return rc;
    /* The in-order keys' current versions, which their changes continue. */
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_OPEN " AS SELECT "
                          "__weir_t.* FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t JOIN " CDC_WIN " AS __weir_n ON ");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " WHERE __weir_n.__weir_fast AND __weir_t.\""
                          WEIR_CDC_END_AT "\" IS NULL");
    if ((rc = weir__cdc_run_q(r, NULL)))
        return rc;
    weir__buf_puts(&r->q, "DELETE FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING " CDC_WIN " AS __weir_n WHERE ");
    weir__cdc_keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " AND CASE WHEN __weir_n.__weir_fast THEN __weir_t.\""
                          WEIR_CDC_END_AT "\" IS NULL ELSE __weir_n.__weir_from "
                          "IS NULL OR __weir_t.\"" WEIR_CDC_START_AT "\" >= "
                          "__weir_n.__weir_from END");
    return weir__cdc_run_q(r, NULL);
}

/* The changes the touched keys' history is rebuilt from, as a relation
 * of log rows: the log from each other key's window on; the in-order
 * keys' new changes after their current version, which stands for the
 * changes that made it (its values are those of its last change, its
 * start the sequence of its first). */
static void scd2_changes(cdc_run *r)
{
    weir__buf_puts(&r->q, "(SELECT __weir_l.* FROM ");
    weir__cdc_hidden(r, "log");
    weir__buf_puts(&r->q, " AS __weir_l JOIN " CDC_WIN " AS __weir_n ON ");
    weir__cdc_keys_equal(r, "__weir_l", "__weir_n");
    weir__buf_puts(&r->q, " AND NOT __weir_n.__weir_fast AND (__weir_n.__weir_from "
                          "IS NULL OR __weir_l.__weir_seq >= __weir_n.__weir_from) "
                          "UNION ALL BY NAME SELECT * EXCLUDE (__weir_last) FROM "
                          CDC_NEW " AS __weir_x SEMI JOIN (SELECT * FROM " CDC_WIN
                          " WHERE __weir_fast) AS __weir_n ON ");
    weir__cdc_keys_equal(r, "__weir_x", "__weir_n");
    weir__buf_puts(&r->q, " UNION ALL BY NAME SELECT * "
                          "EXCLUDE (\"" WEIR_CDC_START_AT "\", \"" WEIR_CDC_END_AT
                          "\"), \"" WEIR_CDC_START_AT "\" AS __weir_seq, false AS "
                          "__weir_del FROM " CDC_OPEN ")");
}

int weir__cdc_scd2(cdc_run *r, bool fresh, int64_t n_changes,
                   weir_cdc_metrics *m)
{
    int rc = scd2_tables(r, fresh);
    if (!rc)
        rc = scd2_new(r);
    if (rc)
        return rc;
    int64_t c[2] = { 0, 0 };
    weir__buf_puts(&r->q, "SELECT count(*) FILTER (WHERE NOT __weir_del), "
                          "count(*) FILTER (WHERE __weir_del) FROM " CDC_NEW);
    if ((rc = weir__cdc_scalars_q(r, c, 2)))
        return rc;
    int64_t ups = c[0], dels = c[1];
    m->upserted += ups;
    m->deleted += dels;
    m->ignored += n_changes - ups - dels;
    weir__buf_puts(&r->q, "INSERT INTO ");
    weir__cdc_hidden(r, "log");
    weir__buf_puts(&r->q, " BY NAME SELECT * EXCLUDE (__weir_last) FROM " CDC_NEW);
    if ((rc = weir__cdc_run_q(r, NULL)) || (rc = scd2_window(r)))
        return rc;
    weir__buf_puts(&r->q, "INSERT INTO ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " BY NAME WITH __weir_e AS (SELECT __weir_l.*, "
                          "lag(__weir_del) OVER __weir_w AS __weir_pdel, "
                          "lead(__weir_seq) OVER __weir_w AS __weir_next");
    size_t n_tracked = 0;
    for (size_t i = 0; i < r->n_data; i++) {
        if (!tracked(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, ", lag(");
        weir__cdc_ident(r, "__weir_l", r->data[i]);
        weir__buf_printf(&r->q, ") OVER __weir_w AS __weir_p%zu", n_tracked++);
    }
    weir__buf_puts(&r->q, " FROM ");
    if (r->c->ignore_null_updates) {
        /* Each column's last non-NULL value since the key's last delete. */
        weir__buf_puts(&r->q, "(SELECT ");
        weir__cdc_list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_seq, __weir_del");
        for (size_t i = 0; i < r->n_data; i++) {
            if (weir__cdc_is_key(r, r->data[i]))
                continue;
            weir__buf_puts(&r->q, ", CASE WHEN __weir_del THEN NULL ELSE "
                                  "last_value(CASE WHEN __weir_del THEN NULL "
                                  "ELSE ");
            weir__cdc_ident(r, NULL, r->data[i]);
            weir__buf_puts(&r->q, " END IGNORE NULLS) OVER (PARTITION BY ");
            weir__cdc_list(r, NULL, r->keys, r->n_keys);
            weir__buf_puts(&r->q, ", __weir_dg ORDER BY __weir_seq ROWS BETWEEN "
                                  "UNBOUNDED PRECEDING AND CURRENT ROW) END AS ");
            weir__cdc_ident(r, NULL, r->data[i]);
        }
        weir__buf_puts(&r->q, " FROM (SELECT __weir_k.*, sum(CASE WHEN "
                              "__weir_del THEN 1 ELSE 0 END) OVER (PARTITION BY ");
        weir__cdc_list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, " ORDER BY __weir_seq ROWS BETWEEN UNBOUNDED "
                              "PRECEDING AND CURRENT ROW) AS __weir_dg FROM ");
        scd2_changes(r);
        weir__buf_puts(&r->q, " AS __weir_k) AS __weir_g) AS __weir_l");
    } else {
        scd2_changes(r);
        weir__buf_puts(&r->q, " AS __weir_l");
    }
    weir__buf_puts(&r->q, " WINDOW __weir_w AS (PARTITION BY ");
    weir__cdc_list(r, "__weir_l", r->keys, r->n_keys);
    weir__buf_puts(&r->q, " ORDER BY __weir_l.__weir_seq)), __weir_v AS (SELECT "
                          "*, sum(CASE WHEN NOT __weir_del AND (__weir_pdel IS "
                          "NULL OR __weir_pdel");
    n_tracked = 0;
    for (size_t i = 0; i < r->n_data; i++) {
        if (!tracked(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, " OR ");
        weir__cdc_ident(r, NULL, r->data[i]);
        weir__buf_printf(&r->q, " IS DISTINCT FROM __weir_p%zu", n_tracked++);
    }
    weir__buf_puts(&r->q, ") THEN 1 ELSE 0 END) OVER (PARTITION BY ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, " ORDER BY __weir_seq ROWS BETWEEN UNBOUNDED PRECEDING "
                          "AND CURRENT ROW) AS __weir_vid FROM __weir_e) SELECT ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    for (size_t i = 0; i < r->n_data; i++) {
        if (weir__cdc_is_key(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, ", arg_max_null(");
        weir__cdc_ident(r, NULL, r->data[i]);
        weir__buf_puts(&r->q, ", __weir_seq) AS ");
        weir__cdc_ident(r, NULL, r->data[i]);
    }
    weir__buf_puts(&r->q, ", min(__weir_seq) AS \"" WEIR_CDC_START_AT "\", "
                          "arg_max_null(__weir_next, __weir_seq) AS \""
                          WEIR_CDC_END_AT "\" FROM __weir_v WHERE NOT __weir_del "
                          "GROUP BY ");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_vid");
    if ((rc = weir__cdc_run_q(r, NULL)))
        return rc;
    /* The keys' state, for the next batch's in-order test. */
    weir_buf src = WEIR_BUF_INIT;
    weir__buf_puts(&src, "(SELECT ");
    rc = weir__cdc_key_cols(r, &src);
    weir__buf_puts(&src, ", max(__weir_seq) AS __weir_seq, arg_max(__weir_del, "
                         "__weir_seq) AS __weir_del FROM " CDC_NEW " GROUP BY ALL)");
    if (!rc)
        rc = src.failed ? weir__cdc_oom(r->err)
                        : weir__cdc_state_merge(r, weir__buf_cstr(&src));
    weir__buf_free(&src);
    return rc;
}
