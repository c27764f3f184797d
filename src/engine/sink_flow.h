/*
 * The engine's side of the sink protocol (docs/sinks.md, "Exactly once"),
 * for a flow into a sink: stage a batch in the flow's transaction, publish
 * it after the commit, and recover batches a crash left committed but not
 * published. The formats themselves are src/sinks/ (sinks/sink.h).
 */
#ifndef WEIR_ENGINE_SINK_FLOW_H
#define WEIR_ENGINE_SINK_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "engine/exec.h"
#include "sinks/sink.h"

/* Publish flow x's batches into sink t whose checkpoint committed but whose
 * publication was not recorded (a crash in between). Runs outside the
 * flow's transaction. 0 or the code in x->err. */
int weir__sink_flow_recover(weir_flow_exec *x, const weir_gdataset *t,
                            const weir_sink_format *fmt);

/* Stage batch batch_id of generation gen (the rows of x's query over the
 * source batches) with fmt, and record it as committed in
 * _weir.sink_batches, in the transaction that commits the checkpoint.
 * On success x->sink_format, sink_gen and sink_batch_id name the batch
 * to publish, and x->sink_pending holds what the format keeps of it. */
int weir__sink_flow_stage(weir_flow_exec *x, const weir_gdataset *t,
                          int64_t gen, int64_t batch_id,
                          const weir_source_batch *batches, size_t n_batches,
                          const weir_sink_format *fmt);

/* After the commit: make the staged batch visible and record it as
 * published. On failure the next update's recovery publishes it. */
int weir__sink_flow_publish(weir_flow_exec *x, const weir_gdataset *t);

/* A materialized view stored as Delta: the rows of sql (its query)
 * replace the table's in one Delta commit (docs/delta.md). */
int weir__sink_flow_overwrite(weir_flow_exec *x, const weir_gdataset *t,
                              const char *sql);

/* A staged batch that is not published now (it did not commit, or its
 * commit failed): what its format keeps of it is dropped; its staged data
 * stays for recovery or the next discard(). No-op without one. */
void weir__sink_flow_release(weir_flow_exec *x);

#endif
