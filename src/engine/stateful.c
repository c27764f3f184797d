/*
 * Stateful streaming flows (see stateful.h, docs/streaming.md). A batch
 * runs in these steps, all in the batch's transaction:
 *
 *   1. the operator's input (the part of the query below it, over the
 *      batch's new rows) into the temporary table __weir_op_in;
 *   2. each watermarked input's latest event time in the batch;
 *   3. rows at or before the previous watermark dropped (operators that
 *      drop late rows), and counted;
 *   4. the operator: its output into __weir_op_out (WEIR_OP_ROWS), its
 *      state updated;
 *   5. the new watermark, and the state it expires;
 *   6. the watermark state written (state/operator.h).
 *
 * The rest of the flow's query then reads __weir_op_out in place of the
 * operator (exec.c's insert, through weir_resolve_ctx.subst).
 */
#define _GNU_SOURCE
#include "engine/stateful.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/stateful_step.h"
#include "store/db.h"
#include "util/str.h"

int weir__stateful_oom(weir_flow_exec *x)
{
    return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
}

/* Translate q, read in context ctx (a flow of the graph), for this batch. */
int weir__stateful_translate(step *s, const weir_sql_query *q, const void *ctx,
                     weir_buf *out)
{
    int rc = weir__resolve_query_sql(out, &s->rctx, ctx, q, &s->x->err);
    if (!rc && out->failed)
        rc = weir__stateful_oom(s->x);
    return rc;
}

int weir__stateful_scalar(step *s, weir_buf *q, int64_t *out, bool *null)
{
    return weir__scalar_buf(s->x->conn, q, out, null, &s->x->err);
}

int weir__stateful_interval_ms(step *s, const weir_sql_expr *e, int64_t *out)
{
    weir_buf q = WEIR_BUF_INIT, d = WEIR_BUF_INIT;
    int rc = weir__sql_translate_expr(&d, e, weir__flow_time_zone(s->x->f),
                                      &s->x->err);
    /* DuckDB's epoch() of an interval counts a month as 30 days. */
    if (!rc)
        weir__buf_printf(&q,
                         "SELECT CAST(round(epoch(d) * 1000) AS BIGINT) + "
                         "(datepart('year', d) * 12 + datepart('month', d)) * "
                         "CAST(86400000 AS BIGINT) FROM (SELECT CAST((%s) AS "
                         "INTERVAL) AS d)",
                         weir__buf_cstr(&d));
    bool null = false;
    if (!rc)
        rc = weir__stateful_scalar(s, &q, out, &null);
    if (!rc && null)
        rc = WEIR_ERR(&s->x->err, WEIR_EINVAL, "INVALID_INTERVAL",
                      "Flow '%s': an interval of its stateful operator is "
                      "NULL.",
                      s->x->f->display);
    weir__buf_free(&q);
    weir__buf_free(&d);
    return rc;
}

/* A watermark's delay in milliseconds as Spark counts it (a month is 31
 * days). */
static int delay_ms(step *s, const weir_sql_watermark *w, int64_t *out)
{
    int rc = weir__stateful_interval_ms(s, w->delay, out);
    if (!rc && *out < 0)
        rc = WEIR_ERR(&s->x->err, WEIR_EINVAL, "INVALID_WATERMARK_DELAY",
                      "Flow '%s': the watermark delay of %s must be a "
                      "non-negative interval.",
                      s->x->f->display, w->column);
    return rc;
}

/* The batch's latest event time of each watermarked input, folded into
 * the state's maxima. */
static int batch_maxima(step *s)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < s->st.n_inputs; i++) {
        const weir_sql_watermark *w = &s->p->wms[i];
        weir_buf m = WEIR_BUF_INIT, q = WEIR_BUF_INIT;
        rc = weir__stateful_translate(s, w->max, w->ctx, &m);
        if (!rc)
            weir__buf_printf(&q, "SELECT epoch_ms(m) FROM (%s) AS __weir_m",
                             weir__buf_cstr(&m));
        int64_t v = 0;
        bool null = true;
        if (!rc)
            rc = weir__stateful_scalar(s, &q, &v, &null);
        if (!rc)
            rc = delay_ms(s, w, &s->delay_ms[i]);
        if (!rc && !null && (!s->st.has_max[i] || v > s->st.max_event_ms[i])) {
            s->st.has_max[i] = true;
            s->st.max_event_ms[i] = v;
        }
        weir__buf_free(&m);
        weir__buf_free(&q);
    }
    return rc;
}

/* The watermark after this batch: each input's latest event time minus
 * its delay, combined by the policy; it never goes back. */
