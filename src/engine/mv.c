/*
 * Materialized view refresh (see mv.h). A view whose query has a
 * maintainable shape (sql/incremental.c) and reads only tables is
 * followed like a streaming flow: its checkpoint records, with each
 * refresh, how far it read each input and a fingerprint of the rows read
 * (the table source of sources/table.c), plus a row naming its definition
 * and how many rows the view held then. The next refresh is incremental
 * when the definition and the view are unchanged and every input only had
 * rows appended: the query over the appended rows is appended to the view
 * (APPEND_ONLY) or merged into it by group key (GROUP_AGGREGATE), in the
 * transaction that records the new positions. Otherwise the view is
 * recomputed (COMPLETE_RECOMPUTE) and, when it is followed, its
 * checkpoint restarts in a new generation from what the recomputation
 * read. Each refresh says which technique it got and why.
 */
#include "engine/mv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/mv_state.h"
#include "engine/sink_flow.h"
#include "engine/write.h"
#include "sources/source.h"
#include "state/tables.h"
#include "spec/spec.h"
#include "util/str.h"

#define DEFINITION_PREFIX "weir:definition:"

typedef struct refresh {
    weir_flow_exec *x;
    const weir_gdataset *t;
    weir_sql_incr shape;
    weir_mv_state state; /* the sums and counts of its averages */
    weir_arena arena;
    weir_checkpoint cp;
    weir_source_ctx ctx;
    char note[512], warning[1024]; /* what planning the inputs says:
                                      not the view's business */
    weir_source_batch *batches;
    size_t n_batches;
    const char *definition; /* DEFINITION_PREFIX + md5 */
    int64_t gen, next_batch;
    int64_t view_rows; /* the view's rows before the refresh (counted by
                          cheaper_to_recompute) */
    int checkpoint_rows; /* whether the flow has checkpoint rows: 1 yes, 0
                            no, -1 not counted yet */
} refresh;

static void why(weir_flow_exec *x, const char *technique, const char *fmt, ...)
    WEIR_PRINTF(3, 4);
static void why(weir_flow_exec *x, const char *technique, const char *fmt, ...)
{
    weir__str_copy(x->technique, sizeof(x->technique), technique);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->technique_reason, sizeof(x->technique_reason), fmt, ap);
    va_end(ap);
}

static int oom(weir_flow_exec *x)
{
    return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
}

/* ---- recomputation (as before incremental refresh) ------------------------ */

/* The view's query; with batches, each table input reads its batch. */
static int flow_sql(weir_flow_exec *x, const weir_source_batch *batches,
                    size_t n_batches, weir_buf *sql)
{
    return weir__flow_sql(x, batches, n_batches, false, batches != NULL, sql);
}

/* A new epoch: streaming readers of the view read all of it as new data
 * (sources/table.c), as after any change that is not an append. */
static int bump_epoch(weir_flow_exec *x, const weir_gdataset *t)
{
    return weir__tables_bump_epoch(x->conn, t, &x->err);
}

/* The update's materialize step created the view's table (x->fresh):
 * empty, with the view's schema and comments, at an epoch no streaming
 * reader has read. Recomputing fills it, without creating it a second
 * time or another epoch, when the query's columns are that schema: the
 * view declares them (the rows are cast to them anyway), or every table
 * it reads is fresh too. A QUARANTINE expectation's table is made by the
 * recomputation. */
static bool fills_new_table(weir_flow_exec *x, const weir_gdataset *t)
{
    if (!x->fresh || !x->fresh[x->f->target] || weir__has_quarantine(t))
        return false;
    return t->def->n_columns || weir__flow_reads_fresh(x, x->f, 0);
}

static int recompute(weir_flow_exec *x, const weir_gdataset *t)
{
    weir_buf sql = WEIR_BUF_INIT;
    int rc = flow_sql(x, NULL, 0, &sql);
    if (!rc && fills_new_table(x, t)) {
        rc = weir__write_batch(x, t, weir__buf_cstr(&sql), false);
        weir__buf_free(&sql);
        return rc;
    }
    if (!rc && t->def->n_columns) {
        /* A declared schema: recreate the table with it, then append. */
        weir_buf ddl = WEIR_BUF_INIT;
        weir__buf_puts(&ddl, "CREATE OR REPLACE TABLE ");
        weir__phys(&ddl, t);
        weir__buf_putc(&ddl, ' ');
        weir__column_defs(&ddl, &t->schema);
        rc = weir__exec_buf(x->conn, &ddl, &x->err);
        weir__buf_free(&ddl);
        if (!rc)
            rc = weir__write_batch(x, t, weir__buf_cstr(&sql), false);
    } else if (!rc) {
        /* The query's own columns: not necessarily the resolved schema
         * (engine/exec.h, fresh). */
        x->altered = true;
        rc = weir__write_batch(x, t, weir__buf_cstr(&sql), true);
    }
    weir__buf_clear(&sql);
    weir__comments(&sql, t);
    if (!rc && sql.len > 2) {
        /* weir__comments() starts with "; " */
        rc = weir__conn_exec(x->conn, weir__buf_cstr(&sql) + 2, NULL, &x->err);
    }
    weir__buf_free(&sql);
    /* rows_written: the CREATE TABLE's count, or the INSERT's rows. */
    return rc ? rc : bump_epoch(x, t);
}

