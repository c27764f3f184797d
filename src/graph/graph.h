/*
 * The dataflow graph: what a pipeline defines (datasets and flows, from SQL
 * files or the C API) and the validated graph built from those definitions
 * (qualified identifiers, implicit flows, each flow's inputs, streaming or
 * batch, topological order, and Spark's registration and validation errors).
 * Nothing here touches DuckDB: resolving schemas happens in src/engine.
 */
#ifndef WEIR_GRAPH_H
#define WEIR_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/kv.h"
#include "util/map.h"
#include "weir.h"

/* ------------------------------------------------------------------------
 * Definitions (as registered, before validation)
 * ------------------------------------------------------------------------ */

typedef struct weir_origin {
    const weir_sql_source *src; /* NULL for API definitions without text */
    weir_sql_pos pos;
    bool sql; /* registered from a SQL statement (weir__defs_add_sql), not
                 through C calls or from Python */
} weir_origin;

/* Where an expectation was declared (the portable spelling differs). */
typedef enum weir_expectation_from {
    WEIR_EXPECT_FROM_API = 0, /* C API or Python (dp.expect*, weir's shim) */
    WEIR_EXPECT_FROM_SQL,     /* CONSTRAINT ... EXPECT */
    WEIR_EXPECT_FROM_SPEC,    /* the spec's `expectations` field */
    WEIR_EXPECT_FROM_PROPERTY /* table property pipelines.expect*.<name> */
} weir_expectation_from;

typedef struct weir_def_expectation {
    const char *name;
    const weir_sql_expr *condition;
    const char *condition_text;
    weir_sql_violation action;
    weir_expectation_from from;
    weir_origin origin;
} weir_def_expectation;

typedef struct weir_def_dataset {
    weir_dataset_kind kind;
    weir_sql_name name;      /* as written */
    const char *ctx_catalog; /* current catalog/database at definition */
    const char *ctx_database;
    const weir_sql_column *columns; /* user schema; n_columns 0 = none */
    size_t n_columns;
    const weir_sql_source *columns_src; /* the text columns[].pos point
                                           into; NULL = origin.src */
    weir_def_expectation *expectations;
    size_t n_expectations;
    const char *format;
    const char *comment;
    const char **partition_cols;
    size_t n_partition_cols;
    const char **cluster_cols;
    size_t n_cluster_cols;
    const weir_kv *properties;
    size_t n_properties;
    const weir_kv *options; /* sinks */
    size_t n_options;
    const weir_sql_query *query; /* implicit flow's query; NULL = none */
    const weir_sql_cdc *cdc;     /* the implicit flow is AUTO CDC (query is
                                    its source); NULL = an append flow */
    const weir_kv *conf;     /* confs in effect for the implicit flow */
    size_t n_conf;
    bool is_private;
    /* SQL written with a Databricks spelling of CREATE (see weir_sql_stmt),
     * and Spark's; NULL otherwise. */
    const char *create_written, *create_spark;
    weir_origin origin;
} weir_def_dataset;

typedef struct weir_def_flow {
    weir_sql_name name;
    weir_sql_name target;
    const char *ctx_catalog;
    const char *ctx_database;
    const weir_sql_query *query;
    bool once;
    const weir_sql_cdc *cdc; /* an AUTO CDC flow: query is SELECT * FROM its
                                source; NULL = an append flow */
    const weir_kv *conf;
    size_t n_conf;
    const char *comment;
    const char *import_checkpoint; /* a Spark checkpoint folder to import
                                      on the flow's first update, or NULL */
    const char *create_written, *create_spark; /* as for datasets */
    weir_origin origin;
} weir_def_flow;

/* Everything a pipeline has registered. Owns nothing: strings and trees
 * live in the pipeline's definition arena. */
typedef struct weir_defs {
    weir_def_dataset *datasets;
    size_t n_datasets, cap_datasets;
    weir_def_flow *flows;
    size_t n_flows, cap_flows;
    const char *default_catalog;  /* "spark_catalog" unless set */
    const char *default_database; /* "default" unless set */
    const weir_kv *conf;      /* pipeline configuration */
    size_t n_conf;
} weir_defs;

int weir__defs_add_dataset(weir_defs *defs, const weir_def_dataset *d);
int weir__defs_add_flow(weir_defs *defs, const weir_def_flow *f);
void weir__defs_free(weir_defs *defs); /* frees the arrays only */

