/*
 * AUTO CDC flows: target schema and the apply of a batch (see cdc.h).
 *
 * A batch is staged once (its chosen columns, the sequence value and the
 * delete and truncate conditions evaluated per change) in a temporary
 * table of the flow's connection. SCD 1 keeps, per key ever seen, the
 * sequence of the change last applied and whether it was a delete (a
 * tombstone) in _weir."autocdc_state:<target>", and the latest truncate's
 * sequence in _weir."autocdc_truncate:<target>": a change not newer than
 * both is late and ignored, the newest change per key of the batch is
 * MERGEd into the target. SCD 2 keeps the change log in
 * _weir."autocdc_log:<target>" and each key's last change in the state
 * table too. A key whose new changes are all newer than its last one (the
 * in-order case) continues from its current version: the versions of its
 * new changes are appended after it, with no look at the log. Another
 * key's history is rewritten from the log, from the version holding its
 * oldest new change on, so that a late change lands in its place in the
 * history whatever the order of arrival.
 */
#include "engine/cdc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "sources/checkpoint.h"
#include "store/meta.h"
#include "util/buf.h"
#include "util/str.h"

#define RESERVED_PREFIX "__spark_autocdc_"
#define BATCH "__weir_cdc_batch"
#define APPLY "__weir_cdc_apply"
#define NEW "__weir_cdc_new"
#define WIN "__weir_cdc_win"
#define OPEN "__weir_cdc_open"

static int oom(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

static const char *last_part(const weir_sql_name *n)
{
    return n->parts[n->n - 1];
}

static const weir_column *find_col(const weir_schema *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (weir__str_ieq(s->cols[i].name, name))
            return &s->cols[i];
    return NULL;
}

static bool in_names(const weir_sql_name *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (weir__str_ieq(last_part(&names[i]), name))
            return true;
    return false;
}

static int error_at(weir_error *err, const weir_gflow *f, weir_sql_pos pos,
                    int code, const char *cls, const char *msg)
{
    WEIR_ERR(err, code, cls, "%s", msg);
    weir_origin o = f->origin;
    o.pos = pos;
    weir__origin_error_at(err, &o);
    return code;
}

/* Every name of the list must be a column of the source. */
static int names_exist(const weir_gflow *f, const weir_schema *src,
                       const weir_sql_name *names, size_t n, const char *what,
                       weir_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (find_col(src, last_part(&names[i])))
            continue;
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m, "AUTO CDC flow '%s': the %s column '%s' is not "
                             "in the schema of its source (",
                         f->display, what, last_part(&names[i]));
        for (size_t k = 0; k < src->n; k++)
            weir__buf_printf(&m, "%s%s", k ? ", " : "", src->cols[k].name);
        weir__buf_puts(&m, ").");
        int rc = m.failed ? oom(err)
                          : error_at(err, f, names[i].pos, WEIR_EGRAPH,
                                     "AUTOCDC_COLUMNS_NOT_FOUND_IN_SCHEMA",
                                     weir__buf_cstr(&m));
        weir__buf_free(&m);
        return rc;
    }
    return 0;
}

/* The type of an expression over the source, or an error at its place. */
static int expr_type(const char **out, weir_arena *a, weir_conn *conn,
                     const weir_gflow *f, const weir_sql_expr *e,
                     const char *src_sql, const char *what, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT (");
    int rc = weir__sql_translate_expr(&q, e, err);
    if (rc) {
        weir__buf_free(&q);
        return rc;
    }
    weir__buf_printf(&q, ") AS v FROM (%s) AS __weir_src", src_sql);
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error e2;
    weir__error_clear(&e2);
    rc = q.failed ? oom(err)
                  : weir__conn_describe(conn, weir__buf_cstr(&q), &cols, &n, a,
                                        &e2);
    weir__buf_free(&q);
    if (rc == WEIR_ENOMEM)
        return oom(err);
    if (rc || n != 1) {
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m, "AUTO CDC flow '%s': its %s does not resolve "
                             "against the source: %s",
                         f->display, what, e2.message);
        rc = m.failed ? oom(err)
                      : error_at(err, f, weir__sql_expr_pos(e), WEIR_EGRAPH,
                                 "AUTOCDC_INVALID_EXPRESSION",
                                 weir__buf_cstr(&m));
        weir__buf_free(&m);
        return rc;
    }
    *out = cols[0].type;
    return 0;
}