/* ---- can the view be followed? ---------------------------------------------- */

/* pipelines.incremental = false on the view, or for its flow / the
 * pipeline: the reason, else NULL. */
static const char *turned_off(weir_flow_exec *x, const weir_gdataset *t,
                              int *rc)
{
    const char *v = weir__dataset_property(t, WEIR_MV_INCREMENTAL_KEY);
    const char *where = "a table property of the view";
    if (!v) {
        v = weir__flow_conf(x->f, WEIR_MV_INCREMENTAL_KEY, NULL);
        where = "set in the pipeline configuration or for the flow";
    }
    bool on = true;
    if (v && !weir__str_parse_bool(v, &on)) {
        *rc = WEIR_ERR(&x->err, WEIR_EINVAL, "INVALID_CONF_VALUE",
                       "%s must be true or false, not '%s' (%s)",
                       WEIR_MV_INCREMENTAL_KEY, v, where);
        return NULL;
    }
    return on ? NULL : where;
}

/* The first table a join reads more than once (a self-join), in *out,
 * or NULL. */
static int joined_twice(refresh *r, const char **out)
{
    const weir_gflow *f = r->x->f;
    const char **keys = weir__arena_array(&r->arena, f->n_inputs + 1,
                                          sizeof(*keys));
    if (!keys)
        return oom(r->x);
    *out = NULL;
    for (size_t i = 0; i < f->n_inputs && !*out; i++) {
        keys[i] = weir__source_table.key(&r->arena, r->x->g, &f->inputs[i],
                                         r->x->root_dir);
        if (!keys[i])
            return oom(r->x);
        for (size_t k = 0; k < i && !*out; k++)
            if (!strcmp(keys[k], keys[i]))
                *out = keys[i];
    }
    return 0;
}

/* Why the view cannot be followed incrementally at all (its shape, its
 * inputs), in x->technique_reason; false when it can. */
static bool untracked(refresh *r, int *rc)
{
    weir_flow_exec *x = r->x;
    const weir_gdataset *t = r->t;
    const weir_gflow *f = x->f;
    const char *off = turned_off(x, t, rc);
    if (*rc)
        return true;
    if (off) {
        why(x, "COMPLETE_RECOMPUTE",
            "incremental refresh is turned off: " WEIR_MV_INCREMENTAL_KEY
            " is false (%s)",
            off);
        return true;
    }
    if (x->sample_rows > 0) {
        why(x, "COMPLETE_RECOMPUTE", "the update reads samples of its "
                                     "inputs (--sample)");
        return true;
    }
    if (weir__sql_query_incremental(&r->shape, &r->arena, f->query)) {
        *rc = oom(x);
        return true;
    }
    if (r->shape.kind == WEIR_SQL_INCR_NONE) {
        const weir_sql_source *src = weir__sql_query_source(f->query);
        char at[600] = "";
        if (src && src->path && src->path[0] && !src->at_path)
            snprintf(at, sizeof(at), " (%s:%u:%u)", src->path,
                     r->shape.pos.line, r->shape.pos.column);
        why(x, "COMPLETE_RECOMPUTE", "the query has %s%s, which is not "
                                     "maintained incrementally",
            r->shape.reason, at);
        return true;
    }
    if (!f->n_inputs) {
        why(x, "COMPLETE_RECOMPUTE", "the query reads no table");
        return true;
    }
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        const weir_gdataset *d = in->dataset >= 0 ? &x->g->datasets[in->dataset]
                                                   : NULL;
        if (d && (d->kind == WEIR_TEMPORARY_VIEW ||
                  d->kind == WEIR_PERSISTED_VIEW)) {
            why(x, "COMPLETE_RECOMPUTE", "it reads the view %s (views are "
                                         "not followed yet)", d->display);
            return true;
        }
        if (in->source != WEIR_INPUT_TABLE || !in->ref || in->streaming ||
            (!d && (!in->external || strchr(in->external, '`')))) {
            why(x, "COMPLETE_RECOMPUTE", "it reads %s, which is not a table "
                                         "weir follows between updates",
                d ? d->display : in->external ? in->external : "a source");
            return true;
        }
    }
    const char *twice = NULL;
    if (r->shape.join && (*rc = joined_twice(r, &twice)))
        return true;
    if (twice) {
        why(x, "COMPLETE_RECOMPUTE", "it joins %s with itself (a refresh "
                                     "from new rows reads each input's new "
                                     "rows in its own term)", twice);
        return true;
    }
    if (r->shape.kind == WEIR_SQL_INCR_AGGREGATE && t->n_expectations) {
        why(x, "COMPLETE_RECOMPUTE", "it aggregates and has expectations "
                                     "(they judge whole groups)");
        return true;
    }
    if (r->shape.kind == WEIR_SQL_INCR_AGGREGATE &&
        r->shape.n_cols != t->schema.n) {
        why(x, "COMPLETE_RECOMPUTE", "its columns differ from its query's");
        return true;
    }
    for (size_t i = 0; r->shape.kind == WEIR_SQL_INCR_AGGREGATE &&
                       i < r->shape.n_cols; i++) {
        const char *ty = t->schema.cols[i].duck_type;
        if (r->shape.cols[i] == WEIR_SQL_INCR_SUM &&
            (weir__str_ieq(ty, "DOUBLE") || weir__str_ieq(ty, "FLOAT") ||
             weir__str_ieq(ty, "REAL"))) {
            why(x, "COMPLETE_RECOMPUTE", "the floating-point sum %s depends "
                                         "on the order rows are added in",
                t->schema.cols[i].name);
            return true;
        }
    }
    const char *why_not = NULL;
    if (r->shape.kind == WEIR_SQL_INCR_AGGREGATE &&
        (*rc = weir__mv_state_plan(&r->state, &why_not, &r->arena, x, t,
                                   &r->shape)))
        return true;
    if (why_not) {
        why(x, "COMPLETE_RECOMPUTE", "%s", why_not);
        return true;
    }
    return false;
}

