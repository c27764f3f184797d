/*
 * Refresh selection of an update, as Spark's TableFilter: which datasets
 * are refreshed, which are fully refreshed (reset), and which flows run
 * (the others are EXCLUDED).
 */
#ifndef WEIR_ENGINE_SELECT_H
#define WEIR_ENGINE_SELECT_H

#include <stdbool.h>

#include "graph/graph.h"
#include "weir.h"

typedef struct weir_selection {
    bool *dataset_selected; /* per dataset: materialize and run its flows */
    bool *reset;            /* per dataset: full refresh */
    bool *flow_selected;    /* per flow */
    char **warnings;        /* messages for WARN events */
    size_t n_warnings;
    bool not_resettable;    /* an explicit full refresh of a protected table */
    weir_error not_resettable_err;
} weir_selection;

/* Options that conflict regardless of the graph. WEIR_EINVAL with
 * CONFLICTING_PIPELINE_REFRESH_OPTIONS. */
int weir__selection_check(const weir_run_options *run, weir_error *err);

/* Build the selection (with run->refresh_upstream, the upstream of the
 * datasets named too). WEIR_EINVAL when refresh and full refresh overlap. */
int weir__selection_build(weir_selection *out, const weir_graph *g,
                          const weir_run_options *run, weir_error *err);
void weir__selection_free(weir_selection *s);

#endif
