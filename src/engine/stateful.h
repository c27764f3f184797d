/*
 * A batch of a stateful streaming flow (docs/streaming.md): the flow's
 * stateful operator (found by the graph's analysis, weir_sql_state_plan)
 * runs over the batch's input rows and the state it keeps in _weir
 * (state/operator.h), in the batch's transaction; its output rows are a
 * temporary table the rest of the flow's query reads in place of the
 * operator (weir_resolve_ctx.subst). Watermarks advance as in Spark's
 * triggered runs: the batch's rows are judged against the watermark of
 * the previous batch, then the new watermark (the latest event time seen
 * minus the delay, inputs combined by
 * spark.sql.streaming.multipleWatermarkPolicy) expires state.
 */
#ifndef WEIR_ENGINE_STATEFUL_H
#define WEIR_ENGINE_STATEFUL_H

#include "engine/exec.h"

/* The DuckDB relation that holds the operator's output rows. */
#define WEIR_OP_ROWS "__weir_op_out"

/* Run x's stateful operator over the batch (batches, n) of generation gen
 * into t, in the open transaction: sets x->op_node (NULL when the flow
 * has no stateful operator) and x->op. 0 or the code in x->err. */
int weir__stateful_step(weir_flow_exec *x, const weir_gdataset *t, int64_t gen,
                        const weir_source_batch *batches, size_t n);

/* What the update's batches did with the flow's state, as members of its
 * flow_progress details (Spark's stateOperators and eventTime.watermark);
 * nothing for a flow without a stateful operator. */
void weir__stateful_progress(const weir_flow_exec *x, weir_buf *d);

#endif