int weir__cdc_target_schema(weir_schema *out, weir_arena *a, weir_conn *conn,
                            const weir_gflow *f, const weir_schema *src,
                            const char *src_sql, weir_error *err)
{
    const weir_sql_cdc *c = f->cdc;
    bool scd2 = c->scd_type == 2;
    for (size_t i = 0; i < src->n; i++) {
        const char *n = src->cols[i].name;
        if (weir__str_istarts(n, RESERVED_PREFIX) ||
            (scd2 && (weir__str_ieq(n, WEIR_CDC_START_AT) ||
                      weir__str_ieq(n, WEIR_CDC_END_AT)))) {
            char msg[800];
            snprintf(msg, sizeof(msg),
                     "AUTO CDC flow '%s': the source column '%s' uses a name "
                     "reserved for the target's AUTO CDC columns (the prefix "
                     "'" RESERVED_PREFIX "'%s). Rename it in the source or "
                     "leave it out with COLUMNS * EXCEPT.",
                     f->display, n, scd2 ? ", __START_AT and __END_AT" : "");
            if (!in_names(c->columns.cols, c->columns.n, n) ||
                !c->columns.except)
                return error_at(err, f, c->pos, WEIR_EGRAPH,
                                "AUTOCDC_RESERVED_COLUMN_NAME_PREFIX_CONFLICT",
                                msg);
        }
    }
    int rc;
    if ((rc = names_exist(f, src, c->keys, c->n_keys, "key", err)) ||
        (rc = names_exist(f, src, c->columns.cols, c->columns.n, "selected",
                          err)) ||
        (rc = names_exist(f, src, c->track_history.cols, c->track_history.n,
                          "tracked", err)))
        return rc;
    const char *seq_type = NULL, *t;
    if (c->sequence_by &&
        (rc = expr_type(&seq_type, a, conn, f, c->sequence_by, src_sql,
                        "SEQUENCE BY expression", err)))
        return rc;
    if (c->delete_when &&
        (rc = expr_type(&t, a, conn, f, c->delete_when, src_sql,
                        "APPLY AS DELETE WHEN condition", err)))
        return rc;
    if (c->truncate_when &&
        (rc = expr_type(&t, a, conn, f, c->truncate_when, src_sql,
                        "APPLY AS TRUNCATE WHEN condition", err)))
        return rc;
    out->cols = weir__arena_array(a, src->n + 3, sizeof(*out->cols));
    if (!out->cols)
        return oom(err);
    out->n = 0;
    /* Keys first when a column list leaves them out. */
    bool listed = c->columns.set && !c->columns.except && c->columns.n;
    for (size_t i = 0; listed && i < c->n_keys; i++)
        if (!in_names(c->columns.cols, c->columns.n, last_part(&c->keys[i])))
            out->cols[out->n++] = *find_col(src, last_part(&c->keys[i]));
    for (size_t i = 0; listed && i < c->columns.n; i++) {
        const weir_column *col = find_col(src, last_part(&c->columns.cols[i]));
        if (!find_col(out, col->name)) /* named twice: once */
            out->cols[out->n++] = *col;
    }
    for (size_t i = 0; !listed && i < src->n; i++) {
        const weir_column *col = &src->cols[i];
        bool key = in_names(c->keys, c->n_keys, col->name);
        if (!c->columns.except || key ||
            !in_names(c->columns.cols, c->columns.n, col->name))
            out->cols[out->n++] = *col;
    }
    for (size_t i = 0; i < out->n; i++)
        if (in_names(c->keys, c->n_keys, out->cols[i].name))
            out->cols[i].nullable = false;
    if (scd2 && seq_type) {
        weir_buf sp = WEIR_BUF_INIT;
        weir__sql_duckdb_type_to_spark(&sp, seq_type);
        const char *spark = weir__arena_strdup(a, weir__buf_cstr(&sp));
        weir__buf_free(&sp);
        weir_column start = { WEIR_CDC_START_AT, seq_type, spark, true, NULL };
        weir_column end = { WEIR_CDC_END_AT, seq_type, spark, true, NULL };
        out->cols[out->n++] = start;
        out->cols[out->n++] = end;
    }
    return weir__arena_failed(a) ? oom(err) : 0;
}

/* ---- applying a batch -------------------------------------------------------- */

typedef struct cdc_run {
    weir_conn *conn;
    const weir_gflow *f;
    const weir_gdataset *t;
    const weir_sql_cdc *c;
    const weir_schema *schema; /* the target's columns */
    const char *cat; /* catalog holding _weir */
    const char **data; /* the target's change columns (no __START_AT..) */
    size_t n_data;
    const char **keys; /* the target's spelling of the keys */
    size_t n_keys;
    weir_error *err;
    weir_buf q;
    int64_t n_trunc; /* the batch's truncates (stage) */
    bool truncated;  /* a truncate is recorded: older changes are late */
} cdc_run;

static void hidden(cdc_run *r, const char *what)
{
    char name[900];
    snprintf(name, sizeof(name), "autocdc_%s:%s", what, r->t->display);
    weir__meta_table(&r->q, r->cat, "");
    weir__buf_put_sql_ident(&r->q, name);
}

static void ident(cdc_run *r, const char *prefix, const char *name)
{
    if (prefix)
        weir__buf_printf(&r->q, "%s.", prefix);
    weir__buf_put_sql_ident(&r->q, name);
}

static void list(cdc_run *r, const char *prefix, const char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(&r->q, ", ");
        ident(r, prefix, names[i]);
    }
}

/* a.k1 = b.k1 AND ... */
static void keys_equal(cdc_run *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->n_keys; i++) {
        if (i)
            weir__buf_puts(&r->q, " AND ");
        ident(r, a, r->keys[i]);
        weir__buf_puts(&r->q, " = ");
        ident(r, b, r->keys[i]);
    }
}

static bool is_key(const cdc_run *r, const char *name)
{
    for (size_t i = 0; i < r->n_keys; i++)
        if (weir__str_ieq(r->keys[i], name))
            return true;
    return false;
}

static int run_q(cdc_run *r, int64_t *changed)
{
    int rc = r->q.failed ? oom(r->err)
                         : weir__conn_exec(r->conn, weir__buf_cstr(&r->q),
                                           changed, r->err);
    weir__buf_clear(&r->q);
    return rc;
}

static int scalar_q(cdc_run *r, int64_t *out)
{
    bool null = false;
    int rc = r->q.failed ? oom(r->err)
                         : weir__conn_scalar_i64(r->conn, weir__buf_cstr(&r->q),
                                                 out, &null, r->err);
    if (!rc && null)
        *out = 0;
    weir__buf_clear(&r->q);
    return rc;
}