/*
 * Register every statement of a parsed SQL file: datasets with their
 * implicit flows, standalone flows, and the file-scoped effects of SET and
 * USE. Strings are copied into arena. Problems are appended to diags: a
 * SET of a key weir reads to a value it cannot use (spec/settings.c) is an
 * error at the statement (WEIR_ESQL once the file is registered).
 */
int weir__defs_add_sql(weir_defs *defs, weir_arena *arena,
                       const weir_sql_stmt *stmts, size_t n_stmts,
                       weir__diags *diags);

/* ------------------------------------------------------------------------
 * The validated graph
 * ------------------------------------------------------------------------ */

/* What kind of source an input is: a table (pipeline dataset or external
 * table) or a table-valued function the source kinds of sources/ read. */
typedef enum weir_input_source {
    WEIR_INPUT_TABLE = 0,
    WEIR_INPUT_FILES,  /* read_files(...) / cloud_files(...) */
    WEIR_INPUT_RANGE,  /* STREAM range(...): a finite streaming source */
    WEIR_INPUT_KAFKA,  /* read_kafka(...): Kafka topics (docs/kafka.md) */
    WEIR_INPUT_JDBC,   /* read_jdbc(...): a database (docs/databases.md) */
    WEIR_INPUT_DELTA,  /* STREAM of a Delta dataset or of delta.`path`:
                          its log, version by version (docs/delta.md) */
} weir_input_source;

/* One thing a flow reads. */
typedef struct weir_input {
    int dataset;           /* index into graph datasets, or -1: external */
    const char *external;  /* qualified display name of an external table,
                              or the path of a file source */
    bool streaming;
    weir_input_source source;
    const weir_sql_relref *ref; /* tables */
    const weir_sql_tvf *tvf;    /* the call of a table-valued source */
} weir_input;

typedef struct weir_column {
    const char *name;
    const char *duck_type;  /* DuckDB type text */
    const char *spark_type; /* Spark type name */
    bool nullable;
    const char *comment;
} weir_column;

typedef struct weir_schema {
    weir_column *cols;
    size_t n;
} weir_schema;

typedef struct weir_gdataset {
    weir_dataset_kind kind;
    const char *catalog, *database, *name; /* catalog/database NULL for
                                              temporary views and sinks */
    const char *display;                   /* e.g. spark_catalog.default.t */
    const weir_def_dataset *def;
    int *flows; /* flows writing this dataset */
    size_t n_flows;
    bool reset_allowed;      /* pipelines.reset.allowed (default true) */
    bool skip_change_commits; /* pipelines.skipChangeCommits: its streaming
                                 reads of tables go on past changed rows */
    bool streaming_view;     /* views: its flow is streaming */
    const char *format;      /* sinks: their format; tables: USING or
                                format=, else their table property
                                `provider`, else spark.sql.sources.default
                                as configured for the definition, then
                                the pipeline; NULL = none (DuckDB) */
    const char *location;    /* Delta datasets: their folder, from the
                                table property location (absolute; a
                                file: URI's path), or NULL: under the
                                storage (docs/delta.md) */
    weir_schema schema;      /* resolved (engine fills) */
    bool resolved;
    /* Its expectations: the definition's (SQL CONSTRAINT, C API, spec)
     * and those declared as table properties pipelines.expect*.<name>. */
    const weir_def_expectation *expectations;
    size_t n_expectations;
    int order;               /* position in topological order */
} weir_gdataset;

typedef struct weir_gflow {
    const char *catalog, *database, *name;
    const char *display;
    bool implicit;
    int target; /* dataset index */
    const weir_sql_query *query;
    const weir_def_flow *def; /* NULL for implicit flows */
    const weir_def_dataset *dataset_def; /* implicit flows */
    const char *ctx_catalog, *ctx_database;
    bool once;
    /* The flow's kind besides once: an AUTO CDC flow applies the changes
     * its query (SELECT * FROM source) yields to its target by key and
     * sequence (engine/cdc.c); NULL = it appends its query's rows. */
    const weir_sql_cdc *cdc;
    bool streaming; /* reads at least one stream (directly) */
    weir_input *inputs;
    size_t n_inputs;
    const weir_kv *conf; /* pipeline conf overlaid with the flow's */
    size_t n_conf;
    weir_origin origin;
    weir_sql_reads reads;
    weir_schema schema; /* resolved output schema (engine fills) */
    bool failed;        /* resolution failed (engine) */
} weir_gflow;

