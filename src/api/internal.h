/*
 * Private state behind the public handles of weir.h, shared by the files
 * of src/api.
 */
#ifndef WEIR_API_INTERNAL_H
#define WEIR_API_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>

#include "graph/graph.h"
#include "spec/spec.h"
#include "store/storage.h"
#include "util/arena.h"
#include "util/error.h"
#include "weir.h"

struct weir_session {
    unsigned threads;
    char *memory_limit;
    weir_log_fn on_log;
    void *log_payload;
};

struct weir_pipeline {
    weir_session *session;
    char *name, *storage, *catalog, *database, *root_dir, *spec_path;
    weir_spec *spec;
    weir_arena arena; /* definitions: SQL texts, parsed statements, names */
    weir_defs defs;
    weir__diags diags;
    bool defined;
    bool spec_expectations_applied;
    weir_graph *graph; /* last built graph */
    bool resolved;     /* graph schemas resolved by the last run */
    weir_arena info_arena;
    weir_graph_info info;
    bool described;
    weir_storage *qstore; /* storage held open by queries */
    unsigned open_results;
};

void weir__session_log(const weir_session *s, const char *fmt, ...)
    WEIR_PRINTF(2, 3);
/* Copy the first diagnostic into err with the given code; returns code. */
int weir__first_diag(weir_pipeline *p, weir_error *err, int code);
/* Release the storage held by queries. */
void weir__query_close(weir_pipeline *p);

#endif