/* The n integers of the one row of r->q's query (NULL: 0). */
static int scalars_q(cdc_run *r, int64_t *out, size_t n)
{
    weir_rows *rows = NULL;
    int rc = r->q.failed ? oom(r->err)
                         : weir__conn_query(r->conn, weir__buf_cstr(&r->q),
                                            &rows, r->err);
    for (size_t i = 0; i < n; i++) {
        const char *v = !rc && rows->n_rows && i < rows->n_cols
                            ? weir__rows_get(rows, 0, i)
                            : NULL;
        out[i] = v ? strtoll(v, NULL, 10) : 0;
    }
    weir__rows_free(rows);
    weir__buf_clear(&r->q);
    return rc;
}

static int put_expr(cdc_run *r, const weir_sql_expr *e, const char *dflt)
{
    if (!e) {
        weir__buf_puts(&r->q, dflt);
        return 0;
    }
    weir__buf_putc(&r->q, '(');
    int rc = weir__sql_translate_expr(&r->q, e, r->err);
    weir__buf_putc(&r->q, ')');
    return rc;
}

/* The batch's changes with their sequence and conditions, checked. */
static int stage(cdc_run *r, const char *src_sql, int64_t *n_changes)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " BATCH " AS SELECT ");
    list(r, NULL, r->data, r->n_data);
    weir__buf_puts(&r->q, ", ");
    int rc = put_expr(r, r->c->sequence_by, "NULL");
    weir__buf_puts(&r->q, " AS __weir_seq, coalesce(");
    if (!rc)
        rc = put_expr(r, r->c->delete_when, "false");
    weir__buf_puts(&r->q, ", false) AS __weir_del");
    /* Without APPLY AS TRUNCATE no column: every statement over the
     * batch carries each column it has. */
    bool has_trunc = r->c->truncate_when != NULL;
    if (has_trunc) {
        weir__buf_puts(&r->q, ", coalesce(");
        if (!rc)
            rc = put_expr(r, r->c->truncate_when, "false");
        weir__buf_puts(&r->q, ", false) AS __weir_trunc");
    }
    weir__buf_printf(&r->q, " FROM (%s) AS __weir_src", src_sql);
    if (rc || (rc = run_q(r, NULL)))
        return rc;
    /* The changes, those without a sequence, those without a key, and
     * the truncates, in one pass. */
    weir__buf_puts(&r->q, "SELECT count(*), count(*) FILTER (WHERE __weir_seq IS "
                          "NULL), count(*) FILTER (WHERE ");
    weir__buf_puts(&r->q, has_trunc ? "NOT __weir_trunc AND (false" : "(false");
    for (size_t i = 0; i < r->n_keys; i++) {
        weir__buf_puts(&r->q, " OR ");
        ident(r, NULL, r->keys[i]);
        weir__buf_puts(&r->q, " IS NULL");
    }
    weir__buf_puts(&r->q, has_trunc ? ")), count(*) FILTER (WHERE __weir_trunc)"
                                     : ")), 0");
    weir__buf_puts(&r->q, " FROM " BATCH);
    int64_t c[4] = { 0, 0, 0, 0 };
    if ((rc = scalars_q(r, c, 4)))
        return rc;
    if (c[1])
        return WEIR_ERR(r->err, WEIR_ERROR,
                        "AUTOCDC_MICROBATCH_VALIDATION.NULL_SEQUENCE",
                        "AUTO CDC flow '%s': %lld change(s) of the batch have a "
                        "NULL SEQUENCE BY value; every change needs one.",
                        r->f->display, (long long)c[1]);
    if (c[2])
        return WEIR_ERR(r->err, WEIR_ERROR,
                        "AUTOCDC_MICROBATCH_VALIDATION.NULL_KEY",
                        "AUTO CDC flow '%s': %lld change(s) of the batch have a "
                        "NULL key column; keys identify rows and cannot be "
                        "NULL.",
                        r->f->display, (long long)c[2]);
    *n_changes = c[0];
    r->n_trunc = c[3];
    return 0;
}

/* CREATE TABLE IF NOT EXISTS <hidden what> AS SELECT cols FROM batch
 * LIMIT 0, dropped first when fresh. */
static int hidden_table(cdc_run *r, const char *what, const char *cols,
                        bool fresh)
{
    int rc = 0;
    if (fresh) {
        weir__buf_puts(&r->q, "DROP TABLE IF EXISTS ");
        hidden(r, what);
        if ((rc = run_q(r, NULL)))
            return rc;
    }
    weir__buf_puts(&r->q, "CREATE TABLE IF NOT EXISTS ");
    hidden(r, what);
    weir__buf_printf(&r->q, " AS SELECT %s FROM " BATCH " LIMIT 0", cols);
    return run_q(r, NULL);
}

static int key_cols(cdc_run *r, weir_buf *out)
{
    for (size_t i = 0; i < r->n_keys; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, r->keys[i]);
    }
    return out->failed ? oom(r->err) : 0;
}

/* The batch's truncates (*n of them): their latest sequence is recorded,
 * and the rows and state of keys whose last change is not newer go. */
