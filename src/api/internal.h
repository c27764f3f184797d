/*
 * Private state behind the public handles of weir.h (session, pipeline),
 * shared by the files of src/api: pipeline.c (sessions, pipelines, specs,
 * SQL text, runs), define.c (definitions made through C calls), query.c
 * (queries, results, Arrow streams) and describe.c (the resolved graph).
 */
#ifndef WEIR_API_INTERNAL_H
#define WEIR_API_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "graph/graph.h"
#include "spec/spec.h"
#include "store/storage.h"
#include "util/arena.h"
#include "util/error.h"
#include "weir.h"

/* Immutable once open, except the count of live pipelines (atomic: they
 * may be created and dropped on different threads). */
struct weir_session {
    unsigned threads;
    char *memory_limit;
    weir_log_fn on_log;
    void *log_payload;
    atomic_uint n_pipelines;
};

struct weir_pipeline {
    weir_session *session;
    char *name, *storage, *catalog, *database, *root_dir, *spec_path;
    weir_spec *spec;
    const char **python_files; /* of the spec, relative to its folder, in
                                  registration order (arena) */
    size_t n_python_files;
    weir_arena arena; /* definitions: SQL texts, parsed statements, names */
    weir_defs defs;
    weir__diags diags;
    bool spec_expectations_applied;
    weir_graph *graph; /* last built graph */
    bool resolved;     /* graph schemas resolved since the last definition */
    weir_arena info_arena;
    weir_graph_info info;
    bool described;
    weir_storage *qstore; /* storage held open by queries */
    unsigned open_results; /* results and Arrow streams not yet freed */
};

void weir__session_log(const weir_session *s, const char *fmt, ...)
    WEIR_PRINTF(2, 3);
/* Start of a call that reports through diagnostics: clears them. */
void weir__begin_call(weir_pipeline *p);
/* A definition was added: the last resolution no longer describes it. */
void weir__defined(weir_pipeline *p);
/* Parse a dataset or flow name as written (1 to 3 parts, backticks
 * allowed) into the definition arena. Errors: WEIR_EINVAL, WEIR_ENOMEM. */
int weir__parse_name(weir_pipeline *p, const char *text, weir_sql_name *out,
                     weir_error *err);
/* Copy the first diagnostic into err with the given code; returns code. */
int weir__first_diag(weir_pipeline *p, weir_error *err, int code);
/* Release the storage held by queries. */
void weir__query_close(weir_pipeline *p);

#endif
