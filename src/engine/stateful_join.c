/*
 * Joins of two streams over the rows each side keeps (see stateful_step.h,
 * docs/streaming.md). Each side's rows are kept in a table of the state
 * with an id, their event time and whether they matched. A batch:
 *
 *   1. each side's new rows (late ones dropped) into a temporary table,
 *      with ids after the kept rows';
 *   2. the pairs the new rows make: new left rows with the kept and new
 *      right rows, kept left rows with the new right rows (each pair
 *      once); a left semi join writes a left row at its first match;
 *   3. the rows that matched marked (outer and semi joins), the new rows
 *      kept;
 *   4. the watermark moved; each side's rows that no row to come can
 *      match (event time at or before the side's state watermark:
 *      side_bound) leave the state, outer ones unmatched written with
 *      NULLs for the other side.
 */
#include <stdio.h>
#include <string.h>

#include "engine/stateful_step.h"
#include "store/db.h"
#include "util/str.h"

#define BOOKKEEPING "__weir_id, __weir_evt_us, __weir_matched"

static const char *const SIDE_TMP[2] = { "__weir_join_new_l", "__weir_join_new_r" };
static const char *const SIDE_KIND[2] = { "join-left", "join-right" };

typedef struct join_ctx {
    step *s;
    weir_buf state[2]; /* the kept rows' tables */
} join_ctx;

/* Translate q (a plan query over both sides' placeholders) with the sides
 * read from relations l and r (DuckDB text: a parenthesised query). */
static int translate2(join_ctx *j, const weir_sql_query *q, const char *l,
                      const char *r, weir_buf *out)
{
    step *s = j->s;
    size_t n = s->rctx.n_subst;
    s->rctx.subst[n].node = s->p->side[0].rows;
    s->rctx.subst[n].rows = l;
    s->rctx.subst[n + 1].node = s->p->side[1].rows;
    s->rctx.subst[n + 1].rows = r;
    s->rctx.n_subst = n + 2;
    int rc = weir__stateful_translate(s, q, s->p->ctx, out);
    s->rctx.n_subst = n;
    return rc;
}

static int exec(join_ctx *j, weir_buf *q, int64_t *changed)
{
    int rc = q->failed ? weir__stateful_oom(j->s->x)
                       : weir__conn_exec(j->s->x->conn, weir__buf_cstr(q),
                                         changed, &j->s->x->err);
    weir__buf_clear(q);
    return rc;
}

/* Step 1 for side i. */
static int new_rows(join_ctx *j, int i)
{
    step *s = j->s;
    const struct weir_sql_join_side *sd = &s->p->side[i];
    weir_buf in = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    bool exists = false;
    int rc = weir__stateful_translate(s, sd->input, s->p->ctx, &in);
    if (!rc) {
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE %s AS SELECT *, "
                             "CAST(NULL AS BIGINT) AS __weir_id, ",
                         SIDE_TMP[i]);
        if (sd->event_time) {
            weir__buf_puts(&q, "epoch_us(");
            weir__buf_put_sql_ident(&q, sd->event_time);
            weir__buf_puts(&q, ")");
        } else {
            weir__buf_puts(&q, "CAST(NULL AS BIGINT)");
        }
        weir__buf_printf(&q, " AS __weir_evt_us, false AS __weir_matched FROM "
                             "(%s) AS __weir_side",
                         weir__buf_cstr(&in));
        rc = exec(j, &q, NULL);
    }
    if (!rc && sd->event_time && s->st.has_watermark) {
        int64_t late = 0;
        weir__buf_printf(&q, "DELETE FROM %s WHERE __weir_evt_us <= %lld",
                         SIDE_TMP[i], (long long)s->late_ms * 1000);
        rc = exec(j, &q, &late);
        s->dropped += late;
    }
    if (!rc)
        rc = weir__op_state_prepare(&s->cp, SIDE_KIND[i], s->gen, &exists);
    if (!rc && !exists) {
        weir__buf_printf(&q, "CREATE TABLE %s AS SELECT * FROM %s LIMIT 0",
                         weir__buf_cstr(&j->state[i]), SIDE_TMP[i]);
        rc = exec(j, &q, NULL);
    }
    if (!rc) {
        weir__buf_printf(&q, "UPDATE %s SET __weir_id = rowid + 1 + (SELECT "
                             "coalesce(max(__weir_id), 0) FROM %s)",
                         SIDE_TMP[i], weir__buf_cstr(&j->state[i]));
        rc = exec(j, &q, NULL);
    }
    weir__buf_free(&in);
    weir__buf_free(&q);
    return rc;
}

