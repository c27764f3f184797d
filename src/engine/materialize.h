/*
 * Materializing tables and publishing persisted views before an update's
 * flows run (see materialize.c).
 */
#ifndef WEIR_ENGINE_MATERIALIZE_H
#define WEIR_ENGINE_MATERIALIZE_H

#include <stdbool.h>

#include "graph/graph.h"
#include "store/storage.h"

/*
 * For every dataset: reset[i] starts a full refresh (new checkpoint
 * generation for its flows; tables recreated empty with a new epoch);
 * otherwise selected[i] creates the table if missing or evolves it.
 * created (one per dataset, false from the caller; may be NULL) is set for
 * each table this call created empty with the dataset's resolved schema
 * and its comments, and committed. errs (one per dataset, zeroed by the
 * caller) receives each dataset's own failure. Returns 0, or an error for
 * failures that concern no single dataset.
 */
int weir__materialize(weir_storage *st, const weir_graph *g,
                      const bool *selected, const bool *reset,
                      const char *update_id, bool *created, weir_error *errs,
                      weir_error *err);

/* CREATE OR REPLACE VIEW for a persisted view (with the macros it needs).
 * A table of the view's name, left by the dataset's earlier kind, is
 * dropped when it was a materialized view, or a streaming table and reset
 * (the view is fully refreshed); otherwise DATASET_KIND_CHANGED. */
int weir__view_publish(weir_storage *st, const weir_graph *g,
                       const weir_gdataset *d, const char *root_dir,
                       bool reset, const char *update_id, weir_error *err);

#endif
