/*
 * weir: Spark Declarative Pipelines, natively, on DuckDB.
 *
 * This is the whole public API of libweir. A program opens a session, creates
 * a pipeline (a dataflow graph bound to a storage folder), registers datasets,
 * flows and SQL files, and starts runs that report events through a callback.
 * The weir CLI is built on nothing but this header.
 *
 * Conventions
 * - Every fallible function returns 0 or a negative WEIR_E* code and takes a
 *   trailing `weir_error *err` (may be NULL) that receives the details.
 * - `T **out` parameters hand ownership to the caller, who releases the
 *   object with the matching `_free`/`_close`/`_drop` function. `const T *`
 *   results are borrowed from their parent handle and stay valid as the
 *   function documents. Destructors accept NULL.
 * - Handles are not thread-safe: use one handle from one thread at a time.
 *   Different pipelines are independent and may be used from different
 *   threads at once. Callbacks are invoked on the thread that called the
 *   function taking them, never concurrently.
 * - Nothing in the library prints or exits.
 */
#ifndef WEIR_H
#define WEIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define WEIR_API
#elif defined(__GNUC__)
#define WEIR_API __attribute__((visibility("default")))
#else
#define WEIR_API
#endif

#define WEIR_VERSION_MAJOR 0
#define WEIR_VERSION_MINOR 1
#define WEIR_VERSION_PATCH 0
#define WEIR_VERSION       "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for compile-time checks. */
#define WEIR_VERSION_NUMBER                                                   \
    (WEIR_VERSION_MAJOR * 10000 + WEIR_VERSION_MINOR * 100 + WEIR_VERSION_PATCH)

/** The library's version string, e.g. "0.1.0". Static storage. */
WEIR_API const char *weir_version(void);
/** The version of the embedded DuckDB, e.g. "v1.4.4". Static storage. */
WEIR_API const char *weir_duckdb_version(void);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

enum {
    WEIR_OK = 0,
    WEIR_ERROR = -1,     /* anything not listed below */
    WEIR_ENOMEM = -2,    /* out of memory */
    WEIR_EINVAL = -3,    /* bad argument or usage */
    WEIR_ESPEC = -4,     /* invalid pipeline spec */
    WEIR_ESQL = -5,      /* SQL that cannot be parsed or translated */
    WEIR_EGRAPH = -6,    /* invalid dataflow graph (see diagnostics) */
    WEIR_ENOTFOUND = -7, /* a file, dataset or table does not exist */
    WEIR_EEXISTS = -8,   /* something already exists */
    WEIR_EIO = -9,       /* operating-system I/O failure */
    WEIR_EBUSY = -10,    /* storage is in use by another update */
    WEIR_ECORRUPT = -11, /* stored state is damaged or inconsistent */
    WEIR_EENGINE = -12,  /* the SQL engine failed while executing */
    WEIR_ECANCELED = -13 /* cancelled by the caller */
};

/**
 * One error. Plain data: copy it freely. Strings are NUL-terminated and
 * truncated to fit. `path`/`line`/`column` locate the construct in the user's
 * spec or SQL file (line and column are 1-based, 0 when unknown) and
 * `line_text` holds that source line so it can be shown with a caret.
 */
typedef struct weir_error {
    int code;               /* 0 or a WEIR_E* code */
    char error_class[96];   /* Spark-style class, e.g. "CIRCULAR_DEPENDENCY" */
    char message[1536];     /* one line, without the class prefix */
    char path[512];         /* file concerned, "" if none */
    unsigned line, column;  /* 1-based position in path; 0 if unknown;
                               the column counts characters (UTF-8 code
                               points), not bytes */
    char line_text[256];    /* the source line at `line`, "" if unknown */
    const char *src_file;   /* C source file that raised it (debug aid) */
    int src_line;
} weir_error;

/** A static description of a WEIR_E* code, e.g. "invalid pipeline spec". */
WEIR_API const char *weir_strerror(int code);

/* ------------------------------------------------------------------------
 * Session
 * ------------------------------------------------------------------------ */

typedef struct weir_session weir_session;

/**
 * Informational messages of long operations (loading a spec: "Found 2 files
 * matching glob ...", "Registering SQL file ..."), for a front end to show.
 */