/* A NATURAL join's plan as a join USING the sides' common columns (in
 * the left side's order, as Spark resolves it), into *out (arena a): the
 * sides' bookkeeping columns must not join. */
static int natural_plan(join_ctx *j, weir_arena *a, weir_sql_state_plan *out)
{
    step *s = j->s;
    weir_db_column *c[2] = { NULL, NULL };
    size_t n[2] = { 0, 0 };
    int rc = 0;
    for (int i = 0; !rc && i < 2; i++) {
        char q[160];
        snprintf(q, sizeof(q), "SELECT * EXCLUDE (" BOOKKEEPING ") FROM %s",
                 SIDE_TMP[i]);
        rc = weir__conn_describe(s->x->conn, q, &c[i], &n[i], a, &s->x->err);
    }
    const char **cols = rc ? NULL : weir__arena_array(a, n[0] + 1, sizeof(*cols));
    if (!rc && !cols)
        return weir__stateful_oom(s->x);
    size_t k = 0;
    for (size_t l = 0; !rc && l < n[0]; l++)
        for (size_t r = 0; r < n[1]; r++)
            if (weir__str_ieq(c[0][l].name, c[1][r].name)) {
                cols[k++] = c[0][l].name;
                break;
            }
    if (!rc && !k)
        return WEIR_ERR(&s->x->err, WEIR_EINVAL, "STREAMING_STATE_NOT_SUPPORTED",
                        "Flow '%s': the sides of its NATURAL join of two "
                        "streams have no column in common (a cross join of "
                        "two streams): write it as CROSS JOIN.",
                        s->x->f->display);
    if (rc)
        return rc;
    *out = *s->p;
    out->natural = false;
    out->emit = weir__sql_join_using(a, s->p->emit, cols, k);
    out->pairs = weir__sql_join_using(a, s->p->pairs, cols, k);
    out->emit_left_nulls = weir__sql_join_using(a, s->p->emit_left_nulls, cols, k);
    out->emit_right_nulls = weir__sql_join_using(a, s->p->emit_right_nulls, cols, k);
    if (!out->emit || !out->pairs ||
        (s->p->emit_left_nulls && !out->emit_left_nulls) ||
        (s->p->emit_right_nulls && !out->emit_right_nulls))
        return weir__stateful_oom(s->x);
    s->p = out;
    return 0;
}

/* A side's rows as the query sees them: without the bookkeeping. */
static void clean(weir_buf *b, const char *rel, const char *where)
{
    weir__buf_printf(b, "(SELECT * EXCLUDE (" BOOKKEEPING ") FROM %s%s%s)", rel,
                     where ? " WHERE " : "", where ? where : "");
}

/* Both sides' kept rows followed by the batch's new ones. */
static void kept_and_new(weir_buf *b, join_ctx *j, int i)
{
    weir__buf_printf(b, "(SELECT * FROM %s UNION ALL BY NAME SELECT * FROM %s)",
                     weir__buf_cstr(&j->state[i]), SIDE_TMP[i]);
}

/* Steps 2 and 3: the pairs into WEIR_OP_ROWS, the matched rows marked,
 * the new rows kept. */