static int truncate_scd1(cdc_run *r, int64_t *n, weir_cdc_metrics *m)
{
    *n = r->n_trunc;
    if (!*n)
        return 0;
    int rc;
    weir__buf_puts(&r->q, "INSERT INTO ");
    hidden(r, "truncate");
    weir__buf_puts(&r->q, " SELECT max(__weir_seq) FROM " BATCH
                          " WHERE __weir_trunc");
    if ((rc = run_q(r, NULL)))
        return rc;
    /* Rows whose last change is not newer than the truncate go. */
    int64_t gone = 0;
    weir__buf_puts(&r->q, "DELETE FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING ");
    hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s WHERE ");
    keys_equal(r, "__weir_t", "__weir_s");
    weir__buf_puts(&r->q, " AND __weir_s.__weir_seq <= (SELECT max(__weir_seq) "
                          "FROM ");
    hidden(r, "truncate");
    weir__buf_puts(&r->q, ")");
    if ((rc = run_q(r, &gone)))
        return rc;
    m->deleted += gone;
    weir__buf_puts(&r->q, "DELETE FROM ");
    hidden(r, "state");
    weir__buf_puts(&r->q, " WHERE __weir_seq <= (SELECT max(__weir_seq) FROM ");
    hidden(r, "truncate");
    weir__buf_puts(&r->q, ")");
    return run_q(r, NULL);
}

/* Each key's latest change (src: the keys, __weir_seq and __weir_del, one
 * row per key) into the state table, where it is newer. */
static int state_merge(cdc_run *r, const char *src)
{
    weir__buf_puts(&r->q, "MERGE INTO ");
    hidden(r, "state");
    weir__buf_printf(&r->q, " AS __weir_s USING %s AS __weir_a ON (", src);
    keys_equal(r, "__weir_s", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_seq > "
                          "__weir_s.__weir_seq THEN UPDATE SET __weir_seq = "
                          "__weir_a.__weir_seq, __weir_del = __weir_a.__weir_del "
                          "WHEN NOT MATCHED THEN INSERT (");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_seq, __weir_del) VALUES (");
    list(r, "__weir_a", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_a.__weir_seq, __weir_a.__weir_del)");
    return run_q(r, NULL);
}

/* The keys' state (__weir_s, NULL for a new key) joined to the batch
 * (__weir_b). */
static void join_state(cdc_run *r)
{
    weir__buf_puts(&r->q, " LEFT JOIN ");
    hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s ON ");
    keys_equal(r, "__weir_b", "__weir_s");
}

/* FROM and WHERE of the candidates: the changes newer than the key's
 * state and the last truncate. The batch's truncates are left out only
 * when it has some: DuckDB then guesses the filter keeps a fifth of the
 * batch and builds its hash table on the batch instead of the state
 * (bench/cdc-RESULTS.md). The last truncate is compared only when one is
 * recorded: the scalar subquery costs the statement a tenth of its time. */
static void scd1_candidates(cdc_run *r)
{
    weir__buf_puts(&r->q, " FROM " BATCH " AS __weir_b");
    join_state(r);
    weir__buf_puts(&r->q, r->n_trunc ? " WHERE NOT __weir_b.__weir_trunc AND "
                                     : " WHERE ");
    weir__buf_puts(&r->q, "(__weir_s.__weir_seq IS NULL OR __weir_b.__weir_seq > "
                          "__weir_s.__weir_seq)");
    if (!r->truncated)
        return;
    weir__buf_puts(&r->q, " AND NOT coalesce(__weir_b.__weir_seq <= (SELECT "
                          "max(__weir_seq) FROM ");
    hidden(r, "truncate");
    weir__buf_puts(&r->q, "), false)");
}

/* One row per key with candidates: the newest, or with IGNORE NULL
 * UPDATES each column's newest non-NULL value since the key's last
 * delete; __weir_n counts the key's candidates. */
static int scd1_apply_rows(cdc_run *r)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " APPLY " AS ");
    if (!r->c->ignore_null_updates) {
        weir__buf_puts(&r->q, "SELECT __weir_b.*, false AS __weir_fresh, "
                              "count(*) OVER (PARTITION BY ");
        list(r, "__weir_b", r->keys, r->n_keys);
        weir__buf_puts(&r->q, ") AS __weir_n");
        scd1_candidates(r);
        weir__buf_puts(&r->q, " QUALIFY row_number() OVER (PARTITION BY ");
        list(r, "__weir_b", r->keys, r->n_keys);
        weir__buf_puts(&r->q, " ORDER BY __weir_b.__weir_seq DESC, "
                              "__weir_b.__weir_del DESC) = 1");
        return run_q(r, NULL);
    }
    weir__buf_puts(&r->q, "WITH __weir_c AS (SELECT __weir_b.*, max(CASE WHEN "
                          "__weir_b.__weir_del THEN __weir_b.__weir_seq END) OVER "
                          "(PARTITION BY ");
    list(r, "__weir_b", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ") AS __weir_lastdel");
    scd1_candidates(r);
    weir__buf_puts(&r->q, ") SELECT ");
    list(r, NULL, r->keys, r->n_keys);
    for (size_t i = 0; i < r->n_data; i++) {
        if (is_key(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, ", arg_max(");
        ident(r, NULL, r->data[i]);
        weir__buf_puts(&r->q, ", __weir_seq) FILTER (WHERE NOT __weir_del AND ");
        ident(r, NULL, r->data[i]);
        weir__buf_puts(&r->q, " IS NOT NULL AND (__weir_lastdel IS NULL OR "
                              "__weir_seq > __weir_lastdel)) AS ");
        ident(r, NULL, r->data[i]);
    }
    weir__buf_puts(&r->q, ", max(__weir_seq) AS __weir_seq, "
                          "coalesce(max(__weir_lastdel) >= max(__weir_seq), false) "
                          "AS __weir_del, max(__weir_lastdel) IS NOT NULL AS "
                          "__weir_fresh, count(*) AS __weir_n FROM __weir_c "
                          "GROUP BY ");
    list(r, NULL, r->keys, r->n_keys);
    return run_q(r, NULL);
}