typedef void (*weir_log_fn)(const char *message, void *payload);

typedef struct weir_session_options {
    unsigned version;         /* WEIR_SESSION_OPTIONS_VERSION */
    unsigned threads;         /* DuckDB worker threads; 0 = all cores */
    const char *memory_limit; /* DuckDB memory limit, e.g. "1GB"; NULL = default */
    weir_log_fn on_log;       /* NULL = no messages */
    void *log_payload;
} weir_session_options;

#define WEIR_SESSION_OPTIONS_VERSION 1
#define WEIR_SESSION_OPTIONS_INIT                                             \
    { WEIR_SESSION_OPTIONS_VERSION, 0, NULL, NULL, NULL }

/**
 * Open a session: the defaults shared by the pipelines created from it.
 * opts may be NULL. The caller owns *out and closes it with
 * weir_session_close after every pipeline created from it is dropped.
 * Errors: WEIR_ENOMEM, WEIR_EINVAL.
 */
WEIR_API int weir_session_open(weir_session **out,
                               const weir_session_options *opts,
                               weir_error *err);
/** Close a session. NULL is a no-op. */
WEIR_API void weir_session_close(weir_session *session);

/* ------------------------------------------------------------------------
 * Pipelines: a dataflow graph bound to a storage folder
 * ------------------------------------------------------------------------ */

typedef struct weir_pipeline weir_pipeline;

/** A key/value pair (configuration, table properties, options). */
typedef struct weir_kv {
    const char *key;
    const char *value;
} weir_kv;

typedef struct weir_pipeline_options {
    unsigned version;            /* WEIR_PIPELINE_OPTIONS_VERSION */
    const char *name;            /* pipeline name; NULL = "pipeline" */
    const char *storage;         /* folder or file:// URI; required to run */
    const char *catalog;         /* default catalog; NULL = "spark_catalog" */
    const char *database;        /* default database; NULL = "default" */
    const weir_kv *configuration; /* Spark/weir confs for every flow */
    size_t n_configuration;
    const char *root_dir;        /* base for relative paths; NULL = cwd */
} weir_pipeline_options;

#define WEIR_PIPELINE_OPTIONS_VERSION 1
#define WEIR_PIPELINE_OPTIONS_INIT                                            \
    { WEIR_PIPELINE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL }

/**
 * Create an empty pipeline. The caller owns *out and releases it with
 * weir_pipeline_drop. The session must outlive the pipeline.
 * Errors: WEIR_ENOMEM, WEIR_EINVAL.
 */
WEIR_API int weir_pipeline_create(weir_pipeline **out, weir_session *session,
                                  const weir_pipeline_options *opts,
                                  weir_error *err);

/**
 * Create a pipeline from a spark-pipeline.yml spec: load and validate the
 * spec, then register every SQL file its libraries match. spec_path NULL
 * searches spark-pipeline.yml / .yaml from the current directory upward.
 * On WEIR_ESPEC or WEIR_ESQL, *out is still set when the spec itself loaded,
 * and weir_pipeline_diagnostics lists every problem found.
 * Errors: WEIR_ESPEC, WEIR_ESQL, WEIR_ENOTFOUND, WEIR_EIO, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_load(weir_pipeline **out, weir_session *session,
                                const char *spec_path, weir_error *err);

/**
 * Drop the pipeline: stop using its storage and free it and everything
 * borrowed from it. Stored tables are kept. NULL is a no-op.
 */
WEIR_API void weir_pipeline_drop(weir_pipeline *pipeline);

/** The pipeline's name. Borrowed; valid until the pipeline is dropped. */
WEIR_API const char *weir_pipeline_name(const weir_pipeline *pipeline);
/** The spec file the pipeline came from, or NULL. Borrowed. */
WEIR_API const char *weir_pipeline_spec_path(const weir_pipeline *pipeline);
/** The absolute storage folder, or NULL if none was given. Borrowed. */
WEIR_API const char *weir_pipeline_storage(const weir_pipeline *pipeline);

/**
 * Problems found by the last call that reported WEIR_ESPEC, WEIR_ESQL or
 * WEIR_EGRAPH: every independent error, in source order. The array is
 * borrowed and valid until the next call on the pipeline.
 */
WEIR_API size_t weir_pipeline_diagnostics(const weir_pipeline *pipeline,
                                          const weir_error **out);

