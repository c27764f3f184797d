/*
 * AUTO CDC flows: target schema and the apply of a batch (see cdc.h).
 *
 * A batch is staged once (its chosen columns, the sequence value and the
 * delete and truncate conditions evaluated per change) in a temporary
 * table of the flow's connection, checked, and applied by its SCD type:
 * cdc_scd1.c (the latest row per key) or cdc_scd2.c (each key's
 * history). The statement pieces both use are here (cdc_apply.h).
 */
#include "engine/cdc_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "state/cdc.h"
#include "util/buf.h"
#include "util/str.h"

#define RESERVED_PREFIX "__spark_autocdc_"

int weir__cdc_oom(weir_error *err)
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

bool weir__cdc_in_names(const weir_sql_name *names, size_t n,
                        const char *name)
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
        int rc = m.failed ? weir__cdc_oom(err)
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
    int rc = weir__sql_translate_expr(&q, e, weir__flow_time_zone(f), err);
    if (rc) {
        weir__buf_free(&q);
        return rc;
    }
    weir__buf_printf(&q, ") AS v FROM (%s) AS __weir_src", src_sql);
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error e2;
    weir__error_clear(&e2);
    rc = q.failed ? weir__cdc_oom(err)
                  : weir__conn_describe(conn, weir__buf_cstr(&q), &cols, &n, a,
                                        &e2);
    weir__buf_free(&q);
    if (rc == WEIR_ENOMEM)
        return weir__cdc_oom(err);
    if (rc || n != 1) {
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m, "AUTO CDC flow '%s': its %s does not resolve "
                             "against the source: %s",
                         f->display, what, e2.message);
        rc = m.failed ? weir__cdc_oom(err)
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
            if (!weir__cdc_in_names(c->columns.cols, c->columns.n, n) ||
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
        return weir__cdc_oom(err);
    out->n = 0;
    /* Keys first when a column list leaves them out. */
    bool listed = c->columns.set && !c->columns.except && c->columns.n;
    for (size_t i = 0; listed && i < c->n_keys; i++)
        if (!weir__cdc_in_names(c->columns.cols, c->columns.n,
                                last_part(&c->keys[i])))
            out->cols[out->n++] = *find_col(src, last_part(&c->keys[i]));
    for (size_t i = 0; listed && i < c->columns.n; i++) {
        const weir_column *col = find_col(src, last_part(&c->columns.cols[i]));
        if (!find_col(out, col->name)) /* named twice: once */
            out->cols[out->n++] = *col;
    }
    for (size_t i = 0; !listed && i < src->n; i++) {
        const weir_column *col = &src->cols[i];
        bool key = weir__cdc_in_names(c->keys, c->n_keys, col->name);
        if (!c->columns.except || key ||
            !weir__cdc_in_names(c->columns.cols, c->columns.n, col->name))
            out->cols[out->n++] = *col;
    }
    for (size_t i = 0; i < out->n; i++)
        if (weir__cdc_in_names(c->keys, c->n_keys, out->cols[i].name))
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
    return weir__arena_failed(a) ? weir__cdc_oom(err) : 0;
}

/* ---- applying a batch -------------------------------------------------------- */

/* The statements the SCD types share (cdc_apply.h). */

void weir__cdc_hidden(cdc_run *r, const char *what)
{
    weir__autocdc_table(&r->q, r->cat, r->t->display, what);
}

void weir__cdc_ident(cdc_run *r, const char *prefix, const char *name)
{
    if (prefix)
        weir__buf_printf(&r->q, "%s.", prefix);
    weir__buf_put_sql_ident(&r->q, name);
}

void weir__cdc_list(cdc_run *r, const char *prefix, const char **names,
                    size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(&r->q, ", ");
        weir__cdc_ident(r, prefix, names[i]);
    }
}

void weir__cdc_keys_equal(cdc_run *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->n_keys; i++) {
        if (i)
            weir__buf_puts(&r->q, " AND ");
        weir__cdc_ident(r, a, r->keys[i]);
        weir__buf_puts(&r->q, " = ");
        weir__cdc_ident(r, b, r->keys[i]);
    }
}

bool weir__cdc_is_key(const cdc_run *r, const char *name)
{
    for (size_t i = 0; i < r->n_keys; i++)
        if (weir__str_ieq(r->keys[i], name))
            return true;
    return false;
}

int weir__cdc_run_q(cdc_run *r, int64_t *changed)
{
    int rc = r->q.failed ? weir__cdc_oom(r->err)
                         : weir__conn_exec(r->conn, weir__buf_cstr(&r->q),
                                           changed, r->err);
    weir__buf_clear(&r->q);
    return rc;
}