/* The definition's key: the query as it runs, the view's columns and the
 * shape, hashed. */
static int definition_key(refresh *r)
{
    weir_flow_exec *x = r->x;
    weir_buf text = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    int rc = flow_sql(x, NULL, 0, &text);
    weir__buf_printf(&text, "\x1e%d", (int)r->shape.kind);
    for (size_t i = 0; i < r->t->schema.n; i++)
        weir__buf_printf(&text, "\x1e%s\x1f%s", r->t->schema.cols[i].name,
                         r->t->schema.cols[i].duck_type);
    weir__buf_puts(&q, "SELECT md5(");
    weir__buf_put_sql_string(&q, weir__buf_cstr(&text));
    weir__buf_putc(&q, ')');
    weir_rows *rows = NULL;
    if (!rc)
        rc = q.failed ? oom(x) : weir__query_buf(x->conn, &q, &rows, &x->err);
    if (!rc) {
        const char *md5 = rows->n_rows ? weir__rows_get(rows, 0, 0) : NULL;
        r->definition = weir__arena_printf(&r->arena, DEFINITION_PREFIX "%s",
                                           md5 ? md5 : "");
        if (!r->definition)
            rc = oom(x);
    }
    weir__rows_free(rows);
    weir__buf_free(&text);
    weir__buf_free(&q);
    return rc;
}

static int view_rows(refresh *r, int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__phys(&q, r->t);
    int rc = weir__scalar_buf(r->x->conn, &q, out, NULL, &r->x->err);
    weir__buf_free(&q);
    return rc;
}

/* Plan a batch of every table input (each once): the rows appended
 * since the view's last refresh (whole: every row, after a checkpoint
 * reset). *changed gets why one cannot be read that way (its rows
 * changed, it was reset or replaced). */
static int plan_inputs(refresh *r, bool whole, const char **changed)
{
    weir_flow_exec *x = r->x;
    const weir_gflow *f = x->f;
    *changed = NULL;
    r->batches = weir__arena_array(&r->arena, f->n_inputs + 1,
                                   sizeof(*r->batches));
    if (!r->batches)
        return oom(x);
    r->n_batches = 0;
    for (size_t i = 0; i < f->n_inputs && !*changed; i++) {
        const weir_input *in = &f->inputs[i];
        weir_source_batch b;
        memset(&b, 0, sizeof(b));
        b.kind = &weir__source_table;
        b.no_sample = true; /* any change recomputes: no need to tell */
        b.key = b.kind->key(&r->arena, x->g, in, x->root_dir);
        if (!b.key)
            return oom(x);
        bool dup = false; /* a union's (a join's is untracked) */
        for (size_t k = 0; k < r->n_batches && !dup; k++)
            dup = !strcmp(r->batches[k].key, b.key);
        if (dup)
            continue;
        int rc = b.kind->plan(&r->ctx, in, &b);
        if (rc && (!strcmp(x->err.error_class, "STREAMING_SOURCE_CHANGED") ||
                   !strcmp(x->err.error_class, "STREAMING_SOURCE_RESET"))) {
            bool reset = !strcmp(x->err.error_class, "STREAMING_SOURCE_RESET");
            *changed = weir__arena_printf(
                &r->arena, "%s %s since the last refresh", b.key,
                reset ? "was fully refreshed" : "had rows updated or deleted");
            weir__error_clear(&x->err);
            return *changed ? 0 : oom(x);
        }
        if (rc)
            return rc;
        if (!b.appended && !whole)
            *changed = weir__arena_printf(&r->arena,
                                          "%s was replaced or recomputed "
                                          "since the last refresh", b.key);
        bool fixed = false;
        for (size_t k = 0; k < r->shape.n_fixed && !fixed; k++)
            fixed = in->ref && in->ref->node == r->shape.fixed[k];
        if (fixed && !whole && !*changed && b.end > b.start)
            *changed = weir__arena_printf(&r->arena,
                                          "%s, on the outer side of an outer "
                                          "join or the right side of a semi "
                                          "or anti join, has new rows",
                                          b.key);
        r->batches[r->n_batches++] = b;
    }
    return 0;
}