/* --- Defining the graph -------------------------------------------------- */

typedef enum weir_dataset_kind {
    WEIR_STREAMING_TABLE = 1,
    WEIR_MATERIALIZED_VIEW = 2,
    WEIR_TEMPORARY_VIEW = 3,
    WEIR_PERSISTED_VIEW = 4,
    WEIR_SINK = 5
} weir_dataset_kind;

typedef enum weir_expectation_action {
    WEIR_EXPECT_WARN = 0,
    WEIR_EXPECT_DROP = 1,
    WEIR_EXPECT_FAIL = 2,
    WEIR_EXPECT_QUARANTINE = 3
} weir_expectation_action;

typedef struct weir_expectation {
    const char *name;
    const char *condition; /* Spark SQL boolean expression */
    weir_expectation_action action;
} weir_expectation;

/**
 * A dataset definition. Strings are copied; the struct may be reused after
 * the call. `query` is Spark SQL text (a SELECT); it may be NULL for a
 * streaming table that flows fill. `schema` is a Spark DDL column list such
 * as "id BIGINT NOT NULL, name STRING COMMENT 'who'".
 */
typedef struct weir_dataset_options {
    unsigned version; /* WEIR_DATASET_OPTIONS_VERSION */
    const char *name; /* 1 to 3 parts: [catalog.][database.]name */
    const char *query;
    const char *comment;
    const char *schema;
    const char *format; /* table format (USING); NULL = default */
    const weir_kv *properties;
    size_t n_properties;
    const char *const *partition_cols;
    size_t n_partition_cols;
    const char *const *cluster_cols;
    size_t n_cluster_cols;
    const weir_expectation *expectations;
    size_t n_expectations;
    const weir_kv *options; /* sink options (path, header, ...) */
    size_t n_options;
} weir_dataset_options;

#define WEIR_DATASET_OPTIONS_VERSION 1
#define WEIR_DATASET_OPTIONS_INIT                                             \
    { WEIR_DATASET_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, 0,    \
      NULL, 0, NULL, 0, NULL, 0, NULL, 0 }

/**
 * Register a dataset of the given kind with its implicit flow (when it has a
 * query). Names are qualified with the pipeline's default catalog and
 * database (temporary views and sinks keep one part).
 * Errors: WEIR_EINVAL (bad name or option), WEIR_ESQL (query or schema does
 * not parse; see diagnostics), WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_dataset(weir_pipeline *pipeline,
                                          weir_dataset_kind kind,
                                          const weir_dataset_options *opts,
                                          weir_error *err);

typedef struct weir_flow_options {
    unsigned version; /* WEIR_FLOW_OPTIONS_VERSION */
    const char *name;   /* single part */
    const char *target; /* dataset or sink the flow writes */
    const char *query;  /* Spark SQL SELECT */
    bool once;          /* a batch backfill that runs once per full refresh */
    const weir_kv *conf;
    size_t n_conf;
    const char *comment;
} weir_flow_options;

#define WEIR_FLOW_OPTIONS_VERSION 1
#define WEIR_FLOW_OPTIONS_INIT                                                \
    { WEIR_FLOW_OPTIONS_VERSION, NULL, NULL, NULL, false, NULL, 0, NULL }

/**
 * Register a standalone flow into an existing or later-defined target.
 * Errors: WEIR_EINVAL, WEIR_ESQL, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_flow(weir_pipeline *pipeline,
                                       const weir_flow_options *opts,
                                       weir_error *err);

/**
 * Register every statement of a pipeline SQL file. file_name (may be NULL)
 * is used in error locations and relative to the pipeline's root for
 * relative paths inside the SQL. USE and SET statements apply to the
 * following statements of the same text only. On WEIR_ESQL the valid
 * statements are still registered and the diagnostics list each bad one.
 * Errors: WEIR_ESQL, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_sql(weir_pipeline *pipeline,
                                      const char *sql_text,
                                      const char *file_name, weir_error *err);

/**
 * Write into buf (size bytes, NUL-terminated, truncated to fit) a relation
 * reference to dataset `name` usable in later query text of this pipeline,
 * e.g. "`spark_catalog`.`default`.`events`". Returns the length the full
 * text needs (excluding the NUL), or a negative WEIR_E* code.
 */