int weir__stateful_advance(step *s)
{
    const char *policy = weir__flow_conf(
        s->x->f, "spark.sql.streaming.multipleWatermarkPolicy", "min");
    bool use_max = weir__str_ieq(policy, "max");
    if (!use_max && !weir__str_ieq(policy, "min"))
        return WEIR_ERR(&s->x->err, WEIR_EINVAL, "INVALID_CONF_VALUE",
                        "spark.sql.streaming.multipleWatermarkPolicy is '%s'; "
                        "it takes 'min' or 'max'.",
                        policy);
    bool any = false;
    int64_t wm = 0;
    for (size_t i = 0; i < s->st.n_inputs; i++) {
        if (!s->st.has_max[i])
            continue;
        int64_t v = s->st.max_event_ms[i] - s->delay_ms[i];
        if (!any || (use_max ? v > wm : v < wm))
            wm = v;
        any = true;
    }
    if (any && (!s->st.has_watermark || wm > s->st.watermark_ms)) {
        s->st.watermark_ms = wm;
        s->st.has_watermark = true;
    }
    return 0;
}

/* The operator's state must be that of the same operator: one whose kind,
 * keys or event time changed since (a new definition) would read keys of
 * another shape. Spark refuses such a restart of a query's checkpoint as
 * well. */
int weir__stateful_signature(step *s, const weir_buf *what, const char *shown)
{
    if (what->failed)
        return weir__stateful_oom(s->x);
    if (!s->sig_started) {
        s->sig_hash = 1469598103934665603ULL; /* FNV-1a */
        s->sig_started = true;
    }
    for (size_t i = 0; i < what->len; i++) {
        s->sig_hash ^= (unsigned char)what->ptr[i];
        s->sig_hash *= 1099511628211ULL;
    }
    if (!s->sig_shown[0])
        weir__str_copy(s->sig_shown, sizeof(s->sig_shown),
                       shown ? shown : weir__buf_cstr(what));
    /* Checked before the last operator touches its state. */
    return s->last_op ? weir__stateful_signature_check(s) : 0;
}

int weir__stateful_signature_check(step *s)
{
    if (!s->sig_started)
        return 0;
    int64_t sig = (int64_t)(s->sig_hash >> 1);
    if (s->st.has_signature && s->st.signature != sig)
        return WEIR_ERR(&s->x->err, WEIR_ERROR, "STREAMING_STATE_INCOMPATIBLE",
                        "The stateful operator of flow '%s' changed since its "
                        "state was written (%s): its state cannot be read by "
                        "the new one. Run a full refresh of the table to start "
                        "it over: weir run --full-refresh %s.",
                        s->x->f->display, s->sig_shown, s->t->name);
    s->st.has_signature = true;
    s->st.signature = sig;
    return 0;
}

/* Translate one of the plan's queries with its rows read from relation. */
int weir__stateful_translate_rows(step *s, const weir_sql_query *q, const char *relation,
                          weir_buf *out)
{
    size_t n = s->rctx.n_subst;
    s->rctx.subst[n].node = s->p->rows;
    s->rctx.subst[n].rows = relation;
    s->rctx.n_subst = n + 1;
    int rc = weir__stateful_translate(s, q, s->p->ctx, out);
    s->rctx.n_subst = n;
    return rc;
}

/* ---- the step --------------------------------------------------------------- */

void weir__stateful_progress(const weir_flow_exec *x, weir_buf *d)
{
    if (!x->op.has)
        return;
    weir__buf_printf(d, ", \"state_operators\": [{\"operatorName\": \"%s\", "
                        "\"numRowsTotal\": %lld, \"numRowsDroppedByWatermark\": "
                        "%lld}], \"event_time\": {\"watermark\": ",
                     x->op.name, (long long)x->op.rows_total,
                     (long long)x->op.dropped);
    if (!x->op.has_watermark) {
        weir__buf_puts(d, "null}");
        return;
    }
    int64_t ms = x->op.watermark_ms;
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    time_t tt = (time_t)secs;
    struct tm tm;
    gmtime_r(&tt, &tm);
    char buf[64];
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    weir__buf_printf(d, "\"%s.%03lldZ\"}", buf, (long long)(ms - secs * 1000));
}

static void progress(step *s, const char *op_name)
{
    struct weir_op_progress *o = &s->x->op_batch;
    o->has = true;
    o->name = op_name;
    o->rows_total = s->state_rows;
    o->dropped = s->dropped;
    o->has_watermark = s->st.has_watermark;
    o->watermark_ms = s->st.watermark_ms;
}

/* The middle of a chain: an operator's output, read by the next. */
#define OP_MID "__weir_op_mid"

/* Operator s->p over the batch: its input (read from the previous
 * operator's output, after the first), then the operator. */
