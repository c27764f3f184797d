/*
 * Inside registration mode (pipeline.c): the definitions that wait for
 * their other half, the registration state, and the helpers the
 * PipelineCommand handlers share. DefineFlow is pipeline_flow.c; the rest
 * of the commands, the state and registration into the pipeline are
 * pipeline.c. Not for use outside src/connect/pipeline*.c.
 */
#ifndef WEIR_CONNECT_PIPELINE_INTERNAL_H
#define WEIR_CONNECT_PIPELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "connect/internal.h"
#include "util/vec.h"

/* Most definitions one client can make the server keep. */
#define MAX_DEFINITIONS 100000

typedef WEIR_VEC(weir_kv) kv_list;
typedef WEIR_VEC(const char *) str_list;

typedef struct output {
    char *name;
    weir_dataset_kind kind;
    char *comment, *schema, *format;
    kv_list properties, options;
    str_list partition_cols, cluster_cols;
    char *file;
    unsigned line;
    bool registered;
    weir_expectation *exps; /* from the shim, on its flows (shim.c) */
    size_t n_exps;
} output;

/* A dataset's own flow that arrived before its output. */
typedef struct implicit_flow {
    char *target;
    char *query;
    kv_list conf;
    char *file;
    unsigned line;
    weir_expectation *exps; /* from the shim (shim.c) */
    size_t n_exps;
} implicit_flow;

struct weir__creg {
    weir_pipeline *pipeline;
    char graph_id[37];
    bool has_graph;
    kv_list graph_conf; /* CreateDataflowGraph.sql_conf, for every flow */
    WEIR_VEC(output *) outputs;
    WEIR_VEC(implicit_flow *) waiting;
    size_t n_definitions;
    weir__diags diags;
};

/* ---- copies (pipeline.c) ---- */
/* strdup, NULL for NULL. */
char *weir__creg_dup(const char *s);
void weir__creg_kv_free(kv_list *l);
/* Set key to value (copies), replacing an earlier value; -1 on OOM or past
 * MAX_KV pairs. */
int weir__creg_kv_put(kv_list *l, const char *key, const char *value);
void weir__creg_implicit_free(implicit_flow *f);

/* ---- errors (pipeline.c) ---- */
/* RESOURCE_EXHAUSTED; returns -1. */
int weir__creg_oom(weir__cstatus *st);
/* A Python file named as SQL files are: relative to the spec's folder
 * when it is below it (pyspark sends absolute paths). */
const char *weir__creg_display_path(const weir__creg *reg, const char *file);
/* A problem in the user's definitions: recorded as a diagnostic at
 * file:line (file may be NULL) and answered to the client; returns -1. */
int weir__creg_diag(weir__creg *reg, weir__cstatus *st, int code,
                    const char *error_class, const char *sql_state,
                    const char *file, unsigned line, const char *fmt, ...)
    WEIR_PRINTF(8, 9);
/* A weir_error from the public API, relocated to the Python definition. */
int weir__creg_diag_weir(weir__creg *reg, weir__cstatus *st, const weir_error *we,
                         const char *what, const char *file, unsigned line);

/* ---- names (pipeline.c) ---- */
/* Parts of a name, counting dots outside backticks. */
size_t weir__creg_name_parts(const char *s);
output *weir__creg_find_output(weir__creg *reg, const char *name);
/* Index of the implicit flow waiting for target, or (size_t)-1. */
size_t weir__creg_find_waiting(weir__creg *reg, const char *target);

/* ---- registration into the pipeline (pipeline.c) ---- */
/* Flow confs: the graph's, then the flow's own (which win). */
int weir__creg_merged_conf(weir__creg *reg, const kv_list *own, kv_list *out);
/* Register an output as a dataset, with its implicit flow when given. */
int weir__creg_register_output(weir__creg *reg, output *o, const implicit_flow *f,
                               weir__cstatus *st);

/* ---- commands ---- */
/* An optional proto3 string: s when set, else NULL. */
static inline const char *weir__creg_opt(int is_set, const char *s)
{
    return is_set ? s : NULL;
}
/* A definition's Python file and line (NULL and 0 when unknown). */
void weir__creg_location(const Spark__Connect__SourceCodeLocation *loc,
                         const char **file, unsigned *line);
/* Is id the registered graph's? Else DATAFLOW_GRAPH_NOT_FOUND (-1). */
int weir__creg_check_graph(weir__creg *reg, int is_set, const char *id,
                           weir__cstatus *st);
/* DefineFlow (pipeline_flow.c). */
int weir__creg_define_flow(weir__creg *reg,
                           const Spark__Connect__PipelineCommand__DefineFlow *d,
                           weir__cstatus *st);

#endif