/* In the refresh's transaction: the positions of the inputs, their
 * fingerprints, and the definition with the view's row count. */
static int record(refresh *r)
{
    weir_flow_exec *x = r->x;
    int64_t rows = 0;
    int rc = view_rows(r, &rows);
    weir_checkpoint_row *cr = rc ? NULL
                                 : weir__arena_array(&r->arena, r->n_batches + 1,
                                                     sizeof(*cr));
    if (!rc && !cr)
        rc = oom(x);
    for (size_t i = 0; !rc && i < r->n_batches; i++) {
        cr[i].source = r->batches[i].key;
        cr[i].epoch = r->batches[i].epoch;
        cr[i].end = r->batches[i].end;
    }
    if (!rc) {
        cr[r->n_batches].source = r->definition;
        cr[r->n_batches].epoch = 0;
        cr[r->n_batches].end = rows;
        rc = weir__checkpoint_add_batch(&r->cp, r->gen, r->next_batch, cr,
                                        r->n_batches + 1, x->rows_written);
    }
    r->ctx.gen = r->gen;
    r->ctx.batch_id = r->next_batch;
    for (size_t i = 0; !rc && i < r->n_batches; i++)
        rc = r->batches[i].kind->commit(&r->ctx, &r->batches[i]);
    return rc;
}

/* A new generation for the view's checkpoint (in the refresh's
 * transaction). */
static int restart_checkpoint(refresh *r)
{
    weir_flow_exec *x = r->x;
    weir_buf q = WEIR_BUF_INIT;
    const char *flow = x->f->display;
    weir__checkpoint_put_reset(&q, r->cp.catalog, r->t->display, &flow, 1,
                               x->update_id);
    int rc = q.failed ? oom(x)
                      : weir__conn_exec(x->conn, weir__buf_cstr(&q) + 2, NULL,
                                        &x->err);
    weir__buf_free(&q);
    if (!rc)
        rc = weir__checkpoint_position(&r->cp, &r->gen, &r->next_batch);
    return rc;
}

/* A recomputation that is not followed: what an earlier refresh recorded
 * no longer describes the view, so a later refresh must not build on it.
 * A view that was never followed has no checkpoint rows: counting them
 * costs DuckDB half what finding the position does. */
static int forget(refresh *r)
{
    int rc = 0;
    const weir_flow_exec *x = r->x;
    /* Nothing to forget for a table the update created: the materialize
     * step started a new generation for a view that had a table (a full
     * refresh, a table dropped outside weir), and a new dataset has no
     * refresh its view could build on (no definition row). */
    if (x->fresh && x->fresh[x->f->target])
        return 0;
    if (r->checkpoint_rows < 0) {
        weir_buf q = WEIR_BUF_INIT;
        weir__checkpoint_put_row_count(&q, &r->cp);
        int64_t n = 0;
        rc = q.failed ? oom(r->x)
                      : weir__scalar_buf(r->x->conn, &q, &n, NULL, &r->x->err);
        weir__buf_free(&q);
        r->checkpoint_rows = n > 0;
    }
    if (rc || !r->checkpoint_rows)
        return rc;
    rc = weir__checkpoint_position(&r->cp, &r->gen, &r->next_batch);
    if (rc || r->next_batch == 0)
        return rc;
    rc = restart_checkpoint(r);
    /* The state is gone, whatever its shape was. */
    return rc ? rc : weir__mv_state_drop_tables(r->x->conn, r->t, &r->x->err);
}

/* Recompute a followed view and restart its checkpoint from what the
 * recomputation read: a new generation, every input read whole, and the
 * state of its averages and distinct counts anew (none left from an
 * earlier definition). */
static int recompute_followed(refresh *r)
{
    weir_flow_exec *x = r->x;
    int rc = restart_checkpoint(r);
    if (!rc)
        rc = weir__mv_state_drop_tables(x->conn, r->t, &x->err);
    r->ctx.gen = r->gen;
    const char *changed = NULL;
    if (!rc)
        rc = plan_inputs(r, true, &changed);
    if (!rc && changed) /* a new generation reads every input whole */
        rc = WEIR_ERR(&x->err, WEIR_ERROR, NULL,
                      "internal error: %s after a checkpoint reset", changed);
    if (!rc)
        rc = recompute(x, r->t);
    if (!rc && r->state.any)
        rc = weir__mv_state_rebuild(&r->state, x);
    if (!rc)
        rc = record(r);
    return rc;
}

/* ---- incremental refresh ------------------------------------------------------ */

static void put_col(weir_buf *b, const char *table, const char *col)
{
    weir__buf_printf(b, "\"%s\".", table);
    weir__buf_put_sql_ident(b, col);
}

/* The groups of table alias tab (the view, "__weir_mv", or a state)
 * that the partial rows match. */
static void put_match(weir_buf *q, const refresh *r, const char *tab)
{
    weir__mv_state_put_match(q, &r->state, tab, "__weir_delta");
}

/* Column i of a merged group: the key, or the view's value combined with
 * the partial one (a NULL sum is a group without values yet). */