static int pairs(join_ctx *j)
{
    step *s = j->s;
    const weir_sql_state_plan *p = s->p;
    bool semi = p->join == WEIR_SQL_JOIN_SEMI;
    weir_buf q = WEIR_BUF_INIT, l = WEIR_BUF_INIT, r = WEIR_BUF_INIT,
             a = WEIR_BUF_INIT, b = WEIR_BUF_INIT, all_r = WEIR_BUF_INIT;
    kept_and_new(&all_r, j, 1);
    /* new left rows with every right row */
    clean(&l, SIDE_TMP[0], NULL);
    clean(&r, weir__buf_cstr(&all_r), NULL);
    int rc = translate2(j, p->emit, weir__buf_cstr(&l), weir__buf_cstr(&r), &a);
    /* kept left rows (a semi join: those that never matched) with the new
     * right rows */
    weir__buf_clear(&l);
    weir__buf_clear(&r);
    clean(&l, weir__buf_cstr(&j->state[0]), semi ? "NOT __weir_matched" : NULL);
    clean(&r, SIDE_TMP[1], NULL);
    if (!rc)
        rc = translate2(j, p->emit, weir__buf_cstr(&l), weir__buf_cstr(&r), &b);
    if (!rc) {
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " WEIR_OP_ROWS " AS "
                             "SELECT * FROM (%s) UNION ALL SELECT * FROM (%s)",
                         weir__buf_cstr(&a), weir__buf_cstr(&b));
        rc = exec(j, &q, NULL);
    }
    if (!rc && p->join != WEIR_SQL_JOIN_INNER) {
        /* the ids of the same pairs, to mark the rows that matched */
        weir__buf_clear(&a);
        weir__buf_clear(&b);
        rc = translate2(j, p->pairs, SIDE_TMP[0], weir__buf_cstr(&all_r), &a);
        if (!rc)
            rc = translate2(j, p->pairs, weir__buf_cstr(&j->state[0]),
                            SIDE_TMP[1], &b);
        if (!rc) {
            weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE __weir_join_pairs "
                                 "AS SELECT * FROM (%s) UNION ALL SELECT * "
                                 "FROM (%s);",
                             weir__buf_cstr(&a), weir__buf_cstr(&b));
            for (int i = 0; i < 2; i++)
                weir__buf_printf(&q, "UPDATE %s SET __weir_matched = true WHERE "
                                     "__weir_id IN (SELECT %s FROM "
                                     "__weir_join_pairs); UPDATE %s SET "
                                     "__weir_matched = true WHERE __weir_id IN "
                                     "(SELECT %s FROM __weir_join_pairs);",
                                 SIDE_TMP[i], i ? "r" : "l",
                                 weir__buf_cstr(&j->state[i]), i ? "r" : "l");
            rc = exec(j, &q, NULL);
        }
    }
    for (int i = 0; !rc && i < 2; i++) {
        weir__buf_printf(&q, "INSERT INTO %s BY NAME SELECT * FROM %s",
                         weir__buf_cstr(&j->state[i]), SIDE_TMP[i]);
        rc = exec(j, &q, NULL);
    }
    weir__buf_free(&q);
    weir__buf_free(&l);
    weir__buf_free(&r);
    weir__buf_free(&a);
    weir__buf_free(&b);
    weir__buf_free(&all_r);
    return rc;
}

/* Side i's state watermark (Spark's): its kept rows whose event time is at
 * or before it can no longer match. The watermark itself when the side
 * leaves by the join keys; by a range, the watermark plus the side's terms,
 * less a millisecond when the range is not strict (Spark's
 * StreamingJoinHelper: a row at the bound of a <= or >= can still match). */
static int side_bound(step *s, const struct weir_sql_join_side *sd,
                      int64_t wm_ms, int64_t *out)
{
    int rc = 0;
    *out = wm_ms - (sd->by_key || sd->strict ? 0 : 1);
    for (size_t k = 0; !rc && k < sd->n_evict; k++) {
        int64_t ms = 0;
        rc = weir__stateful_interval_ms(s, sd->evict[k].interval, &ms);
        *out += sd->evict[k].minus ? -ms : ms;
    }
    return rc;
}

int weir__stateful_join_lag(step *s, const weir_sql_state_plan *p,
                            int64_t *lag_ms)
{
    /* Spark: the smaller of the sides' state watermarks (side_bound), or
     * the join's input watermark when neither side has one. */
    *lag_ms = 0;
    bool any = false;
    for (int i = 0; i < 2; i++) {
        const struct weir_sql_join_side *sd = &p->side[i];
        if (!sd->can_evict || !sd->event_time)
            continue;
        int64_t bound = 0;
        int rc = side_bound(s, sd, 0, &bound);
        if (rc)
            return rc;
        int64_t lag = -bound;
        if (!any || lag > *lag_ms)
            *lag_ms = lag;
        any = true;
    }
    return 0;
}

