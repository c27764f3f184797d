/*
 * A flow's _weir.flow_state row (sources/checkpoint.h): recorded in each
 * batch's transaction, and checked before the flow plans a batch against
 * what its checkpoints, the file manifest and its target say, so that a
 * flow whose state lost rows stops instead of reading its sources again
 * (docs/storage.md). See flow_state.c.
 */
#ifndef WEIR_ENGINE_FLOW_STATE_H
#define WEIR_ENGINE_FLOW_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/exec.h"

/* Read flow x's flow_state row into fs and check it against x's
 * checkpoints into t, at generation gen with next_batch batches committed:
 * they hold every batch the row counts; without a row, t (a sink's batch
 * log, a streaming table's rows) holds nothing the checkpoints do not
 * account for; with manifest, the file manifest holds every file the row
 * counts. Returns 0 or the code in x->err (CHECKPOINT_MISSING,
 * FILE_MANIFEST_MISSING, IMPORT_CHECKPOINT_TARGET). */
int weir__flow_state_check(weir_flow_exec *x, const weir_gdataset *t,
                           int64_t gen, int64_t next_batch, bool manifest,
                           weir_flow_state *fs);

/* Record that flow x committed batches batches in generation gen, with
 * new_files more files, in the batch's transaction. 0 or the code in
 * x->err. */
int weir__flow_state_put(weir_flow_exec *x, const weir_gdataset *t,
                         int64_t gen, int64_t batches, int64_t new_files);

#endif