static int run_operator(step *s, bool first)
{
    const weir_sql_state_plan *p = s->p;
    weir_buf q = WEIR_BUF_INIT, in = WEIR_BUF_INIT;
    int rc = 0;
    if (!first) {
        weir__buf_puts(&q, "CREATE OR REPLACE TEMP TABLE " OP_MID " AS SELECT * "
                           "FROM " WEIR_OP_ROWS);
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
        weir__buf_clear(&q);
        s->rctx.subst[s->rctx.n_subst].node = p->below->node;
        s->rctx.subst[s->rctx.n_subst++].rows = OP_MID;
    }
    if (!rc && p->input)
        rc = weir__stateful_translate(s, p->input, p->ctx, &in);
    if (!rc && p->input) {
        weir__buf_printf(&q, "CREATE OR REPLACE TEMP TABLE " WEIR_OP_IN " AS %s",
                         weir__buf_cstr(&in));
        rc = weir__exec_buf(s->x->conn, &q, &s->x->err);
    }
    if (!rc && first)
        rc = batch_maxima(s);
    if (!rc && p->kind == WEIR_SQL_SOP_AGGREGATE)
        rc = weir__stateful_aggregate(s);
    else if (!rc && p->kind == WEIR_SQL_SOP_JOIN)
        rc = weir__stateful_join(s);
    else if (!rc && p->kind == WEIR_SQL_SOP_LIMIT)
        rc = weir__stateful_limit(s);
    else if (!rc)
        rc = weir__stateful_dedup(s);
    weir__buf_free(&q);
    weir__buf_free(&in);
    return rc;
}

int weir__stateful_step(weir_flow_exec *x, const weir_gdataset *t, int64_t gen,
                        const weir_source_batch *batches, size_t n)
{
    x->op_node = NULL;
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_sop *ops = NULL;
    size_t n_ops = 0;
    if (weir__graph_stream_ops(x->g, x->f, &a, &ops, &n_ops)) {
        weir__arena_free(&a);
        return weir__stateful_oom(x);
    }
    const weir_sql_state_plan *chain[2];
    size_t n_chain = weir__graph_state_chain(ops, n_ops, chain, 2);
    if (!n_chain) {
        weir__arena_free(&a);
        return 0;
    }
    const weir_sql_state_plan *p = chain[0];
    step s;
    memset(&s, 0, sizeof(s));
    s.x = x;
    s.t = t;
    s.p = p;
    s.gen = gen;
    s.cp = weir__flow_checkpoint(x, t);
    weir__flow_resolve_ctx(x, batches, n, true, false, &s.rctx);
    int rc = p->n_wms > WEIR_OP_MAX_INPUTS
                 ? WEIR_ERR(&x->err, WEIR_EINVAL, "STREAMING_STATE_NOT_SUPPORTED",
                            "Flow '%s' reads more than %d inputs with a "
                            "watermark.",
                            x->f->display, WEIR_OP_MAX_INPUTS)
                 : weir__op_state_get(&s.cp, gen, p->n_wms, &s.st);
    s.late_ms = s.st.watermark_ms; /* with st.has_watermark */
    s.had_watermark = s.st.has_watermark;
    /* A chain's operators run innermost first, each judging late rows by
     * the previous batch's watermark and expiring by the new one (the
     * flow's one watermark, from the first operator's inputs); the state
     * row keeps one signature of them all, checked by the last one. */
    int64_t rows = 0;
    for (size_t k = 0; !rc && k < n_chain; k++) {
        s.p = chain[k];
        s.last_op = k + 1 == n_chain;
        s.state_rows = 0;
        /* Over a join, the join's output watermark (Spark's). */
        s.lower_ms = 0;
        if (k && chain[k - 1]->kind == WEIR_SQL_SOP_JOIN)
            rc = weir__stateful_join_lag(&s, chain[k - 1], &s.lower_ms);
        if (!rc)
            rc = run_operator(&s, k == 0);
        rows += s.state_rows;
    }
    if (!rc)
        rc = weir__op_state_put(&s.cp, gen, &s.st);
    const weir_sql_state_plan *last = chain[n_chain - 1];
    if (!rc) {
        s.state_rows = rows;
        progress(&s, last->kind == WEIR_SQL_SOP_AGGREGATE ? "stateStoreSave"
                     : last->kind == WEIR_SQL_SOP_JOIN    ? "symmetricHashJoin"
                     : last->kind == WEIR_SQL_SOP_LIMIT   ? "globalLimit"
                                                          : "dedupe");
        x->op_node = last->node;
    }
    weir__arena_free(&a);
    return rc;
}