static int scd1(cdc_run *r, bool fresh, int64_t n_changes,
                weir_cdc_metrics *m)
{
    weir_buf kc = WEIR_BUF_INIT;
    int rc = key_cols(r, &kc);
    weir__buf_puts(&kc, ", __weir_seq, __weir_del");
    if (!rc)
        rc = kc.failed ? oom(r->err)
                       : hidden_table(r, "state", weir__buf_cstr(&kc), fresh);
    weir__buf_free(&kc);
    int64_t n_trunc = 0, n_cand = 0, ups = 0, changed = 0;
    if (!rc)
        rc = hidden_table(r, "truncate", "__weir_seq", fresh);
    if (!rc)
        rc = truncate_scd1(r, &n_trunc, m);
    int64_t recorded = 0;
    if (!rc) {
        weir__buf_puts(&r->q, "SELECT count(*) FROM ");
        hidden(r, "truncate");
        rc = scalar_q(r, &recorded);
        r->truncated = recorded > 0;
    }
    if (!rc)
        rc = scd1_apply_rows(r);
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "SELECT sum(__weir_n), count(*) FILTER (WHERE NOT "
                          "__weir_del) FROM " APPLY);
    int64_t c[2] = { 0, 0 };
    if ((rc = scalars_q(r, c, 2)))
        return rc;
    n_cand = c[0];
    ups = c[1];
    m->ignored += n_changes - n_trunc - n_cand;
    m->upserted += ups;
    /* The target. */
    weir__buf_puts(&r->q, "MERGE INTO ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING " APPLY " AS __weir_a ON (");
    keys_equal(r, "__weir_t", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_del THEN DELETE");
    bool any = false;
    for (size_t i = 0; i < r->n_data; i++)
        any |= !is_key(r, r->data[i]);
    if (any) {
        weir__buf_puts(&r->q, " WHEN MATCHED THEN UPDATE SET ");
        bool first = true;
        for (size_t i = 0; i < r->n_data; i++) {
            if (is_key(r, r->data[i]))
                continue;
            weir__buf_puts(&r->q, first ? "" : ", ");
            first = false;
            ident(r, NULL, r->data[i]);
            weir__buf_puts(&r->q, " = ");
            if (r->c->ignore_null_updates) {
                weir__buf_puts(&r->q, "CASE WHEN __weir_a.__weir_fresh THEN ");
                ident(r, "__weir_a", r->data[i]);
                weir__buf_puts(&r->q, " ELSE coalesce(");
                ident(r, "__weir_a", r->data[i]);
                weir__buf_puts(&r->q, ", ");
                ident(r, "__weir_t", r->data[i]);
                weir__buf_puts(&r->q, ") END");
            } else {
                ident(r, "__weir_a", r->data[i]);
            }
        }
    }
    weir__buf_puts(&r->q, " WHEN NOT MATCHED AND NOT __weir_a.__weir_del THEN "
                          "INSERT (");
    list(r, NULL, r->data, r->n_data);
    weir__buf_puts(&r->q, ") VALUES (");
    list(r, "__weir_a", r->data, r->n_data);
    weir__buf_puts(&r->q, ")");
    /* Each upsert inserts or updates one row: the rest are deletions. */
    if ((rc = run_q(r, &changed)))
        return rc;
    m->deleted += changed - ups;
    /* The keys' state: tombstones included. */
    return state_merge(r, APPLY);
}