static void put_merged(weir_buf *q, const refresh *r, size_t i)
{
    weir_sql_incr_col c = r->shape.cols[i];
    const char *name = r->t->schema.cols[i].name;
    weir_buf m = WEIR_BUF_INIT, d = WEIR_BUF_INIT;
    put_col(&m, "__weir_mv", name);
    put_col(&d, "__weir_delta", name);
    const char *ms = weir__buf_cstr(&m), *ds = weir__buf_cstr(&d);
    if (c == WEIR_SQL_INCR_KEY)
        weir__buf_puts(q, ds);
    else if (c == WEIR_SQL_INCR_SUM)
        weir__buf_printf(q, "CAST(CASE WHEN %s IS NULL THEN %s WHEN %s IS NULL "
                            "THEN %s ELSE %s + %s END",
                         ms, ds, ds, ms, ms, ds);
    else if (c == WEIR_SQL_INCR_COUNT)
        weir__buf_printf(q, "CAST(coalesce(%s, 0) + coalesce(%s, 0)", ms, ds);
    else if (c == WEIR_SQL_INCR_COUNT_DISTINCT) /* its new pairs */
        weir__buf_printf(q, "CAST(coalesce(%s, 0) + coalesce(\"__weir_inc_%zu\""
                            ".\"__weir_n\", 0)",
                         ms, i);
    else
        weir__buf_printf(q, "CAST(%s(%s, %s)",
                         c == WEIR_SQL_INCR_MIN ? "least" : "greatest", ms, ds);
    if (c != WEIR_SQL_INCR_KEY)
        weir__buf_printf(q, " AS %s)", r->t->schema.cols[i].duck_type);
    weir__buf_puts(q, " AS ");
    weir__buf_put_sql_ident(q, name);
    weir__buf_free(&m);
    weir__buf_free(&d);
}

/* The view's rows, or with the state: the merged rows' columns that the
 * state keeps (its keys and sums and counts). */
static void put_columns(weir_buf *q, const refresh *r, bool state)
{
    bool any = false;
    for (size_t i = 0; i < r->shape.n_cols; i++) {
        weir_sql_incr_col c = r->shape.cols[i];
        if (state && c != WEIR_SQL_INCR_KEY && c != WEIR_SQL_INCR_AVG)
            continue;
        weir__buf_puts(q, any ? ", " : "");
        any = true;
        if (c != WEIR_SQL_INCR_AVG || !state)
            weir__buf_put_sql_ident(q, r->t->schema.cols[i].name);
        else
            weir__buf_printf(q, "\"__weir_sum_%zu\", \"__weir_count_%zu\"",
                             i, i);
    }
}

/* Merge the query's partial rows over the new input rows into the view by
 * key: the merged groups are computed, the old ones deleted and the
 * merged ones inserted (DuckDB 1.4 updates several columns of rows spread
 * over a persisted table several times slower than it deletes and
 * inserts them; MERGE too). The state of its averages is merged alike,
 * and the averages computed from it. */
