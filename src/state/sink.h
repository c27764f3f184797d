/*
 * The state of flows into sinks (docs/sinks.md, "Exactly once"):
 * _weir.sink_batches, each batch a sink flow staged, logged as committed
 * in the transaction that commits its checkpoint and as published once
 * its format made it visible; and the state id of the catalog
 * (_weir.meta), which names a sink's files so that those of recreated
 * state never collide with earlier ones. The flow is cp->flow, the sink
 * its target's name (not the display name). Errors go to cp->err.
 */
#ifndef WEIR_STATE_SINK_H
#define WEIR_STATE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "state/state.h"

/* The random id of cp's state catalog, made with its _weir schema, into
 * out (size bytes); "" when there is none. */
int weir__state_id(const weir_checkpoint *cp, char *out, size_t size);

/* Log batch batch_id of generation gen, which wrote rows rows, as
 * committed (in the batch's transaction). */
int weir__sink_batch_add(const weir_checkpoint *cp, const char *sink,
                         int64_t gen, int64_t batch_id, int64_t rows);

/* Log it as published (in the caller's transaction). */
int weir__sink_batch_published(const weir_checkpoint *cp, const char *sink,
                               int64_t gen, int64_t batch_id);

/* The batches logged as committed but not published (a crash came in
 * between): rows of generation, batch_id in that order, into *out. */
int weir__sink_batches_unpublished(const weir_checkpoint *cp,
                                   const char *sink, weir_rows **out);

/* How many batches the log lists at or past batch next_batch of
 * generation gen (batches the checkpoints do not account for). */
int weir__sink_batches_unrecorded(const weir_checkpoint *cp, const char *sink,
                                  int64_t gen, int64_t next_batch,
                                  int64_t *out);

#endif