/* Columns whose change opens a new version. */
static bool tracked(const cdc_run *r, const char *name)
{
    const weir_sql_cdc_columns *th = &r->c->track_history;
    if (is_key(r, name))
        return false;
    if (!th->set)
        return true;
    bool listed = in_names(th->cols, th->n, name);
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
    int rc = cols.failed ? oom(r->err)
                         : hidden_table(r, "log", weir__buf_cstr(&cols), fresh);
    weir__buf_free(&cols);
    for (size_t i = 0; !rc && !fresh && i < r->schema->n; i++) {
        const weir_column *c = &r->schema->cols[i];
        if (weir__str_ieq(c->name, WEIR_CDC_START_AT) ||
            weir__str_ieq(c->name, WEIR_CDC_END_AT))
            continue;
        weir__buf_puts(&r->q, "ALTER TABLE ");
        hidden(r, "log");
        weir__buf_puts(&r->q, " ADD COLUMN IF NOT EXISTS ");
        ident(r, NULL, c->name);
        weir__buf_printf(&r->q, " %s", c->duck_type);
        rc = run_q(r, NULL);
    }
    if (!rc && fresh) {
        weir__buf_puts(&r->q, "DROP TABLE IF EXISTS ");
        hidden(r, "state");
        rc = run_q(r, NULL);
    }
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "CREATE TABLE IF NOT EXISTS ");
    hidden(r, "state");
    weir__buf_puts(&r->q, " AS SELECT ");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", max(__weir_seq) AS __weir_seq, arg_max(__weir_del, "
                          "__weir_seq) AS __weir_del FROM ");
    hidden(r, "log");
    weir__buf_puts(&r->q, " GROUP BY ");
    list(r, NULL, r->keys, r->n_keys);
    return run_q(r, NULL);
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
    weir__buf_puts(&r->q, "SELECT count(*) FROM (SELECT 1 FROM " BATCH
                          " GROUP BY ");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_seq HAVING count(*) > 1)");
    int rc = scalar_q(r, &twice);
    if (rc)
        return rc;
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " NEW " AS SELECT "
                          "__weir_b.*");
    if (r->c->truncate_when) /* the batch has __weir_trunc (stage) */
        weir__buf_puts(&r->q, " EXCLUDE (__weir_trunc)");
    weir__buf_puts(&r->q, ", __weir_s.__weir_seq AS __weir_last FROM " BATCH
                          " AS __weir_b");
    join_state(r);
    if (twice) {
        weir__buf_puts(&r->q, " QUALIFY row_number() OVER (PARTITION BY ");
        list(r, "__weir_b", r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_b.__weir_seq ORDER BY "
                              "__weir_b.__weir_del DESC) = 1");
    }
    if ((rc = run_q(r, NULL)))
        return rc;
    weir__buf_puts(&r->q, "DELETE FROM " NEW " AS __weir_n USING (SELECT ");
    list(r, "__weir_l", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_l.__weir_seq FROM " NEW " AS __weir_x JOIN ");
    hidden(r, "log");
    weir__buf_puts(&r->q, " AS __weir_l ON ");
    keys_equal(r, "__weir_l", "__weir_x");
    weir__buf_puts(&r->q, " AND __weir_l.__weir_seq = __weir_x.__weir_seq WHERE "
                          "__weir_x.__weir_seq <= __weir_x.__weir_last) AS "
                          "__weir_r WHERE ");
    keys_equal(r, "__weir_n", "__weir_r");
    weir__buf_puts(&r->q, " AND __weir_n.__weir_seq = __weir_r.__weir_seq");
    return run_q(r, NULL);
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
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " WIN " AS WITH "
                          "__weir_k AS (SELECT ");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", min(__weir_seq) AS __weir_min, coalesce("
                          "min(__weir_seq) > any_value(__weir_last), true) AS "
                          "__weir_fast FROM " NEW " GROUP BY ALL) SELECT "
                          "__weir_k.*, __weir_f.__weir_from FROM __weir_k LEFT "
                          "JOIN (SELECT ");
    list(r, "__weir_n", r->keys, r->n_keys);
    weir__buf_printf(&r->q, ", max(__weir_t.\"" WEIR_CDC_START_AT "\")%s AS "
                            "__weir_from FROM __weir_k AS __weir_n JOIN ",
                     r->c->ignore_null_updates ? " FILTER (WHERE false)" : "");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t ON ");
    keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " AND __weir_t.\"" WEIR_CDC_START_AT "\" <= "
                          "__weir_n.__weir_min WHERE NOT __weir_n.__weir_fast "
                          "GROUP BY ALL) AS __weir_f ON ");
    keys_equal(r, "__weir_k", "__weir_f");
    int rc = run_q(r, NULL);
    if (rc)
        return rc;
    /* The in-order keys' current versions, which their changes continue. */
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " OPEN " AS SELECT "
                          "__weir_t.* FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t JOIN " WIN " AS __weir_n ON ");
    keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " WHERE __weir_n.__weir_fast AND __weir_t.\""
                          WEIR_CDC_END_AT "\" IS NULL");
    if ((rc = run_q(r, NULL)))
        return rc;
    weir__buf_puts(&r->q, "DELETE FROM ");
    weir__phys(&r->q, r->t);
    weir__buf_puts(&r->q, " AS __weir_t USING " WIN " AS __weir_n WHERE ");
    keys_equal(r, "__weir_t", "__weir_n");
    weir__buf_puts(&r->q, " AND CASE WHEN __weir_n.__weir_fast THEN __weir_t.\""
                          WEIR_CDC_END_AT "\" IS NULL ELSE __weir_n.__weir_from "
                          "IS NULL OR __weir_t.\"" WEIR_CDC_START_AT "\" >= "
                          "__weir_n.__weir_from END");
    return run_q(r, NULL);
}

/* The changes the touched keys' history is rebuilt from, as a relation
 * of log rows: the log from each other key's window on; the in-order
 * keys' new changes after their current version, which stands for the
 * changes that made it (its values are those of its last change, its
 * start the sequence of its first). */
static void scd2_changes(cdc_run *r)
{
    weir__buf_puts(&r->q, "(SELECT __weir_l.* FROM ");
    hidden(r, "log");
    weir__buf_puts(&r->q, " AS __weir_l JOIN " WIN " AS __weir_n ON ");
    keys_equal(r, "__weir_l", "__weir_n");
    weir__buf_puts(&r->q, " AND NOT __weir_n.__weir_fast AND (__weir_n.__weir_from "
                          "IS NULL OR __weir_l.__weir_seq >= __weir_n.__weir_from) "
                          "UNION ALL BY NAME SELECT * EXCLUDE (__weir_last) FROM "
                          NEW " AS __weir_x SEMI JOIN (SELECT * FROM " WIN
                          " WHERE __weir_fast) AS __weir_n ON ");
    keys_equal(r, "__weir_x", "__weir_n");
    weir__buf_puts(&r->q, " UNION ALL BY NAME SELECT * "
                          "EXCLUDE (\"" WEIR_CDC_START_AT "\", \"" WEIR_CDC_END_AT
                          "\"), \"" WEIR_CDC_START_AT "\" AS __weir_seq, false AS "
                          "__weir_del FROM " OPEN ")");
}