static int merge_groups(refresh *r, const char *delta,
                        const weir_source_batch *view)
{
    weir_flow_exec *x = r->x;
    const weir_gdataset *t = r->t;
    const weir_mv_state *st = r->state.any ? &r->state : NULL;
    weir_buf q = WEIR_BUF_INIT;
    int rc = 0;
    weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE \"__weir_delta\" AS %s",
                     delta);
    /* The new (group, value) pairs of distinct counts, into their state. */
    for (size_t i = 0; st && !rc && i < r->shape.n_cols; i++)
        if (st->distinct[i])
            rc = weir__mv_state_put_distinct(&q, st, x, i, view, r->n_batches);
    weir__buf_puts(&q, "; CREATE OR REPLACE TEMP TABLE \"__weir_merged\" AS "
                       "SELECT *");
    for (size_t i = 0; st && i < r->shape.n_cols; i++) {
        if (r->shape.cols[i] != WEIR_SQL_INCR_AVG)
            continue;
        weir__buf_puts(&q, ", ");
        weir__mv_state_put_avg(&q, st, i);
    }
    weir__buf_puts(&q, " FROM (SELECT ");
    for (size_t i = 0; i < r->shape.n_cols; i++) {
        weir__buf_puts(&q, i ? ", " : "");
        if (r->shape.cols[i] == WEIR_SQL_INCR_AVG)
            weir__mv_state_put_merged(&q, st, i);
        else
            put_merged(&q, r, i);
    }
    weir__buf_puts(&q, " FROM \"__weir_delta\" AS \"__weir_delta\" LEFT JOIN ");
    weir__phys(&q, t);
    weir__buf_puts(&q, " AS \"__weir_mv\" ON ");
    put_match(&q, r, "__weir_mv");
    if (st && st->query) {
        weir__buf_puts(&q, " LEFT JOIN ");
        weir__mv_state_table(&q, t, -1);
        weir__buf_puts(&q, " AS \"__weir_state\" ON ");
        put_match(&q, r, "__weir_state");
    }
    for (size_t i = 0; st && i < r->shape.n_cols; i++) {
        if (!st->distinct[i])
            continue;
        weir__buf_puts(&q, " LEFT JOIN (SELECT count(*) AS \"__weir_n\"");
        for (size_t k = 0; k < r->shape.n_cols; k++) {
            if (r->shape.cols[k] != WEIR_SQL_INCR_KEY)
                continue;
            weir__buf_puts(&q, ", ");
            weir__buf_put_sql_ident(&q, t->schema.cols[k].name);
        }
        weir__buf_printf(&q, " FROM \"__weir_new_%zu\" GROUP BY ALL) AS "
                             "\"__weir_inc_%zu\" ON ",
                         i, i);
        char inc[40];
        snprintf(inc, sizeof(inc), "__weir_inc_%zu", i);
        put_match(&q, r, inc);
    }
    weir__buf_puts(&q, "); DELETE FROM ");
    weir__phys(&q, t);
    weir__buf_puts(&q, " AS \"__weir_mv\" USING \"__weir_delta\" AS "
                       "\"__weir_delta\" WHERE ");
    put_match(&q, r, "__weir_mv");
    if (st && st->query) {
        weir__buf_puts(&q, "; DELETE FROM ");
        weir__mv_state_table(&q, t, -1);
        weir__buf_puts(&q, " AS \"__weir_state\" USING \"__weir_delta\" AS "
                           "\"__weir_delta\" WHERE ");
        put_match(&q, r, "__weir_state");
        weir__buf_puts(&q, "; INSERT INTO ");
        weir__mv_state_table(&q, t, -1);
        weir__buf_puts(&q, " BY NAME SELECT ");
        put_columns(&q, r, true);
        weir__buf_puts(&q, " FROM \"__weir_merged\"");
    }
    if (!rc)
        rc = q.failed ? oom(x)
                      : weir__conn_exec(x->conn, weir__buf_cstr(&q), NULL,
                                        &x->err);
    weir__buf_clear(&q);
    weir__buf_puts(&q, "INSERT INTO ");
    weir__phys(&q, t);
    weir__buf_puts(&q, " BY NAME SELECT ");
    put_columns(&q, r, false);
    weir__buf_puts(&q, " FROM \"__weir_merged\"");
    if (!rc)
        rc = q.failed ? oom(x)
                      : weir__conn_exec(x->conn, weir__buf_cstr(&q),
                                        &x->rows_written, &x->err);
    weir__buf_clear(&q);
    weir__buf_puts(&q, "DROP TABLE \"__weir_delta\"; DROP TABLE \"__weir_merged\"");
    for (size_t i = 0; st && i < r->shape.n_cols; i++)
        if (st->distinct[i])
            weir__buf_printf(&q, "; DROP TABLE \"__weir_new_%zu\"", i);
    if (!rc)
        rc = weir__exec_buf(x->conn, &q, &x->err);
    weir__buf_free(&q);
    return rc;
}

/* The change of the query as terms whose rows add up to it: one term
 * reading every input's new rows, or for joins one per input i with new
 * rows, joining them with the inputs before i as they were and those
 * after i as they are now. Term i's SQL into sql; *skip when it is
 * empty. */
static int delta_term(refresh *r, size_t i, weir_source_batch *view,
                      bool *skip, weir_buf *sql)
{
    *skip = false;
    for (size_t j = 0; j < r->n_batches; j++) {
        view[j] = r->batches[j];
        if (!r->shape.join)
            continue;
        if (j < i)
            view[j].end = view[j].start;
        if (j != i)
            view[j].start = 0;
    }
    if (r->shape.join && r->batches[i].end <= r->batches[i].start) {
        *skip = true;
        return 0;
    }
    if (r->state.query)
        return weir__mv_state_sql(r->state.query, r->x, view, r->n_batches,
                                  sql);
    return flow_sql(r->x, view, r->n_batches, sql);
}

static int refresh_incremental(refresh *r)
{
    weir_flow_exec *x = r->x;
    bool news = false;
    for (size_t i = 0; i < r->n_batches; i++)
        news |= r->batches[i].end > r->batches[i].start;
    if (!news) {
        why(x, "NO_OP", "its inputs have no new rows since the last refresh");
        x->no_new_data = true;
        return 0;
    }
    weir_source_batch *view = weir__arena_array(&r->arena, r->n_batches + 1,
                                                sizeof(*view));
    if (!view)
        return oom(x);
    size_t n_terms = r->shape.join ? r->n_batches : 1;
    bool append = r->shape.kind == WEIR_SQL_INCR_APPEND;
    if (append)
        why(x, "APPEND_ONLY", "its inputs only had rows appended; the query "
                              "over them is appended");
    else
        why(x, "GROUP_AGGREGATE", "its inputs only had rows appended; their "
                                  "groups are merged into the view");
    weir_buf all = WEIR_BUF_INIT, term = WEIR_BUF_INIT;
    int64_t rows = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < n_terms; i++) {
        bool skip;
        weir__buf_clear(&term);
        rc = delta_term(r, i, view, &skip, &term);
        if (rc || skip)
            continue;
        if (append) {
            weir__buf_printf(&all, "%sSELECT * FROM (%s)",
                             all.len ? " UNION ALL " : "",
                             weir__buf_cstr(&term));
            continue;
        }
        /* Each term's groups merge on their own (a term has one partial
         * row per group). */
        rc = merge_groups(r, weir__buf_cstr(&term), view);
        rows += x->rows_written;
    }
    if (!rc && append)
        rc = all.failed ? oom(x)
                        : weir__write_batch(x, r->t, weir__buf_cstr(&all), false);
    else if (!rc) {
        x->rows_written = rows;
        /* Rows changed in place: streaming readers start over. */
        rc = bump_epoch(x, r->t);
    }
    weir__buf_free(&all);
    weir__buf_free(&term);
    if (!rc)
        rc = record(r);
    return rc;
}