WEIR_API int weir_pipeline_read(const weir_pipeline *pipeline,
                                const char *name, bool streaming, char *buf,
                                size_t size);

/* --- Events -------------------------------------------------------------- */

typedef enum weir_level {
    WEIR_LEVEL_INFO = 0,
    WEIR_LEVEL_WARN = 1,
    WEIR_LEVEL_ERROR = 2,
    WEIR_LEVEL_METRICS = 3
} weir_level;

/**
 * One event of a run, as stored in the event log. Every string is borrowed
 * for the duration of the callback only; NULL when not applicable.
 * `details_json` is a JSON object keyed by event type (e.g.
 * {"flow_progress": {...}}); `error_json` is NULL or a JSON object with
 * "class" and "message".
 */
typedef struct weir_event {
    const char *id;
    const char *update_id;
    int64_t timestamp_us; /* microseconds since the Unix epoch, UTC */
    weir_level level;
    const char *event_type; /* flow_progress, update_progress, ... */
    const char *message;    /* Spark's message text */
    const char *flow_name;
    const char *dataset_name;
    const char *details_json;
    const char *error_json;
    const char *source_path; /* file that defines the flow/dataset */
    unsigned source_line;
} weir_event;

typedef void (*weir_event_fn)(const weir_event *event, void *payload);

/** A snapshot of a run in progress, reported about ten times a second. */
typedef struct weir_progress {
    unsigned flows_total;
    unsigned flows_done;
    unsigned flows_running;
    uint64_t rows_written;   /* so far, all flows */
    double elapsed_seconds;
    const char *running[8]; /* names of up to 8 running flows */
    unsigned n_running;
} weir_progress;

typedef void (*weir_progress_fn)(const weir_progress *progress, void *payload);

/* --- Runs ---------------------------------------------------------------- */

typedef enum weir_run_state {
    WEIR_RUN_COMPLETED = 1,
    WEIR_RUN_FAILED = 2,
    WEIR_RUN_CANCELED = 3
} weir_run_state;

typedef struct weir_run_options {
    unsigned version; /* WEIR_RUN_OPTIONS_VERSION */
    bool dry;              /* resolve and validate only; write nothing */
    bool full_refresh_all; /* reset and recompute every dataset */
    const char *const *refresh; /* datasets to refresh (others excluded) */
    size_t n_refresh;
    const char *const *full_refresh; /* datasets to reset and recompute */
    size_t n_full_refresh;
    const char *storage; /* overrides the pipeline's storage when not NULL */
    weir_event_fn on_event;
    void *event_payload;
    weir_progress_fn on_progress; /* NULL = no progress reports */
    void *progress_payload;
    /* When *cancel becomes nonzero the update stops: queued flows are
     * skipped, running ones are interrupted (their transactions roll back)
     * and the run ends CANCELED. May be set from a signal handler or
     * another thread. NULL = not cancellable. */
    const volatile int *cancel;
} weir_run_options;

#define WEIR_RUN_OPTIONS_VERSION 1
#define WEIR_RUN_OPTIONS_INIT                                                 \
    { WEIR_RUN_OPTIONS_VERSION, false, false, NULL, 0, NULL, 0, NULL, NULL,   \
      NULL, NULL, NULL, NULL }

typedef struct weir_run_result {
    weir_run_state state;
    char update_id[40];
    unsigned flows_completed, flows_failed, flows_skipped, flows_excluded,
        flows_idle;
    uint64_t rows_written;
} weir_run_result;

/**
 * Resolve and validate the graph, then (unless opts->dry) run an update:
 * materialize datasets in dependency order, process new data of streaming
 * flows exactly once, recompute materialized views, and record every event
 * in the event log under storage. Blocks until the update ends. Events and
 * progress are reported through the callbacks in opts on this thread.
 *
 * Returns 0 when the update ran, whether it COMPLETED or FAILED: see
 * out->state (out may be NULL). Returns WEIR_EGRAPH when the graph is
 * invalid (weir_pipeline_diagnostics lists every error), WEIR_EINVAL for
 * conflicting options, WEIR_EBUSY when another update holds the storage,
 * WEIR_ECORRUPT when stored state is damaged, WEIR_EIO, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_start_run(weir_pipeline *pipeline,
                                     const weir_run_options *opts,
                                     weir_run_result *out, weir_error *err);

/* --- Describing the resolved graph --------------------------------------- */

