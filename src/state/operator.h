/*
 * The state of stateful streaming operators (docs/streaming.md), in the
 * _weir schema of the flow's state catalog and versioned by the flow's
 * checkpoint generation like the rest of its checkpoint:
 *
 *   _weir.operator_state  one row per (flow, generation, name): the
 *                         flow's watermark ("watermark", in ms, the
 *                         watermark of its last batch), the latest
 *                         event time seen by each input with a watermark
 *                         ("max_event #i", ms), and what the operator was
 *                         ("signature"), so that a changed one is not fed
 *                         the state of another.
 *   _weir."<kind> <flow> #<gen>"  the operator's own rows (a
 *                         deduplication's keys, an aggregation's rows of
 *                         open groups, a join side's rows), one table per
 *                         kind and generation, whose columns the operator
 *                         chooses (engine/stateful*.c writes them in SQL
 *                         by the name given here); those of older
 *                         generations are dropped by the first batch of a
 *                         new one.
 *
 * Every call runs on cp->conn inside the batch's transaction, so the
 * state commits with the rows the operator wrote and the source positions.
 */
#ifndef WEIR_STATE_OPERATOR_H
#define WEIR_STATE_OPERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "state/state.h"
#include "util/buf.h"

#define WEIR_OP_MAX_INPUTS 16

typedef struct weir_op_state {
    bool has_signature;     /* what the operator was ("signature"): a hash
                               of its kind, keys and event time */
    int64_t signature;
    bool has_watermark;
    int64_t watermark_ms;
    size_t n_inputs;
    bool has_max[WEIR_OP_MAX_INPUTS];
    int64_t max_event_ms[WEIR_OP_MAX_INPUTS];
} weir_op_state;

/* The flow's state of generation gen for n_inputs watermarked inputs (no
 * row yet: nothing seen, no watermark). */
int weir__op_state_get(const weir_checkpoint *cp, int64_t gen, size_t n_inputs,
                       weir_op_state *out);
/* Replace the flow's rows of _weir.operator_state with st's, of
 * generation gen (rows of older generations go). */
int weir__op_state_put(const weir_checkpoint *cp, int64_t gen,
                       const weir_op_state *st);
/* Append the qualified, quoted name of the operator table of kind (e.g.
 * "dedup") for generation gen. */
void weir__op_state_table(weir_buf *q, const weir_checkpoint *cp,
                          const char *kind, int64_t gen);
/* Whether that table exists; when it does not, the operator tables of
 * kind of other generations are dropped (a full refresh left them). */
int weir__op_state_prepare(const weir_checkpoint *cp, const char *kind,
                           int64_t gen, bool *exists);

#endif