typedef struct weir_graph {
    weir_arena arena;
    weir_gdataset *datasets;
    size_t n_datasets;
    weir_gflow *flows;
    size_t n_flows;
    int *flow_order;    /* flows in topological order */
    int *dataset_order; /* datasets in topological order */
    weir_map dataset_by_name; /* display name -> index + 1 (nocase) */
    weir_map flow_by_name;
    const char *default_catalog, *default_database;
    const weir_kv *conf; /* the pipeline configuration (borrowed from
                            the definitions) */
    size_t n_conf;
} weir_graph;

/*
 * Build and validate the graph from definitions: qualify names, create
 * implicit flows, resolve every flow's reads to datasets or external
 * inputs, order topologically and run Spark's registration checks and
 * validations that need no schemas. Every problem goes to diags; returns 0
 * or WEIR_EGRAPH (the graph is still returned when usable for reporting).
 */
int weir__graph_build(weir_graph **out, const weir_defs *defs,
                      weir__diags *diags, weir_error *err);
void weir__graph_free(weir_graph *g);

/* Index of the dataset with this display name, or -1. */
int weir__graph_find_dataset(const weir_graph *g, const char *display);

/*
 * Qualify a dataset name as written (1 to 3 parts) with the given context:
 * returns the display name in arena ("cat.db.name"). Temporary views (one
 * part, defined) are returned unqualified.
 */
const char *weir__graph_qualify(weir_arena *arena, const weir_sql_name *name,
                                const char *catalog, const char *database);

/* The value of a conf key for a flow (flow confs, then the pipeline's), or
 * dflt. */
const char *weir__flow_conf(const weir_gflow *f, const char *key,
                            const char *dflt);
const char *weir__dataset_property(const weir_gdataset *d, const char *key);
/* Spark's session time zone (spark.sql.session.timeZone) a flow's SQL is
 * analysed and run in (its confs, then the pipeline's), NULL when unset:
 * UTC. A dataset's expectations run in its first flow's, else the
 * pipeline's. */
const char *weir__flow_time_zone(const weir_gflow *f);
const char *weir__dataset_time_zone(const weir_graph *g,
                                    const weir_gdataset *d);

/* The streaming operators of flow f's query, the views it reads with
 * STREAM looked into (weir__sql_stream_ops; docs/streaming.md), in arena.
 * 0 or WEIR_ENOMEM. */
int weir__graph_stream_ops(const weir_graph *g, const weir_gflow *f,
                           weir_arena *arena, weir_sql_sop **out,
                           size_t *n_out);
/* The stateful operators weir keeps the state of among ops, innermost
 * first, into out (up to cap): their number, 0 when they form no chain
 * weir runs (the one rule for validation and execution). */
size_t weir__graph_state_chain(const weir_sql_sop *ops, size_t n,
                               const weir_sql_state_plan **out, size_t cap);

/* Does the graph read Kafka (read_kafka) or write it (a Kafka sink)? */
bool weir__graph_uses_kafka(const weir_graph *g);

/* Spark's name for a dataset kind: "streaming table", "materialized
 * view", ...; and its output type in errors: TABLE, VIEW, SINK. */
const char *weir__kind_name(weir_dataset_kind kind);
const char *weir__kind_output_type(weir_dataset_kind kind);

/* Whether dataset d is stored as a Delta Lake table (a streaming table
 * or materialized view declared `USING delta` or with format="delta";
 * docs/delta.md) rather than a DuckDB table. */
bool weir__dataset_delta(const weir_gdataset *d);
/* The name the batches of flows into d are logged under in
 * _weir.sink_batches (state/sink.h): a sink's name, or the display name
 * of a dataset stored as Delta (written through the delta sink format). */
const char *weir__dataset_batch_key(const weir_gdataset *d);

/*
 * Append to out what open-source Apache Spark 4.1 rejects or runs
 * differently in the graph's definitions and in the SQL of their queries
 * (docs/spark.md): Databricks spellings, expectations, once flows,
 * imported checkpoints, SQL sinks, weir's table-valued sources and
 * functions, direct Delta reads. Expectations from the spec are the
 * spec's (weir__spec_spark_findings). Strings live in arena. 0 or
 * WEIR_ENOMEM.
 */
int weir__graph_spark_findings(weir__findings *out, weir_arena *arena,
                               const weir_graph *g);

/* Report an error at a definition's origin (path, line, col, text). */
void weir__origin_error_at(weir_error *err, const weir_origin *o);

#endif