static int scd2(cdc_run *r, bool fresh, int64_t n_changes, weir_cdc_metrics *m)
{
    int rc = scd2_tables(r, fresh);
    if (!rc)
        rc = scd2_new(r);
    if (rc)
        return rc;
    int64_t c[2] = { 0, 0 };
    weir__buf_puts(&r->q, "SELECT count(*) FILTER (WHERE NOT __weir_del), "
                          "count(*) FILTER (WHERE __weir_del) FROM " NEW);
    if ((rc = scalars_q(r, c, 2)))
        return rc;
    int64_t ups = c[0], dels = c[1];
    m->upserted += ups;
    m->deleted += dels;
    m->ignored += n_changes - ups - dels;
    weir__buf_puts(&r->q, "INSERT INTO ");
    hidden(r, "log");
    weir__buf_puts(&r->q, " BY NAME SELECT * EXCLUDE (__weir_last) FROM " NEW);
    if ((rc = run_q(r, NULL)) || (rc = scd2_window(r)))
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
        ident(r, "__weir_l", r->data[i]);
        weir__buf_printf(&r->q, ") OVER __weir_w AS __weir_p%zu", n_tracked++);
    }
    weir__buf_puts(&r->q, " FROM ");
    if (r->c->ignore_null_updates) {
        /* Each column's last non-NULL value since the key's last delete. */
        weir__buf_puts(&r->q, "(SELECT ");
        list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_seq, __weir_del");
        for (size_t i = 0; i < r->n_data; i++) {
            if (is_key(r, r->data[i]))
                continue;
            weir__buf_puts(&r->q, ", CASE WHEN __weir_del THEN NULL ELSE "
                                  "last_value(CASE WHEN __weir_del THEN NULL "
                                  "ELSE ");
            ident(r, NULL, r->data[i]);
            weir__buf_puts(&r->q, " END IGNORE NULLS) OVER (PARTITION BY ");
            list(r, NULL, r->keys, r->n_keys);
            weir__buf_puts(&r->q, ", __weir_dg ORDER BY __weir_seq ROWS BETWEEN "
                                  "UNBOUNDED PRECEDING AND CURRENT ROW) END AS ");
            ident(r, NULL, r->data[i]);
        }
        weir__buf_puts(&r->q, " FROM (SELECT __weir_k.*, sum(CASE WHEN "
                              "__weir_del THEN 1 ELSE 0 END) OVER (PARTITION BY ");
        list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, " ORDER BY __weir_seq ROWS BETWEEN UNBOUNDED "
                              "PRECEDING AND CURRENT ROW) AS __weir_dg FROM ");
        scd2_changes(r);
        weir__buf_puts(&r->q, " AS __weir_k) AS __weir_g) AS __weir_l");
    } else {
        scd2_changes(r);
        weir__buf_puts(&r->q, " AS __weir_l");
    }
    weir__buf_puts(&r->q, " WINDOW __weir_w AS (PARTITION BY ");
    list(r, "__weir_l", r->keys, r->n_keys);
    weir__buf_puts(&r->q, " ORDER BY __weir_l.__weir_seq)), __weir_v AS (SELECT "
                          "*, sum(CASE WHEN NOT __weir_del AND (__weir_pdel IS "
                          "NULL OR __weir_pdel");
    n_tracked = 0;
    for (size_t i = 0; i < r->n_data; i++) {
        if (!tracked(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, " OR ");
        ident(r, NULL, r->data[i]);
        weir__buf_printf(&r->q, " IS DISTINCT FROM __weir_p%zu", n_tracked++);
    }
    weir__buf_puts(&r->q, ") THEN 1 ELSE 0 END) OVER (PARTITION BY ");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, " ORDER BY __weir_seq ROWS BETWEEN UNBOUNDED PRECEDING "
                          "AND CURRENT ROW) AS __weir_vid FROM __weir_e) SELECT ");
    list(r, NULL, r->keys, r->n_keys);
    for (size_t i = 0; i < r->n_data; i++) {
        if (is_key(r, r->data[i]))
            continue;
        weir__buf_puts(&r->q, ", arg_max_null(");
        ident(r, NULL, r->data[i]);
        weir__buf_puts(&r->q, ", __weir_seq) AS ");
        ident(r, NULL, r->data[i]);
    }
    weir__buf_puts(&r->q, ", min(__weir_seq) AS \"" WEIR_CDC_START_AT "\", "
                          "arg_max_null(__weir_next, __weir_seq) AS \""
                          WEIR_CDC_END_AT "\" FROM __weir_v WHERE NOT __weir_del "
                          "GROUP BY ");
    list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_vid");
    if ((rc = run_q(r, NULL)))
        return rc;
    /* The keys' state, for the next batch's in-order test. */
    weir_buf src = WEIR_BUF_INIT;
    weir__buf_puts(&src, "(SELECT ");
    rc = key_cols(r, &src);
    weir__buf_puts(&src, ", max(__weir_seq) AS __weir_seq, arg_max(__weir_del, "
                         "__weir_seq) AS __weir_del FROM " NEW " GROUP BY ALL)");
    if (!rc)
        rc = src.failed ? oom(r->err) : state_merge(r, weir__buf_cstr(&src));
    weir__buf_free(&src);
    return rc;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "k1, k2 | TYPE" in *out (malloc'd): the names of cols but __weir_seq
 * and __weir_del (the keys; lower case, sorted) and __weir_seq's type. */
static int shape_text(cdc_run *r, const weir_db_column *cols, size_t n,
                      weir_arena *a, char **out)
{
    const char **keys = weir__arena_array(a, n + 1, sizeof(*keys));
    size_t k = 0;
    const char *type = "";
    for (size_t i = 0; keys && i < n; i++) {
        char *low = weir__arena_strdup(a, cols[i].name);
        if (!low)
            return oom(r->err);
        weir__str_lower(low);
        if (!strcmp(low, "__weir_seq"))
            type = cols[i].type;
        else if (strcmp(low, "__weir_del") != 0)
            keys[k++] = low;
    }
    if (!keys)
        return oom(r->err);
    qsort(keys, k, sizeof(*keys), by_text);
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < k; i++)
        weir__buf_printf(&b, "%s%s", i ? ", " : "", keys[i]);
    weir__buf_printf(&b, " | %s", type);
    *out = b.failed ? NULL : weir__buf_detach(&b);
    weir__buf_free(&b);
    return *out ? 0 : oom(r->err);
}

