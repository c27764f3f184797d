/*
 * What the files of a stateful flow's batch share (stateful.c: the step,
 * the watermark and the helpers; stateful_ops.c: deduplication and
 * aggregation; stateful_join.c: joins of two streams). Private to them.
 */
#ifndef WEIR_ENGINE_STATEFUL_STEP_H
#define WEIR_ENGINE_STATEFUL_STEP_H

#include "state/operator.h"
#include "engine/resolve.h"
#include "engine/stateful.h"

/* The operator's input rows of the batch. */
#define WEIR_OP_IN "__weir_op_in"

typedef struct step {
    weir_flow_exec *x;
    const weir_gdataset *t;
    const weir_sql_state_plan *p;
    weir_resolve_ctx rctx;
    weir_checkpoint cp;
    int64_t gen;
    weir_op_state st;
    int64_t late_ms;      /* the previous batch's watermark (none before
                             the first event: nothing is late then) */
    bool had_watermark;   /* whether there was one */
    int64_t lower_ms;     /* how far the watermark the running operator
                             reads is below the flow's: a join's output
                             watermark, for an aggregation over it */
    int64_t delay_ms[WEIR_OP_MAX_INPUTS];
    int64_t dropped;      /* rows dropped as late */
    int64_t state_rows;
    const char *const *keys; /* a deduplication's keys */
    size_t n_keys;
    /* The operators' signature, folded over a chain's (FNV-1a of what
     * each names), and how the first is shown. */
    bool last_op; /* the last operator of the chain runs */
    bool sig_started;
    uint64_t sig_hash;
    char sig_shown[512];
} step;

int weir__stateful_oom(weir_flow_exec *x);
/* Translate q, read in context ctx (a flow of the graph), for this batch. */
int weir__stateful_translate(step *s, const weir_sql_query *q, const void *ctx,
                             weir_buf *out);
/* The same with the plan's rows placeholder read from relation. */
int weir__stateful_translate_rows(step *s, const weir_sql_query *q,
                                  const char *relation, weir_buf *out);
int weir__stateful_scalar(step *s, weir_buf *q, int64_t *out, bool *null);
/* An interval (Spark SQL) in milliseconds as Spark counts it. */
int weir__stateful_interval_ms(step *s, const weir_sql_expr *e, int64_t *out);
/* Move the watermark after the batch (s->st). */
int weir__stateful_advance(step *s);
/* The operator must be the one whose state is kept (what: its shape;
 * shown: how the error names it, NULL: what). */
int weir__stateful_signature(step *s, const weir_buf *what, const char *shown);
/* Compare the folded signature with the state's (the last operator's
 * weir__stateful_signature does): STREAMING_STATE_INCOMPATIBLE when it
 * changed. */
int weir__stateful_signature_check(step *s);

/* The operators: their output into WEIR_OP_ROWS, their state updated. */
int weir__stateful_dedup(step *s);
int weir__stateful_aggregate(step *s);
int weir__stateful_join(step *s);
/* How far the output watermark of join p (the watermark an operator over
 * it reads) is below the flow's: the latest a row it keeps may still be
 * matched, as Spark's state watermarks of its sides say. */
int weir__stateful_join_lag(step *s, const weir_sql_state_plan *p,
                            int64_t *lag_ms);
int weir__stateful_limit(step *s);

#endif
