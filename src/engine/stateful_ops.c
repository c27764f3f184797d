/*
 * Deduplication and aggregation by event time over the state they keep
 * (see stateful_step.h, docs/streaming.md).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/stateful_step.h"
#include "store/db.h"

/* ---- deduplication -------------------------------------------------------- */

static void put_keys(weir_buf *q, const step *s, const char *qual)
{
    for (size_t i = 0; i < s->n_keys; i++) {
        if (i)
            weir__buf_puts(q, ", ");
        if (qual)
            weir__buf_printf(q, "%s.", qual);
        weir__buf_put_sql_ident(q, s->keys[i]);
    }
}

static void put_event_us(weir_buf *q, const weir_sql_state_plan *p)
{
    weir__buf_puts(q, "epoch_us(");
    weir__buf_put_sql_ident(q, p->event_time);
    weir__buf_putc(q, ')');
}

/* What the state keeps of a row besides its keys, for the watermark to
 * expire it: its event time, or within the watermark the time it
 * expires (the event time plus the watermark's delay). */
static void put_expiry(weir_buf *q, const step *s)
{
    const weir_sql_state_plan *p = s->p;
    put_event_us(q, p);
    if (p->within_watermark && p->event_wm >= 0)
        weir__buf_printf(q, " + %lld",
                         (long long)s->delay_ms[p->event_wm] * 1000);
}

/* The keys: the plan's, or every column of the input. */
static int dedup_keys(step *s, weir_arena *a)
{
    if (s->p->n_keys) {
        s->keys = s->p->keys;
        s->n_keys = s->p->n_keys;
        return 0;
    }
    weir_db_column *cols = NULL;
    size_t n = 0;
    int rc = weir__conn_describe(s->x->conn, "SELECT * FROM " WEIR_OP_IN, &cols, &n,
                                 a, &s->x->err);
    const char **keys = rc ? NULL : weir__arena_array(a, n ? n : 1, sizeof(*keys));
    if (!rc && !keys)
        rc = weir__stateful_oom(s->x);
    for (size_t i = 0; !rc && i < n; i++)
        keys[i] = cols[i].name;
    s->keys = keys;
    s->n_keys = rc ? 0 : n;
    return rc;
}

/* dropDuplicates(keys): the first row of each key not in the state, whose
 * keys the state then keeps (with the event time when a key has a
 * watermark: the watermark expires them). */