typedef struct weir_column_info {
    const char *name;
    const char *type; /* Spark type name, e.g. "bigint", "array<string>" */
    bool nullable;
    const char *comment; /* NULL if none */
} weir_column_info;

typedef struct weir_dataset_info {
    const char *name; /* qualified display name */
    weir_dataset_kind kind;
    const weir_column_info *columns; /* resolved schema; n_columns may be 0 */
    size_t n_columns;
    const char *comment;
    const char *format;
    const char *source_path;
    unsigned source_line;
    size_t n_expectations;
} weir_dataset_info;

typedef struct weir_flow_info {
    const char *name;   /* qualified display name */
    const char *target; /* qualified dataset or sink name */
    const char *const *inputs; /* datasets of this pipeline it reads */
    size_t n_inputs;
    const char *const *external_inputs; /* tables and files outside it */
    size_t n_external_inputs;
    bool streaming;
    bool once;
    bool implicit; /* the dataset's own flow */
    const char *source_path;
    unsigned source_line;
} weir_flow_info;

typedef struct weir_graph_info {
    const weir_dataset_info *datasets; /* in topological order */
    size_t n_datasets;
    const weir_flow_info *flows; /* in topological order */
    size_t n_flows;
} weir_graph_info;

/**
 * Describe the graph as of the last successful resolution (a dry run or a
 * run). Everything is borrowed from the pipeline and valid until the next
 * call that defines, resolves or runs. Errors: WEIR_EINVAL when the graph
 * has not been resolved yet.
 */
WEIR_API int weir_pipeline_describe(const weir_pipeline *pipeline,
                                    weir_graph_info *out, weir_error *err);

/* --- Queries ------------------------------------------------------------- */

typedef struct weir_result weir_result;

/**
 * Run Spark SQL (one or more statements) against the pipeline's catalog and
 * return the result of the last one. Reads and writes are allowed (users
 * create source tables this way). Refused with WEIR_EBUSY while an update of
 * another process holds the storage. The caller owns *out and frees it with
 * weir_result_free. Errors: WEIR_ESQL, WEIR_EENGINE, WEIR_EBUSY, WEIR_EIO.
 */
WEIR_API int weir_pipeline_query(weir_pipeline *pipeline, const char *sql,
                                 weir_result **out, weir_error *err);

/** Free a result. NULL is a no-op. */
WEIR_API void weir_result_free(weir_result *result);
WEIR_API size_t weir_result_column_count(const weir_result *result);
WEIR_API size_t weir_result_row_count(const weir_result *result);
/** Column name; borrowed until the result is freed. */
WEIR_API const char *weir_result_column_name(const weir_result *result,
                                             size_t col);
/** Column type as a Spark type name; borrowed until the result is freed. */
WEIR_API const char *weir_result_column_type(const weir_result *result,
                                             size_t col);
/** True when the column holds numbers or booleans (printed unquoted). */
WEIR_API bool weir_result_column_is_numeric(const weir_result *result,
                                            size_t col);
/**
 * A value as text (Spark's string form), or NULL for SQL NULL. Borrowed
 * until the result is freed.
 */
WEIR_API const char *weir_result_value(const weir_result *result, size_t col,
                                       size_t row);

/* Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html) */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE           2
#define ARROW_FLAG_MAP_KEYS_SORTED    4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif

/**
 * Export a result as Arrow C Data Interface structures: *schema describes a
 * struct whose children are the columns, and each call to
 * weir_result_arrow_next fills *array with the next batch of rows (a struct
 * array). The caller owns what is exported and calls its release callback.
 * weir_result_arrow_next returns 0 with array->release == NULL after the
 * last batch. Errors: WEIR_EENGINE, WEIR_ENOMEM.
 */
WEIR_API int weir_result_arrow_schema(weir_result *result,
                                      struct ArrowSchema *schema,
                                      weir_error *err);
WEIR_API int weir_result_arrow_next(weir_result *result,
                                    struct ArrowArray *array,
                                    weir_error *err);

#ifdef __cplusplus
}
#endif

#endif /* WEIR_H */