/* Following a view costs a few statements and a scan of its inputs per
 * refresh: below a size of its inputs (WEIR_MV_MIN_ROWS_KEY, default
 * 100,000 rows) recomputing it costs less, and so does a small aggregate
 * over large inputs (CHEAP_MIN_INPUT_ROWS or more) without joins (fewer
 * rows than a CHEAP_VIEW_SHARE-th of its inputs': the fingerprint costs
 * what its GROUP BY does). */
#define CHEAP_VIEW_SHARE 20
#define CHEAP_MIN_INPUT_ROWS 100000 /* the share rule's least input */

/* The rows of the view and its inputs are known without DuckDB when the
 * update created all their tables (the view's holds none yet). */
static bool counted_by_update(const refresh *r, int64_t *inputs)
{
    const weir_flow_exec *x = r->x;
    const weir_gflow *f = x->f;
    if (!x->fresh || !x->fresh_rows || !x->fresh[f->target])
        return false;
    *inputs = 0;
    for (size_t i = 0; i < f->n_inputs; i++) {
        int di = f->inputs[i].dataset;
        if (di < 0 || !x->fresh[di] || x->fresh_rows[di] < 0)
            return false;
        *inputs += x->fresh_rows[di];
    }
    return true;
}

/* Recompute (*out) by the rules above, given the rows counted. */
static int decide(refresh *r, long long min_rows, int64_t view,
                  int64_t inputs, bool *out)
{
    weir_flow_exec *x = r->x;
    r->view_rows = view;
    if (inputs < min_rows) {
        *out = true;
        why(x, "COMPLETE_RECOMPUTE",
            "recomputing costs less: its inputs hold %lld row(s), fewer than "
            "%s (%lld)",
            (long long)inputs, WEIR_MV_MIN_ROWS_KEY, min_rows);
    } else if (r->shape.kind == WEIR_SQL_INCR_AGGREGATE && !r->shape.join &&
               inputs >= CHEAP_MIN_INPUT_ROWS &&
               view < inputs / CHEAP_VIEW_SHARE) {
        *out = true;
        why(x, "COMPLETE_RECOMPUTE",
            "recomputing costs less: the view holds %lld row(s) for %lld "
            "input row(s), and a refresh from the new rows would hash every "
            "input row to prove they only grew",
            (long long)view, (long long)inputs);
    }
    return 0;
}

static int cheaper_to_recompute(refresh *r, bool *out)
{
    weir_flow_exec *x = r->x;
    const weir_gflow *f = x->f;
    *out = false;
    const char *v = weir__flow_conf(f, WEIR_MV_MIN_ROWS_KEY, "100000");
    long long min_rows;
    if (!weir__spec_setting_count(v, WEIR_SETTING_MAX_ROWS, &min_rows))
        return WEIR_ERR(&x->err, WEIR_EINVAL, "INVALID_CONF_VALUE",
                        "%s must be a whole number of rows, not '%s'",
                        WEIR_MV_MIN_ROWS_KEY, v);
    /* The flow's checkpoint rows (for forget), the view's rows (none yet
     * in a table the update created) and its inputs' (each reference
     * counted): a count per table, by UNION ALL (scalar subqueries cost
     * DuckDB twice as much to plan); or, when the update created them
     * all, what its flows wrote there. */
    int64_t view = 0, inputs = 0;
    if (counted_by_update(r, &inputs))
        return decide(r, min_rows, view, inputs, out);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT 2, * FROM (");
    weir__checkpoint_put_row_count(&q, &r->cp);
    weir__buf_putc(&q, ')');
    if (!x->fresh || !x->fresh[f->target]) {
        weir__buf_puts(&q, " UNION ALL SELECT 0, count(*) FROM ");
        weir__phys(&q, r->t);
    }
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        weir__buf_puts(&q, " UNION ALL SELECT 1, count(*) FROM ");
        if (in->dataset >= 0) {
            weir__phys(&q, &x->g->datasets[in->dataset]);
        } else {
            const weir_sql_name *n = &in->ref->name;
            weir__storage_table_ref(
                &q, n->n >= 3 ? n->parts[n->n - 3] : f->ctx_catalog,
                n->n >= 2 ? n->parts[n->n - 2] : f->ctx_database,
                n->parts[n->n - 1]);
        }
    }
    weir_rows *rows = NULL;
    int rc = q.failed ? oom(x) : weir__query_buf(x->conn, &q, &rows, &x->err);
    weir__buf_free(&q);
    for (size_t i = 0; !rc && i < rows->n_rows; i++) {
        const char *tag = weir__rows_get(rows, i, 0);
        const char *cell = weir__rows_get(rows, i, 1);
        int64_t n = cell ? strtoll(cell, NULL, 10) : 0;
        if (tag && !strcmp(tag, "2"))
            r->checkpoint_rows = n > 0;
        else if (tag && !strcmp(tag, "0"))
            view = n;
        else
            inputs += n;
    }
    weir__rows_free(rows);
    return rc ? rc : decide(r, min_rows, view, inputs, out);
}