/* The keys (sorted, lower case) and the SEQUENCE BY type the state table
 * was made for, "k1, k2 | TYPE", in *old (NULL: no state yet), and the
 * flow's own in *now. Both by binding a query, not by filtering
 * duckdb_columns() (see weir__conn_table_columns). */
static int state_shape(cdc_run *r, char **old, char **now)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    bool exists = false;
    hidden(r, "state");
    int rc = r->q.failed ? oom(r->err)
                         : weir__conn_table_columns(r->conn, weir__buf_cstr(&r->q),
                                                    &exists, &cols, &n, &a,
                                                    r->err);
    weir__buf_clear(&r->q);
    if (!rc && exists)
        rc = shape_text(r, cols, n, &a, old);
    if (!rc && exists) {
        weir__buf_puts(&r->q, "SELECT ");
        list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_seq FROM " BATCH);
        rc = r->q.failed ? oom(r->err)
                         : weir__conn_describe(r->conn, weir__buf_cstr(&r->q),
                                               &cols, &n, &a, r->err);
        weir__buf_clear(&r->q);
        if (!rc)
            rc = shape_text(r, cols, n, &a, now);
    }
    weir__arena_free(&a);
    return rc;
}

/* The state orders changes by the keys and SEQUENCE BY it was made for:
 * when the flow's differ, only a full refresh can rebuild it. */
static int check_state(cdc_run *r)
{
    char *old = NULL, *now = NULL;
    int rc = state_shape(r, &old, &now);
    if (!rc && old && now && strcmp(old, now) != 0) {
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m, "AUTO CDC flow '%s': its keys or the type of its "
                             "SEQUENCE BY changed since %s was last updated "
                             "(KEYS | SEQUENCE BY type: now %s, before %s). The "
                             "state that orders the target's changes was built "
                             "for the old ones; run a full refresh of the "
                             "target (weir run --full-refresh %s) to rebuild "
                             "it from the whole feed.",
                         r->f->display, r->t->display, now, old, r->t->display);
        rc = m.failed ? oom(r->err)
                      : error_at(r->err, r->f, r->c->pos, WEIR_ERROR,
                                 "AUTOCDC_INVALID_STATE", weir__buf_cstr(&m));
        weir__buf_free(&m);
    }
    free(old);
    free(now);
    return rc;
}

int weir__cdc_apply(weir_conn *conn, const weir_graph *g, const weir_gflow *f,
                    const weir_gdataset *t, const weir_schema *schema,
                    const char *src_sql, bool fresh, weir_cdc_metrics *m,
                    weir_error *err)
{
    cdc_run r;
    memset(&r, 0, sizeof(r));
    r.conn = conn;
    r.f = f;
    r.t = t;
    r.c = f->cdc;
    r.schema = schema;
    r.cat = weir__state_catalog(g, t);
    r.err = err;
    bool scd2_cols = r.c->scd_type == 2;
    r.data = calloc(schema->n + 1, sizeof(*r.data));
    r.keys = calloc(r.c->n_keys + 1, sizeof(*r.keys));
    if (!r.data || !r.keys) {
        free(r.data);
        free(r.keys);
        return oom(err);
    }
    for (size_t i = 0; i < schema->n; i++) {
        const char *n = schema->cols[i].name;
        if (scd2_cols && (weir__str_ieq(n, WEIR_CDC_START_AT) ||
                          weir__str_ieq(n, WEIR_CDC_END_AT)))
            continue;
        r.data[r.n_data++] = n;
    }
    int rc = 0;
    for (size_t i = 0; i < r.c->n_keys; i++) {
        const weir_column *k = find_col(schema, last_part(&r.c->keys[i]));
        if (!k) {
            rc = WEIR_ERR(err, WEIR_ERROR, "AUTOCDC_COLUMNS_NOT_FOUND_IN_SCHEMA",
                          "AUTO CDC flow '%s': key column '%s' is not a column "
                          "of %s",
                          f->display, last_part(&r.c->keys[i]), t->display);
            break;
        }
        r.keys[r.n_keys++] = k->name;
    }
    int64_t n_changes = 0;
    if (!rc)
        rc = stage(&r, src_sql, &n_changes);
    if (!rc && !fresh)
        rc = check_state(&r);
    if (!rc)
        rc = r.c->scd_type == 2 ? scd2(&r, fresh, n_changes, m)
                                : scd1(&r, fresh, n_changes, m);
    weir__buf_clear(&r.q);
    weir__buf_puts(&r.q, "DROP TABLE IF EXISTS " BATCH "; DROP TABLE IF EXISTS "
                         APPLY "; DROP TABLE IF EXISTS " NEW "; DROP TABLE IF "
                         "EXISTS " WIN "; DROP TABLE IF EXISTS " OPEN);
    if (!rc)
        rc = run_q(&r, NULL);
    weir__buf_free(&r.q);
    free(r.data);
    free(r.keys);
    return rc;
}