/* Step 4 for side i: its rows that can no longer match leave the state;
 * an outer side's unmatched ones are written with NULLs. */
static int evict(join_ctx *j, int i)
{
    step *s = j->s;
    const weir_sql_state_plan *p = s->p;
    const struct weir_sql_join_side *sd = &p->side[i];
    if (!sd->can_evict || !sd->event_time || !s->st.has_watermark)
        return 0;
    int64_t bound = 0;
    int rc = side_bound(s, sd, s->st.watermark_ms, &bound);
    const weir_sql_query *nulls = i ? p->emit_right_nulls : p->emit_left_nulls;
    weir_buf q = WEIR_BUF_INIT, gone = WEIR_BUF_INIT, none = WEIR_BUF_INIT,
             sql = WEIR_BUF_INIT, where = WEIR_BUF_INIT;
    weir__buf_printf(&where, "__weir_evt_us <= %lld", (long long)bound * 1000);
    if (!rc && nulls) {
        weir__buf_printf(&where, " AND NOT __weir_matched");
        clean(&gone, weir__buf_cstr(&j->state[i]), weir__buf_cstr(&where));
        clean(&none, weir__buf_cstr(&j->state[1 - i]), "false");
        rc = i ? translate2(j, nulls, weir__buf_cstr(&none), weir__buf_cstr(&gone), &sql)
               : translate2(j, nulls, weir__buf_cstr(&gone), weir__buf_cstr(&none), &sql);
        if (!rc) {
            weir__buf_printf(&q, "INSERT INTO " WEIR_OP_ROWS " SELECT * FROM (%s)",
                             weir__buf_cstr(&sql));
            rc = exec(j, &q, NULL);
        }
    }
    if (!rc) {
        weir__buf_printf(&q, "DELETE FROM %s WHERE __weir_evt_us <= %lld",
                         weir__buf_cstr(&j->state[i]), (long long)bound * 1000);
        rc = exec(j, &q, NULL);
    }
    weir__buf_free(&q);
    weir__buf_free(&gone);
    weir__buf_free(&none);
    weir__buf_free(&sql);
    weir__buf_free(&where);
    return rc;
}

int weir__stateful_join(step *s)
{
    const weir_sql_state_plan *p = s->p;
    join_ctx j;
    memset(&j, 0, sizeof(j));
    j.s = s;
    for (int i = 0; i < 2; i++)
        weir__op_state_table(&j.state[i], &s->cp, SIDE_KIND[i], s->gen);
    weir_buf what = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
    weir__buf_printf(&what, "a join (%d) of %s (event time %s) and %s (event "
                            "time %s)",
                     p->join, p->side[0].alias,
                     p->side[0].event_time ? p->side[0].event_time : "none",
                     p->side[1].alias,
                     p->side[1].event_time ? p->side[1].event_time : "none");
    int rc = weir__stateful_signature(s, &what, NULL);
    for (int i = 0; !rc && i < 2; i++)
        rc = new_rows(&j, i);
    weir_arena na = WEIR_ARENA_INIT;
    weir_sql_state_plan natural;
    if (!rc && p->natural)
        rc = natural_plan(&j, &na, &natural);
    if (!rc)
        rc = pairs(&j);
    if (!rc)
        rc = weir__stateful_advance(s);
    for (int i = 0; !rc && i < 2; i++)
        rc = evict(&j, i);
    int64_t n[2] = { 0, 0 };
    for (int i = 0; !rc && i < 2; i++) {
        weir__buf_printf(&q, "SELECT count(*) FROM %s", weir__buf_cstr(&j.state[i]));
        rc = weir__stateful_scalar(s, &q, &n[i], NULL);
        weir__buf_clear(&q);
    }
    s->state_rows = n[0] + n[1];
    s->p = p;
    weir__arena_free(&na);
    weir__buf_free(&q);
    weir__buf_free(&what);
    for (int i = 0; i < 2; i++)
        weir__buf_free(&j.state[i]);
    return rc;
}
