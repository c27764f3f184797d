/*
 * Private state behind the public handles of weir.h (session, pipeline),
 * shared by the files of src/api: pipeline.c (sessions, pipelines, specs,
 * SQL text, runs), define.c (definitions made through C calls), query.c
 * (queries, results, Arrow streams), query_guard.c (what a query may
 * change), describe.c (the resolved graph) and spark.c (its portability
 * to Apache Spark).
 */
#ifndef WEIR_API_INTERNAL_H
#define WEIR_API_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "graph/graph.h"
#include "spec/spec.h"
#include "sql/sql.h"
#include "store/storage.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/vec.h"
#include "weir.h"

/* See weir__guard_print. */
typedef struct weir_guard_print {
    char *sql;    /* the query that prints */
    char *text;   /* its last answer */
    bool current; /* text is still weir's state: the last writing
                     statement ended (committed unchanged or rolled back)
                     and nothing else wrote since (query.c) */
} weir_guard_print;

/* A definition made through a C call, as recorded by replay.c. */
typedef struct weir_def_record weir_def_record;

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
    bool storage_only; /* loaded without its definition files (queries) */
    bool keep_storage_open; /* runs share the queries' storage and leave
                               it open (weir_load_options) */
    const char **python_files; /* of the spec, relative to its folder, in
                                  registration order (arena) */
    size_t n_python_files;
    const char **sql_files; /* likewise, the SQL files (arena) */
    size_t n_sql_files;
    weir_arena arena; /* definitions: SQL texts, parsed statements, names */
    weir_defs defs;
    weir__diags diags;
    bool spec_expectations_applied;
    weir_graph *graph; /* last built graph */
    bool resolved;     /* graph schemas resolved since the last definition */
    weir_arena info_arena;
    weir_graph_info info;
    bool described;
    weir_arena spark_arena; /* weir_pipeline_check_spark's last report */
    weir__findings spark;
    weir_storage *qstore; /* storage held open by queries */
    weir_guard_print qprint; /* weir's state before a writing statement */
    unsigned open_results; /* results and Arrow streams not yet freed */
    bool (*query_cancelled)(void *); /* weir_pipeline_set_query_cancel */
    void *query_cancel_payload;
    struct weir_watch *qwatch; /* the running query's (query_cancel.c) */
    WEIR_VEC(weir_def_record *) records; /* C-call definitions (replay.c;
                                            the records live in arena) */
    char *query_zone; /* spark.sql.session.timeZone as a query SET it, or
                         NULL (then the configuration's) */
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
/* replay.c: record a definition call that succeeded (0 or WEIR_ENOMEM). */
int weir__record_dataset(weir_pipeline *p, weir_dataset_kind kind,
                         const weir_dataset_options *o);
int weir__record_flow(weir_pipeline *p, const weir_flow_options *o);
int weir__record_sql(weir_pipeline *p, const char *sql, const char *file_name);
/* Release the storage held by queries. */
void weir__query_close(weir_pipeline *p);
/* keep_storage_open: the storage for a run of the pipeline's own storage,
 * the one queries hold (opened when they do not), switched to RUN mode;
 * *out is borrowed. weir__query_after_run switches it back for queries
 * (closing it when that fails). */
int weir__query_storage_for_run(weir_pipeline *p, weir_storage **out,
                                weir_error *err);
void weir__query_after_run(weir_pipeline *p);

/* query_cancel.c: a query's watch (store/watch.h) for its cancel
 * callback, from start to end (when the pipeline has a callback).
 * watch_conn names the connection to interrupt (NULL: none any more);
 * weir__query_cancelled says whether the query must stop now; watch_end
 * joins the watcher and turns a failure of a stopped query into
 * WEIR_ECANCELED (weir__query_cancel_error's), returning rc otherwise. */
int weir__query_watch_start(weir_pipeline *p, weir_error *err);
void weir__query_watch_conn(weir_pipeline *p, weir_conn *conn);
bool weir__query_cancelled(const weir_pipeline *p);
int weir__query_cancel_error(weir_error *err);
int weir__query_watch_end(weir_pipeline *p, int rc, weir_error *err);

/* query_guard.c. Refuse (WEIR_ESQL with location left to the caller) a
 * statement's target when any reading DuckDB can give the name lands in
 * weir's own state (PIPELINE_STATE_READ_ONLY) or, for any change but
 * creating a new object, on a dataset the pipeline manages
 * (PIPELINE_DATASET_READ_ONLY). Queries st's connection. */
int weir__guard_target(weir_storage *st, weir_sql_action action,
                       const weir_sql_name *name, weir_error *err);
/* A print of weir's state in the catalogs (the _weir schemas: objects and
 * contents). weir__guard_print builds the query that prints (the tables
 * of the _weir schemas, which queries cannot change, are listed once) and
 * runs it; weir__guard_reprint runs it again into p->text. A writing
 * statement reprints before it runs, in its transaction, and
 * weir__guard_unchanged is false when the state then differs (or cannot
 * be printed the same way). Zero-initialise; free with _free. */
int weir__guard_print(weir_storage *st, weir_guard_print *out, weir_error *err);
int weir__guard_reprint(weir_storage *st, weir_guard_print *p, weir_error *err);
bool weir__guard_unchanged(weir_storage *st, const weir_guard_print *before);
void weir__guard_print_free(weir_guard_print *p);

#endif