int weir__stateful_dedup(step *s)
{
    const weir_sql_state_plan *p = s->p;
    bool exists = false;
    weir_arena a = WEIR_ARENA_INIT;
    int rc = dedup_keys(s, &a);
    weir_buf what = WEIR_BUF_INIT;
    weir__buf_printf(&what, "%s of ", p->within_watermark
                                          ? "dropDuplicatesWithinWatermark"
                                          : "dropDuplicates");
    for (size_t i = 0; i < s->n_keys; i++)
        weir__buf_printf(&what, "%s%s", i ? ", " : "", s->keys[i]);
    if (p->event_time)
        weir__buf_printf(&what, ", event time %s", p->event_time);
    if (!rc)
        rc = weir__stateful_signature(s, &what, NULL);
    weir__buf_free(&what);
    if (!rc)
        rc = weir__op_state_prepare(&s->cp, "dedup", s->gen, &exists);
    weir_buf q = WEIR_BUF_INIT, state = WEIR_BUF_INIT;
    weir__op_state_table(&state, &s->cp, "dedup", s->gen);
    const char *st = weir__buf_cstr(&state);
    if (!rc && p->event_time && s->st.has_watermark) {
        weir__buf_printf(&q, "DELETE FROM " WEIR_OP_IN " WHERE ");
        put_event_us(&q, p);
        weir__buf_printf(&q, " <= %lld", (long long)s->late_ms * 1000);
        rc = state.failed ? weir__stateful_oom(s->x)
                          : weir__conn_exec(s->x->conn, weir__buf_cstr(&q),
                                            &s->dropped, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc && !exists) {
        weir__buf_printf(&q, "CREATE TABLE %s AS SELECT ", st);
        put_keys(&q, s, NULL);
        if (p->event_time) {
            weir__buf_puts(&q, ", ");
            put_expiry(&q, s);
            weir__buf_puts(&q, " AS __weir_event_us");
        }
        weir__buf_puts(&q, " FROM " WEIR_OP_IN " LIMIT 0; ");
    }
    if (!rc) {
        weir__buf_puts(&q, "CREATE OR REPLACE TEMP TABLE " WEIR_OP_ROWS " AS "
                           "SELECT * EXCLUDE (__weir_rn, __weir_pos) FROM ("
                           "SELECT i.*, i.rowid AS __weir_pos, row_number() "
                           "OVER (PARTITION BY ");
        put_keys(&q, s, "i");
        weir__buf_printf(&q, " ORDER BY i.rowid) AS __weir_rn FROM " WEIR_OP_IN
                             " AS i WHERE NOT EXISTS (SELECT 1 FROM %s AS s "
                             "WHERE ",
                         st);
        for (size_t i = 0; i < s->n_keys; i++) {
            weir__buf_puts(&q, i ? " AND s." : "s.");
            weir__buf_put_sql_ident(&q, s->keys[i]);
            weir__buf_puts(&q, " IS NOT DISTINCT FROM i.");
            weir__buf_put_sql_ident(&q, s->keys[i]);
        }
        weir__buf_printf(&q, ")) WHERE __weir_rn = 1 ORDER BY __weir_pos; "
                             "INSERT INTO %s SELECT ",
                         st);
        put_keys(&q, s, NULL);
        if (p->event_time) {
            weir__buf_puts(&q, ", ");
            put_expiry(&q, s);
        }
        weir__buf_puts(&q, " FROM " WEIR_OP_ROWS ";");
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc)
        rc = weir__stateful_advance(s);
    if (!rc && p->event_time && s->st.has_watermark) {
        weir__buf_printf(&q, "DELETE FROM %s WHERE __weir_event_us <= %lld", st,
                         (long long)s->st.watermark_ms * 1000);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc) {
        weir__buf_printf(&q, "SELECT count(*) FROM %s", st);
        rc = weir__stateful_scalar(s, &q, &s->state_rows, NULL);
    }
    weir__buf_free(&q);
    weir__buf_free(&state);
    weir__arena_free(&a);
    return rc;
}

/* ---- aggregation -------------------------------------------------------- */

#define OP_ROWS_IN "__weir_op_rows"
#define OP_CLOSED "__weir_op_closed"
#define OP_EMITTED "__weir_op_emitted"

/* An aggregation keyed by a watermarked event time, in append mode: the
 * input rows are kept (each with the end of its group) until the
 * watermark passes that end; then the groups it closed are aggregated and
 * written, once. A row whose group ended at or before the previous
 * watermark is late. Session windows grow with their rows: a row is kept
 * with its own end (time + gap), the sessions are formed over every row
 * kept, and a closed session's rows leave with it. */
int weir__stateful_aggregate(step *s)
{
    const weir_sql_state_plan *p = s->p;
    bool exists = false;
    /* over another aggregation: a state of its own */
    const char *kind = p->below && p->below->kind == WEIR_SQL_SOP_AGGREGATE
                           ? "agg-outer"
                           : "agg";
    int rc = weir__op_state_prepare(&s->cp, kind, s->gen, &exists);
    weir_buf q = WEIR_BUF_INIT, state = WEIR_BUF_INIT, sql = WEIR_BUF_INIT;
    weir__op_state_table(&state, &s->cp, kind, s->gen);
    const char *st = weir__buf_cstr(&state);
    if (!rc)
        rc = weir__stateful_translate_rows(s, p->closes, WEIR_OP_IN, &sql);
    if (!rc) {
        weir_buf what = WEIR_BUF_INIT;
        weir__buf_printf(&what, "an aggregation whose groups close at %s",
                         weir__buf_cstr(&sql));
        rc = weir__stateful_signature(s, &what, "its aggregation's input or event-time key");
        weir__buf_free(&what);
    }
    if (!rc) {
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " OP_ROWS_IN " AS "
                             "SELECT * EXCLUDE (__weir_end), epoch_us(__weir_end) "
                             "AS __weir_end_us FROM (%s) WHERE __weir_end IS NOT "
                             "NULL",
                         weir__buf_cstr(&sql));
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc && s->st.has_watermark) {
        weir__buf_printf(&q, "DELETE FROM " OP_ROWS_IN " WHERE __weir_end_us "
                             "<= %lld",
                         (long long)(s->late_ms - s->lower_ms) * 1000);
        /* Over another stateful operator's output, Spark 4.1 drops the
         * rows whose event time itself is at or before the watermark
         * (measured: py-dedup-window), not only those of closed groups.
         * An aggregation's output has no such rows (its groups close at
         * the watermark), and its event time is a window. */
        for (size_t i = 0; p->below && p->below->kind != WEIR_SQL_SOP_AGGREGATE &&
                           i < p->n_wms;
             i++) {
            weir__buf_puts(&q, " OR epoch_us(");
            weir__buf_put_sql_ident(&q, p->wms[i].column);
            weir__buf_printf(&q, ") <= %lld", (long long)(s->late_ms - s->lower_ms) * 1000);
        }
        int64_t late = 0;
        rc = q.failed ? weir__stateful_oom(s->x)
                      : weir__conn_exec(s->x->conn, weir__buf_cstr(&q), &late,
                                        &s->x->err);
        s->dropped += late;
        weir__buf_clear(&q);
    }
    if (!rc && !exists)
        weir__buf_printf(&q, "CREATE TABLE %s AS SELECT * FROM " OP_ROWS_IN
                             " LIMIT 0; ",
                         st);
    if (!rc) {
        weir__buf_printf(&q, "INSERT INTO %s BY NAME SELECT * FROM " OP_ROWS_IN
                             ";",
                         st);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    bool had = s->had_watermark; /* before the batch (a chain's first
                                    operator advanced it already) */
    int64_t prev_ms = s->late_ms - s->lower_ms;
    if (!rc)
        rc = weir__stateful_advance(s);
    int64_t wm_ms = s->st.watermark_ms - s->lower_ms;
    /* The groups the watermark passed since the previous batch: written
     * now, once (none before there is a watermark); then the rows whose
     * last group they were. A row of a sliding window is in several
     * groups: it stays for those still open. */
    char closed[160] = "false", gone[64] = "false";
    if (s->st.has_watermark && had)
        snprintf(closed, sizeof(closed),
                 "epoch_us(__weir_end) <= %lld AND epoch_us(__weir_end) > %lld",
                 (long long)wm_ms * 1000, (long long)prev_ms * 1000);
    else if (s->st.has_watermark)
        snprintf(closed, sizeof(closed), "epoch_us(__weir_end) <= %lld",
                 (long long)wm_ms * 1000);
    if (s->st.has_watermark)
        snprintf(gone, sizeof(gone), "__weir_end_us <= %lld",
                 (long long)wm_ms * 1000);
    if (!rc) {
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " OP_CLOSED " AS "
                             "SELECT * EXCLUDE (__weir_end_us)%s FROM %s",
                         p->sessions ? ", rowid AS __weir_rid" : "", st);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    weir__buf_clear(&sql);
    if (!rc)
        rc = weir__stateful_translate_rows(s, p->emit, OP_CLOSED, &sql);
    if (!rc && p->sessions) /* a closed session's rows go with it */
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " OP_EMITTED " AS "
                             "SELECT * FROM (%s) WHERE %s; CREATE OR REPLACE "
                             "TEMP TABLE " WEIR_OP_ROWS " AS SELECT * EXCLUDE "
                             "(__weir_end, __weir_rids) FROM " OP_EMITTED "; "
                             "DELETE FROM %s WHERE rowid IN (SELECT "
                             "unnest(__weir_rids) FROM " OP_EMITTED ");",
                         weir__buf_cstr(&sql), closed, st);
    else if (!rc)
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " WEIR_OP_ROWS
                         " AS SELECT * EXCLUDE (__weir_end) FROM (%s) WHERE "
                         "%s; DELETE FROM %s WHERE %s;",
                         weir__buf_cstr(&sql), closed, st, gone);
    if (!rc) {
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc) {
        weir__buf_printf(&q, "SELECT count(*) FROM %s", st);
        rc = weir__stateful_scalar(s, &q, &s->state_rows, NULL);
    }
    weir__buf_free(&q);
    weir__buf_free(&sql);
    weir__buf_free(&state);
    return rc;
}