/* Why the last refresh cannot be built on, or NULL (after
 * cheaper_to_recompute, which counted the view). */
static int stale(refresh *r, const char **reason)
{
    weir_flow_exec *x = r->x;
    *reason = NULL;
    int rc = weir__checkpoint_position(&r->cp, &r->gen, &r->next_batch);
    r->ctx.gen = r->gen;
    r->ctx.batch_id = r->next_batch;
    if (!rc && r->next_batch == 0) {
        *reason = "there is no earlier refresh to build on (first refresh, "
                  "or after a full refresh)";
        return 0;
    }
    int64_t kept = 0, epoch = 0, now = r->view_rows;
    bool none = true;
    if (!rc)
        rc = weir__checkpoint_source_end(&r->cp, r->gen, r->definition, &kept,
                                         &epoch, &none);
    if (!rc && none) {
        *reason = "its definition changed since the last refresh";
        return 0;
    }
    if (!rc && now != kept) {
        *reason = weir__arena_printf(&r->arena,
                                     "its table holds %lld row(s), the last "
                                     "refresh left %lld (changed outside the "
                                     "pipeline?)",
                                     (long long)now, (long long)kept);
        return *reason ? 0 : oom(x);
    }
    bool kept_state = true;
    if (!rc && r->state.any)
        rc = weir__mv_state_check(&r->state, x, now, &kept_state);
    if (!rc && !kept_state) {
        *reason = "the state kept for its averages or distinct counts is "
                  "missing or does not match it";
        return 0;
    }
    return rc ? rc : plan_inputs(r, false, reason);
}

/* A view stored as Delta is recomputed whole at each refresh: one commit
 * replaces its rows and schema, then its DuckDB view is bound to them in
 * the flow's transaction. Its epoch stays: it counts full refreshes of a
 * Delta table (docs/delta.md), and nothing streams from one. */
static int refresh_delta(weir_flow_exec *x, const weir_gdataset *t)
{
    why(x, "COMPLETE_RECOMPUTE",
        "the view is stored as Delta, rewritten in one commit");
    weir_buf sql = WEIR_BUF_INIT;
    int rc = flow_sql(x, NULL, 0, &sql);
    if (!rc)
        rc = weir__sink_flow_overwrite(x, t, weir__buf_cstr(&sql));
    weir__buf_clear(&sql);
    weir__delta_view(&sql, x->st, t);
    if (!rc)
        rc = sql.failed ? oom(x)
                        : weir__conn_exec(x->conn, weir__buf_cstr(&sql) + 2,
                                          NULL, &x->err);
    weir__buf_free(&sql);
    return rc;
}

int weir__mv_refresh(weir_flow_exec *x, const weir_gdataset *t)
{
    refresh r;
    memset(&r, 0, sizeof(r));
    r.x = x;
    r.t = t;
    r.checkpoint_rows = -1;
    weir__arena_init(&r.arena);
    weir__flow_source_ctx(x, t, &r.cp, &r.arena, &r.ctx);
    r.ctx.warning = r.warning;
    r.ctx.warning_size = sizeof(r.warning);
    r.ctx.note = r.note;
    r.ctx.note_size = sizeof(r.note);
    x->technique[0] = x->technique_reason[0] = '\0';
    if (weir__dataset_delta(t)) {
        weir__arena_free(&r.arena);
        return refresh_delta(x, t);
    }
    int rc = 0;
    const char *reason = NULL;
    bool full = untracked(&r, &rc);
    if (!rc && !full)
        rc = cheaper_to_recompute(&r, &full);
    if (!rc && full) {
        rc = forget(&r);
        if (!rc)
            rc = recompute(x, t);
    } else if (!rc && !(rc = definition_key(&r)) &&
               !(rc = stale(&r, &reason))) {
        if (reason) {
            why(x, "COMPLETE_RECOMPUTE", "%s", reason);
            rc = recompute_followed(&r);
        } else {
            rc = refresh_incremental(&r);
        }
    }
    weir__arena_free(&r.arena);
    return rc;
}

void weir__mv_planning(weir_buf *details, weir_buf *msg,
                       const weir_flow_exec *x, const weir_gdataset *t)
{
    weir__buf_puts(details, "{\"planning_information\": {\"technique\": ");
    weir__buf_put_json_string(details, x->technique);
    weir__buf_puts(details, ", \"reason\": ");
    weir__buf_put_json_string(details, x->technique_reason);
    weir__buf_printf(details, ", \"technique_information\": [{"
                              "\"maintenance_type\": \"MAINTENANCE_TYPE_%s\", "
                              "\"is_chosen\": true}]}}",
                     x->technique);
    weir__buf_printf(msg, "Materialized view %s is refreshed as %s: %s.",
                     t->display, x->technique, x->technique_reason);
}