int weir__cdc_scalar_q(cdc_run *r, int64_t *out)
{
    bool null = false;
    int rc = r->q.failed ? weir__cdc_oom(r->err)
                         : weir__conn_scalar_i64(r->conn, weir__buf_cstr(&r->q),
                                                 out, &null, r->err);
    if (!rc && null)
        *out = 0;
    weir__buf_clear(&r->q);
    return rc;
}

int weir__cdc_scalars_q(cdc_run *r, int64_t *out, size_t n)
{
    weir_rows *rows = NULL;
    int rc = r->q.failed ? weir__cdc_oom(r->err)
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
    int rc = weir__sql_translate_expr(&r->q, e, weir__flow_time_zone(r->f), r->err);
    weir__buf_putc(&r->q, ')');
    return rc;
}

/* The batch's changes with their sequence and conditions, checked. */
static int stage(cdc_run *r, const char *src_sql, int64_t *n_changes)
{
    weir__buf_puts(&r->q, "CREATE OR REPLACE TEMP TABLE " CDC_BATCH " AS SELECT ");
    weir__cdc_list(r, NULL, r->data, r->n_data);
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
    if (rc || (rc = weir__cdc_run_q(r, NULL)))
        return rc;
    /* The changes, those without a sequence, those without a key, and
     * the truncates, in one pass. */
    weir__buf_puts(&r->q, "SELECT count(*), count(*) FILTER (WHERE __weir_seq IS "
                          "NULL), count(*) FILTER (WHERE ");
    weir__buf_puts(&r->q, has_trunc ? "NOT __weir_trunc AND (false" : "(false");
    for (size_t i = 0; i < r->n_keys; i++) {
        weir__buf_puts(&r->q, " OR ");
        weir__cdc_ident(r, NULL, r->keys[i]);
        weir__buf_puts(&r->q, " IS NULL");
    }
    weir__buf_puts(&r->q, has_trunc ? ")), count(*) FILTER (WHERE __weir_trunc)"
                                     : ")), 0");
    weir__buf_puts(&r->q, " FROM " CDC_BATCH);
    int64_t c[4] = { 0, 0, 0, 0 };
    if ((rc = weir__cdc_scalars_q(r, c, 4)))
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

int weir__cdc_hidden_table(cdc_run *r, const char *what, const char *cols,
                           bool fresh)
{
    int rc = 0;
    if (fresh) {
        weir__buf_puts(&r->q, "DROP TABLE IF EXISTS ");
        weir__cdc_hidden(r, what);
        if ((rc = weir__cdc_run_q(r, NULL)))
            return rc;
    }
    weir__buf_puts(&r->q, "CREATE TABLE IF NOT EXISTS ");
    weir__cdc_hidden(r, what);
    weir__buf_printf(&r->q, " AS SELECT %s FROM " CDC_BATCH " LIMIT 0", cols);
    return weir__cdc_run_q(r, NULL);
}

int weir__cdc_key_cols(cdc_run *r, weir_buf *out)
{
    for (size_t i = 0; i < r->n_keys; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_ident(out, r->keys[i]);
    }
    return out->failed ? weir__cdc_oom(r->err) : 0;
}

int weir__cdc_state_merge(cdc_run *r, const char *src)
{
    weir__buf_puts(&r->q, "MERGE INTO ");
    weir__cdc_hidden(r, "state");
    weir__buf_printf(&r->q, " AS __weir_s USING %s AS __weir_a ON (", src);
    weir__cdc_keys_equal(r, "__weir_s", "__weir_a");
    weir__buf_puts(&r->q, ") WHEN MATCHED AND __weir_a.__weir_seq > "
                          "__weir_s.__weir_seq THEN UPDATE SET __weir_seq = "
                          "__weir_a.__weir_seq, __weir_del = __weir_a.__weir_del "
                          "WHEN NOT MATCHED THEN INSERT (");
    weir__cdc_list(r, NULL, r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_seq, __weir_del) VALUES (");
    weir__cdc_list(r, "__weir_a", r->keys, r->n_keys);
    weir__buf_puts(&r->q, ", __weir_a.__weir_seq, __weir_a.__weir_del)");
    return weir__cdc_run_q(r, NULL);
}

void weir__cdc_join_state(cdc_run *r)
{
    weir__buf_puts(&r->q, " LEFT JOIN ");
    weir__cdc_hidden(r, "state");
    weir__buf_puts(&r->q, " AS __weir_s ON ");
    weir__cdc_keys_equal(r, "__weir_b", "__weir_s");
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "k1, k2 | TYPE" in *out (malloc'd): the names of cols but __weir_seq,
 * __weir_del and the column sequences of IGNORE NULL UPDATES (the keys;
 * lower case, sorted) and __weir_seq's type. */
static int shape_text(cdc_run *r, const weir_db_column *cols, size_t n,
                      weir_arena *a, char **out)
{
    const char **keys = weir__arena_array(a, n + 1, sizeof(*keys));
    size_t k = 0;
    const char *type = "";
    for (size_t i = 0; keys && i < n; i++) {
        char *low = weir__arena_strdup(a, cols[i].name);
        if (!low)
            return weir__cdc_oom(r->err);
        weir__str_lower(low);
        if (!strcmp(low, "__weir_seq"))
            type = cols[i].type;
        else if (strcmp(low, "__weir_del") != 0 &&
                 !weir__cdc_inu_column(cols[i].name))
            keys[k++] = low;
    }
    if (!keys)
        return weir__cdc_oom(r->err);
    qsort(keys, k, sizeof(*keys), by_text);
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < k; i++)
        weir__buf_printf(&b, "%s%s", i ? ", " : "", keys[i]);
    weir__buf_printf(&b, " | %s", type);
    *out = b.failed ? NULL : weir__buf_detach(&b);
    weir__buf_free(&b);
    return *out ? 0 : weir__cdc_oom(r->err);
}

int weir__cdc_hidden_columns(cdc_run *r, const char *what, bool *exists,
                             weir_db_column **cols, size_t *n, weir_arena *a)
{
    return weir__autocdc_table_columns(r->conn, r->cat, r->t->display, what,
                                       exists, cols, n, a, r->err);
}

/* The keys (sorted, lower case) and the SEQUENCE BY type the state table
 * was made for, "k1, k2 | TYPE", in *old (NULL: no state yet), and the
 * flow's own in *now, by binding a query of the batch. */
static int state_shape(cdc_run *r, char **old, char **now)
{
    if (!r->state_exists)
        return 0;
    weir_arena a = WEIR_ARENA_INIT;
    int rc = shape_text(r, r->state_cols, r->n_state_cols, &a, old);
    weir_db_column *cols = NULL;
    size_t n = 0;
    if (!rc) {
        weir__buf_puts(&r->q, "SELECT ");
        weir__cdc_list(r, NULL, r->keys, r->n_keys);
        weir__buf_puts(&r->q, ", __weir_seq FROM " CDC_BATCH);
        rc = r->q.failed ? weir__cdc_oom(r->err)
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
        rc = m.failed ? weir__cdc_oom(r->err)
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
    r.values = calloc(schema->n + 1, sizeof(*r.values));
    r.keys = calloc(r.c->n_keys + 1, sizeof(*r.keys));
    if (!r.data || !r.values || !r.keys) {
        free(r.data);
        free(r.values);
        free(r.keys);
        return weir__cdc_oom(err);
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
    for (size_t i = 0; i < r.n_data; i++)
        if (!weir__cdc_is_key(&r, r.data[i]))
            r.values[r.n_values++] = r.data[i];
    int64_t n_changes = 0;
    if (!rc)
        rc = stage(&r, src_sql, &n_changes);
    /* The state's columns, by binding a query of it (not by filtering
     * duckdb_columns(): see weir__conn_table_columns). */
    weir_db_column *state_cols = NULL;
    if (!rc && !fresh)
        rc = weir__cdc_hidden_columns(&r, "state", &r.state_exists,
                                      &state_cols, &r.n_state_cols, &r.arena);
    r.state_cols = state_cols;
    if (!rc && !fresh)
        rc = check_state(&r);
    if (!rc)
        rc = r.c->scd_type == 2 ? weir__cdc_scd2(&r, fresh, n_changes, m)
                                : weir__cdc_scd1(&r, fresh, n_changes, m);
    weir__buf_clear(&r.q);
    weir__buf_puts(&r.q, "DROP TABLE IF EXISTS " CDC_BATCH "; DROP TABLE IF EXISTS "
                         CDC_APPLY "; DROP TABLE IF EXISTS " CDC_NEW "; DROP TABLE IF "
                         "EXISTS " CDC_WIN "; DROP TABLE IF EXISTS " CDC_OPEN);
    if (!rc)
        rc = weir__cdc_run_q(&r, NULL);
    weir__buf_free(&r.q);
    weir__arena_free(&r.arena);
    free(r.data);
    free(r.values);
    free(r.keys);
    return rc;
}