/* ---- limit ---------------------------------------------------------------- */

/* LIMIT n on a stream: the state is the number of rows written so far
 * (one row); a batch writes its first rows, in the order the source gives
 * them, while that number is under n. */
int weir__stateful_limit(step *s)
{
    const weir_sql_state_plan *p = s->p;
    bool exists = false;
    weir_buf q = WEIR_BUF_INIT, state = WEIR_BUF_INIT, n = WEIR_BUF_INIT;
    weir__op_state_table(&state, &s->cp, "limit", s->gen);
    const char *st = weir__buf_cstr(&state);
    int rc = weir__sql_translate_expr(&n, p->limit, weir__flow_time_zone(s->x->f),
                                      &s->x->err);
    int64_t limit = 0, written = 0;
    bool null = false;
    if (!rc) {
        weir__buf_printf(&q, "SELECT CAST((%s) AS BIGINT)", weir__buf_cstr(&n));
        rc = weir__stateful_scalar(s, &q, &limit, &null);
        weir__buf_clear(&q);
    }
    if (!rc && (null || limit < 0))
        rc = WEIR_ERR(&s->x->err, WEIR_EINVAL, "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
                      "Flow '%s': its LIMIT must be a non-negative number.",
                      s->x->f->display);
    if (!rc) {
        weir_buf what = WEIR_BUF_INIT;
        weir__buf_puts(&what, "a limit");
        rc = weir__stateful_signature(s, &what, NULL);
        weir__buf_free(&what);
    }
    if (!rc)
        rc = weir__op_state_prepare(&s->cp, "limit", s->gen, &exists);
    if (!rc && !exists) {
        weir__buf_printf(&q, "CREATE TABLE %s (n BIGINT); INSERT INTO %s "
                             "VALUES (0);",
                         st, st);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc) {
        weir__buf_printf(&q, "SELECT n FROM %s", st);
        rc = weir__stateful_scalar(s, &q, &written, NULL);
        weir__buf_clear(&q);
    }
    if (!rc) {
        int64_t left = written < limit ? limit - written : 0;
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " WEIR_OP_ROWS " AS "
                             "SELECT * FROM " WEIR_OP_IN " ORDER BY rowid LIMIT "
                             "%lld; UPDATE %s SET n = n + (SELECT count(*) FROM "
                             WEIR_OP_ROWS ");",
                         (long long)left, st);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
    }
    if (!rc)
        rc = weir__stateful_advance(s);
    s->state_rows = 1;
    weir__buf_free(&q);
    weir__buf_free(&n);
    weir__buf_free(&state);
    return rc;
}
