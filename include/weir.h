/*
 * weir: Spark Declarative Pipelines, natively, on DuckDB.
 *
 * This is the whole public API of libweir, the C counterpart of Spark's
 * `Pipeline` API. A program opens a session, creates a pipeline (a dataflow
 * graph bound to a default catalog, database and storage folder), registers
 * datasets, flows and SQL files, starts runs that report events through a
 * callback, queries what the runs wrote (as text or as Arrow arrays), and
 * drops the pipeline. The weir CLI is built on nothing but this header.
 * docs/api.md is the reference; examples/ holds programs that use it.
 *
 * Conventions
 * - Errors: every fallible function returns 0 or a negative WEIR_E* code and
 *   takes a trailing `weir_error *err` (may be NULL) that receives the code,
 *   the Spark error class, a one-line message and the source location.
 * - Ownership: `T **out` hands a new object to the caller, who releases it
 *   with the matching `_free`/`_close`/`_drop` function. `const char **out`
 *   and `const T *` results are borrowed from their parent handle and stay
 *   valid for as long as each declaration says. Input strings and arrays are
 *   copied before the call returns unless stated otherwise. Destructors
 *   accept NULL.
 * - Threads: the library has no global mutable state. A pipeline, and the
 *   results and streams made from it, must be used by one thread at a time
 *   ("pipeline-serial"); different pipelines are independent and may run on
 *   different threads at once, each on its own storage. Callbacks run on the
 *   thread that called the function taking them, never concurrently with
 *   each other for one call. Each declaration states its rule.
 * - Options structs start with a `version` field: initialise them with the
 *   matching WEIR_*_INIT macro, then set fields by name.
 * - Nothing in the library prints, exits or installs signal handlers.
 *
 * The header compiles as C99 and later, and as C++.
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

/* ------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------ */

#define WEIR_VERSION_MAJOR 0
#define WEIR_VERSION_MINOR 1
#define WEIR_VERSION_PATCH 0
#define WEIR_VERSION       "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for compile-time checks. */
#define WEIR_VERSION_NUMBER                                                   \
    (WEIR_VERSION_MAJOR * 10000 + WEIR_VERSION_MINOR * 100 + WEIR_VERSION_PATCH)

/**
 * The version of the linked library, e.g. "0.1.0" (compare with
 * WEIR_VERSION, the version of this header).
 * Ownership: static storage. Thread-safety: thread-safe.
 */
WEIR_API const char *weir_version(void);

/**
 * The version of the DuckDB library weir runs on, e.g. "v1.4.4".
 * Ownership: static storage. Thread-safety: thread-safe.
 */
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
 * One error. Plain data: copy it freely; it owns no memory. Strings are
 * NUL-terminated and truncated to fit. `path`/`line`/`column` locate the
 * construct in the user's spec or SQL text (line and column are 1-based, 0
 * when unknown; for SQL given through the API, path is the file name passed
 * in, or "<name>" of the dataset or flow whose query it is) and `line_text`
 * holds that source line so it can be shown with a caret.
 */
typedef struct weir_error {
    int code;               /* 0 or a WEIR_E* code */
    char error_class[96];   /* Spark-style class, e.g. "CIRCULAR_DEPENDENCY";
                               "" when the error has none */
    char message[1536];     /* one line, without the class prefix */
    char path[512];         /* file concerned, "" if none */
    unsigned line, column;  /* 1-based position in path; 0 if unknown;
                               the column counts characters (UTF-8 code
                               points), not bytes */
    char line_text[256];    /* the source line at `line`, "" if unknown */
    const char *src_file;   /* C source file that raised it (debug aid;
                               static storage) */
    int src_line;
} weir_error;

/**
 * A static description of a WEIR_E* code, e.g. "invalid pipeline spec";
 * "error" for unknown codes.
 * Ownership: static storage. Thread-safety: thread-safe.
 */
WEIR_API const char *weir_strerror(int code);

/* ------------------------------------------------------------------------
 * Session
 * ------------------------------------------------------------------------ */

/** Defaults shared by the pipelines created from it (engine settings, log). */
typedef struct weir_session weir_session;

/**
 * Informational messages of long operations (loading a spec: "Found 2 files
 * matching glob ...", "Registering SQL file ..."), for a front end to show.
 * `message` is borrowed for the duration of the call.
 */
typedef void (*weir_log_fn)(const char *message, void *payload);

typedef struct weir_session_options {
    unsigned version;         /* WEIR_SESSION_OPTIONS_VERSION */
    unsigned threads;         /* DuckDB worker threads; 0 = all cores */
    const char *memory_limit; /* DuckDB memory limit, e.g. "1GB"; NULL = default */
    weir_log_fn on_log;       /* NULL = no messages */
    void *log_payload;        /* passed to on_log */
} weir_session_options;

#define WEIR_SESSION_OPTIONS_VERSION 1
#define WEIR_SESSION_OPTIONS_INIT                                             \
    { WEIR_SESSION_OPTIONS_VERSION, 0, NULL, NULL, NULL }

/**
 * Open a session. opts may be NULL (all defaults); it is copied.
 * Ownership: the caller owns *out (NULL on failure) and closes it with
 * weir_session_close after every pipeline created from it is dropped.
 * Thread-safety: thread-safe. A session is immutable once open: pipelines
 * created from it may be used on different threads at once, and its on_log
 * callback is then called from each of those threads (possibly at once).
 * Errors: WEIR_EINVAL (out NULL, unknown opts->version), WEIR_ENOMEM.
 */
WEIR_API int weir_session_open(weir_session **out,
                               const weir_session_options *opts,
                               weir_error *err);

/**
 * Close a session. Every pipeline created from it must have been dropped.
 * NULL is a no-op.
 * Thread-safety: not concurrently with any use of the session.
 */
WEIR_API void weir_session_close(weir_session *session);

/* ------------------------------------------------------------------------
 * Pipelines: a dataflow graph bound to a storage folder
 * ------------------------------------------------------------------------ */

/** A dataflow graph with its defaults (catalog, database, storage). */
typedef struct weir_pipeline weir_pipeline;

/** A key/value pair (configuration, table properties, options). */
typedef struct weir_kv {
    const char *key;
    const char *value;
} weir_kv;

typedef struct weir_pipeline_options {
    unsigned version;             /* WEIR_PIPELINE_OPTIONS_VERSION */
    const char *name;             /* pipeline name; NULL = "pipeline" */
    const char *storage;          /* folder or file:// URI holding tables,
                                     checkpoints and the event log;
                                     required to run (or given per run) */
    const char *catalog;          /* default catalog; NULL = "spark_catalog" */
    const char *database;         /* default database; NULL = "default" */
    const weir_kv *configuration; /* Spark/weir confs for every flow */
    size_t n_configuration;
    const char *root_dir;         /* base for relative paths (storage,
                                     read_files); NULL = current folder */
} weir_pipeline_options;

#define WEIR_PIPELINE_OPTIONS_VERSION 1
#define WEIR_PIPELINE_OPTIONS_INIT                                            \
    { WEIR_PIPELINE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL }

/**
 * Create an empty pipeline (Spark's Pipeline.create). opts may be NULL (all
 * defaults, no storage); it is copied. Nothing is opened or written until a
 * run or a query.
 * Ownership: the caller owns *out (NULL on failure) and releases it with
 * weir_pipeline_drop. The session must outlive the pipeline.
 * Thread-safety: thread-safe (the session is only read).
 * Errors: WEIR_EINVAL (out or session NULL, unknown opts->version, storage
 * that is not a local folder or file:// URI, the reserved catalog "weir"),
 * WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_create(weir_pipeline **out, weir_session *session,
                                  const weir_pipeline_options *opts,
                                  weir_error *err);

/**
 * Create a pipeline from a spark-pipeline.yml spec: load and validate the
 * spec, then register every SQL file its libraries match (Python files are
 * listed by weir_pipeline_python_files). spec_path NULL
 * searches spark-pipeline.yml / .yaml from the current folder upward.
 * Ownership: as weir_pipeline_create. On WEIR_ESPEC or WEIR_ESQL, *out is
 * still set (and must be dropped) when the spec itself was read, so that
 * weir_pipeline_diagnostics can list every problem found.
 * Thread-safety: thread-safe (the session is only read).
 * Errors: WEIR_ESPEC, WEIR_ESQL, WEIR_ENOTFOUND, WEIR_EIO, WEIR_EINVAL,
 * WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_load(weir_pipeline **out, weir_session *session,
                                const char *spec_path, weir_error *err);

/** How weir_pipeline_load_with loads a spec (docs/testing.md). */
typedef struct weir_load_options {
    unsigned version;        /* WEIR_LOAD_OPTIONS_VERSION */
    const char *environment; /* a name in weir-environments.yml beside the
                                spec: its storage, catalog, database and
                                configuration apply; NULL = none */
    const weir_kv *conf;     /* `--conf key=value` overrides, applied last
                                (after the spec and the environment) */
    size_t n_conf;
    /* Version 2: */
    const char *storage;  /* replaces the storage of the spec and the
                             environment (folder or file:// URI); NULL =
                             theirs */
    const char *root_dir; /* base of the relative paths in the SQL
                             (read_files, path reads, sinks) instead of
                             the spec's folder; SQL files are still found
                             from the spec's folder. NULL = that folder */
    /* Version 3: */
    bool storage_only;    /* read the spec (and environment) only, not the
                             definition files: the pipeline can be queried
                             (weir_pipeline_query*) and its configuration
                             read, while its SQL or Python files have
                             errors; weir_pipeline_start_run on it is
                             WEIR_EINVAL */
    /* Version 4: */
    bool keep_storage_open; /* queries and updates of the pipeline's own
                               storage share one open storage (one DuckDB
                               instance), opened by the first of them and
                               kept open, locked, until the pipeline is
                               dropped; updates then apply the pipeline's
                               weir.duckdb.* settings to it. Saves opening
                               the storage for every call (weir test).
                               Runs of another storage (weir_run_options
                               storage, sample_rows) and dry runs close it
                               first, as without this option */
} weir_load_options;

#define WEIR_LOAD_OPTIONS_VERSION 4
#define WEIR_LOAD_OPTIONS_INIT                                                \
    { WEIR_LOAD_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL, false, false }

/**
 * weir_pipeline_load with an environment and configuration overrides. SQL
 * files get `${key}` substituted from the resulting configuration (Spark's
 * spark.sql.variable.substitute; an unbound variable is the WEIR_ESQL
 * diagnostic UNBOUND_SQL_VARIABLE at its file:line:col). opts NULL is
 * weir_pipeline_load.
 * Ownership, thread-safety: as weir_pipeline_load.
 * Errors: as weir_pipeline_load; an unknown environment, a missing or bad
 * environments file, a bad override are WEIR_ESPEC (diagnostics listed).
 */
WEIR_API int weir_pipeline_load_with(weir_pipeline **out,
                                     weir_session *session,
                                     const char *spec_path,
                                     const weir_load_options *opts,
                                     weir_error *err);

/**
 * The value of key in the pipeline configuration (the spec's, the
 * environment's and the overrides, merged), or NULL when unset or p is
 * NULL. Borrowed from p.
 * Thread-safety: thread-safe (only read).
 */
WEIR_API const char *weir_pipeline_conf_get(const weir_pipeline *p,
                                            const char *key);

/**
 * The pipeline configuration as a list: returns how many entries it has
 * and, when i is below that, sets *key and *value (borrowed from p) to the
 * i-th. A key given twice is listed twice (the later wins).
 * Thread-safety: thread-safe (only read).
 */
WEIR_API size_t weir_pipeline_conf_at(const weir_pipeline *p, size_t i,
                                      const char **key, const char **value);

/**
 * Drop the pipeline (Spark's Pipeline.drop): release its storage and free
 * it and everything borrowed from it. Stored tables and the event log are
 * kept on disk. Every result and Arrow stream of the pipeline must have been
 * freed/released, and no call on it may be in progress (runs are
 * synchronous: cancel a run with weir_run_options.cancel and let it return
 * first). NULL is a no-op.
 * Thread-safety: pipeline-serial.
 */
WEIR_API void weir_pipeline_drop(weir_pipeline *pipeline);

/**
 * The pipeline's name. Ownership: borrowed; valid until the pipeline is
 * dropped. NULL when pipeline is NULL. Thread-safety: pipeline-serial.
 */
WEIR_API const char *weir_pipeline_name(const weir_pipeline *pipeline);

/**
 * The absolute path of the spec file the pipeline was loaded from, or NULL
 * for pipelines made by weir_pipeline_create. Ownership: borrowed; valid
 * until the pipeline is dropped. Thread-safety: pipeline-serial.
 */
WEIR_API const char *weir_pipeline_spec_path(const weir_pipeline *pipeline);

/**
 * The absolute storage folder, or NULL if none was given at creation.
 * Ownership: borrowed; valid until the pipeline is dropped.
 * Thread-safety: pipeline-serial.
 */
WEIR_API const char *weir_pipeline_storage(const weir_pipeline *pipeline);

/**
 * The default catalog and database that unqualified names resolve in (the
 * spec's, environment's or creation options'; "spark_catalog" and
 * "default" when none was given), NULL when pipeline is NULL.
 * Ownership: borrowed; valid until the pipeline is dropped.
 * Thread-safety: pipeline-serial.
 */
WEIR_API const char *weir_pipeline_catalog(const weir_pipeline *pipeline);
WEIR_API const char *weir_pipeline_database(const weir_pipeline *pipeline);

/**
 * Problems found by the last call that reported WEIR_ESPEC, WEIR_ESQL or
 * WEIR_EGRAPH: every independent error, in source order (the call's own
 * weir_error holds the first one). Returns their count and sets *out (may be
 * NULL) to the array.
 * Ownership: borrowed; valid until the next call on the pipeline.
 * Thread-safety: pipeline-serial.
 */
WEIR_API size_t weir_pipeline_diagnostics(const weir_pipeline *pipeline,
                                          const weir_error **out);

/**
 * The Python definition files (`.py`) the spec's libraries matched, which
 * weir_pipeline_load lists but does not register: a front end imports them
 * with pyspark (the weir CLI does, through its Spark Connect endpoint) so
 * that they define their datasets and flows into this pipeline. Paths are
 * relative to the folder of the spec (weir_pipeline_spec_path), in the
 * order the files are registered (library entry by entry, each entry's
 * files sorted by path), the order in which to import them. Returns their
 * count (0 for a NULL pipeline or one not loaded from a spec) and sets
 * *out (out may be NULL) to the array, NULL when there are none.
 * Ownership: borrowed; valid until the pipeline is dropped.
 * Thread-safety: pipeline-serial.
 */
WEIR_API size_t weir_pipeline_python_files(const weir_pipeline *pipeline,
                                           const char *const **out);

/**
 * The SQL definition files the spec's libraries matched, registered by
 * weir_pipeline_load: paths relative to the spec's folder, in registration
 * order (as weir_pipeline_python_files), e.g. for a front end sending the
 * project to another engine (`weir run --remote`). Returns their count (0
 * for a NULL pipeline or one not loaded from a spec) and sets *out (may be
 * NULL) to the array, NULL when there are none.
 * Ownership: borrowed; valid until the pipeline is dropped.
 * Thread-safety: pipeline-serial.
 */
WEIR_API size_t weir_pipeline_sql_files(const weir_pipeline *pipeline,
                                        const char *const **out);

/* --- Defining the graph -------------------------------------------------- */

typedef enum weir_dataset_kind {
    WEIR_STREAMING_TABLE = 1,   /* a table that flows append to */
    WEIR_MATERIALIZED_VIEW = 2, /* a table recomputed from its query */
    WEIR_TEMPORARY_VIEW = 3,    /* a view inside the graph, not published */
    WEIR_PERSISTED_VIEW = 4,    /* a view published in the catalog */
    WEIR_SINK = 5               /* an external destination (files) */
} weir_dataset_kind;

/**
 * Spark's words for a dataset kind: "streaming table", "materialized
 * view", "temporary view", "view" or "sink"; "dataset" for a value that is
 * none of the enum's. Static storage. Thread-safe.
 */
WEIR_API const char *weir_dataset_kind_name(weir_dataset_kind kind);

typedef enum weir_expectation_action {
    WEIR_EXPECT_WARN = 0,      /* keep the row, count the violation */
    WEIR_EXPECT_DROP = 1,      /* drop the row */
    WEIR_EXPECT_FAIL = 2,      /* fail the flow */
    WEIR_EXPECT_QUARANTINE = 3 /* move the row to <table>_quarantine */
} weir_expectation_action;

/** A data-quality expectation (SQL: CONSTRAINT name EXPECT (cond) ...). */
typedef struct weir_expectation {
    const char *name;
    const char *condition; /* Spark SQL boolean expression */
    weir_expectation_action action;
} weir_expectation;

/**
 * A dataset definition. Every string and array is copied by the call; the
 * struct may be reused afterwards. NULL/0 fields mean "not given".
 */
typedef struct weir_dataset_options {
    unsigned version;    /* WEIR_DATASET_OPTIONS_VERSION */
    const char *name;    /* 1 to 3 parts: [catalog.][database.]name;
                            backticks quote parts */
    const char *query;   /* Spark SQL query (SELECT ...) computing the
                            dataset, the text of Spark's `df`; NULL when
                            flows added with weir_pipeline_define_flow
                            write it. Read other datasets of the pipeline
                            through weir_pipeline_read. */
    const char *comment;
    const char *schema;  /* Spark DDL column list, e.g.
                            "id BIGINT NOT NULL, name STRING COMMENT 'who'" */
    const char *format;  /* table format (USING); NULL = default */
    const weir_kv *properties; /* table properties (TBLPROPERTIES) */
    size_t n_properties;
    const char *const *partition_cols; /* PARTITIONED BY columns */
    size_t n_partition_cols;
    const char *const *cluster_cols;   /* CLUSTER BY columns */
    size_t n_cluster_cols;
    const weir_expectation *expectations;
    size_t n_expectations;
    const weir_kv *options; /* sink options (path, header, ...) */
    size_t n_options;
    /* Version 2: */
    const char *source_path; /* the file that defines the dataset (e.g. a
                                Python file): events, descriptions and
                                errors about it, its query included, name
                                source_path:source_line; NULL = the query
                                text itself ("<name>") */
    unsigned source_line;
    const weir_kv *conf; /* Spark confs of its implicit flow */
    size_t n_conf;
} weir_dataset_options;

#define WEIR_DATASET_OPTIONS_VERSION 2
#define WEIR_DATASET_OPTIONS_INIT                                             \
    { WEIR_DATASET_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, 0,    \
      NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0 }

/**
 * Register a dataset of the given kind, with its implicit flow when
 * opts->query is given. Names of tables and persisted views are qualified
 * with the pipeline's default catalog and database; temporary views and
 * sinks keep one part. The graph is validated as a whole when a run starts
 * (an unknown input, a cycle or a dataset without any flow is reported
 * then, as WEIR_EGRAPH), so definitions may come in any order.
 * *out (out may be NULL) receives the resolved identifier, e.g.
 * "spark_catalog.analytics.events": the name events and
 * weir_pipeline_describe report. To use the dataset in query text, call
 * weir_pipeline_read.
 * Ownership: opts is copied; *out is borrowed until the pipeline is
 * dropped. Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (bad name, kind or option), WEIR_ESQL (query, schema or
 * expectation that does not parse; also in diagnostics), WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_dataset(weir_pipeline *pipeline,
                                          weir_dataset_kind kind,
                                          const weir_dataset_options *opts,
                                          const char **out, weir_error *err);

/**
 * Spark's createTable: weir_pipeline_define_dataset with
 * WEIR_STREAMING_TABLE. Its query (when given) must read at least one
 * stream (`STREAM name`, `STREAM read_files(...)`); batch backfills go in
 * once-flows (weir_flow_options.once).
 * Ownership, thread-safety and errors: as weir_pipeline_define_dataset.
 */
WEIR_API int weir_pipeline_create_table(weir_pipeline *pipeline,
                                        const weir_dataset_options *opts,
                                        const char **out, weir_error *err);

/**
 * Spark's createMaterializedView: weir_pipeline_define_dataset with
 * WEIR_MATERIALIZED_VIEW. Its query is a batch query, recomputed by every
 * update that refreshes it.
 * Ownership, thread-safety and errors: as weir_pipeline_define_dataset.
 */
WEIR_API int weir_pipeline_create_materialized_view(
    weir_pipeline *pipeline, const weir_dataset_options *opts,
    const char **out, weir_error *err);

/**
 * Spark's createTemporaryView: weir_pipeline_define_dataset with
 * WEIR_TEMPORARY_VIEW. The view exists inside the graph only (flows read
 * it; it is not published to the catalog); its name has one part.
 * Ownership, thread-safety and errors: as weir_pipeline_define_dataset.
 */
WEIR_API int weir_pipeline_create_temporary_view(
    weir_pipeline *pipeline, const weir_dataset_options *opts,
    const char **out, weir_error *err);

typedef struct weir_flow_options {
    unsigned version;   /* WEIR_FLOW_OPTIONS_VERSION */
    const char *name;   /* required; single part, and not the name of a
                           dataset (that is the dataset's implicit flow) */
    const char *target; /* required: dataset or sink the flow writes */
    const char *query;  /* required: Spark SQL query */
    bool once;          /* a batch backfill that runs once, and again only
                           after a full refresh of its target */
    const weir_kv *conf; /* Spark confs for this flow only */
    size_t n_conf;
    const char *comment;
    /* Version 2: */
    const char *source_path; /* the file that defines the flow; as in
                                weir_dataset_options */
    unsigned source_line;
    /* Version 3: */
    /* A Spark Structured Streaming checkpoint folder (checkpointLocation;
     * relative: to the pipeline's root) whose last committed position the
     * flow starts from on its first update, instead of reading its
     * sources from the start (docs/import-checkpoint.md). Streaming
     * append flows into a streaming table or a sink only. NULL = none. */
    const char *import_checkpoint;
    /* Version 4: */
    /* An AUTO CDC flow (docs/auto-cdc.md): the Spark SQL of its clauses
     * after `AUTO CDC INTO target`, e.g. "FROM STREAM(src) KEYS (id)
     * APPLY AS DELETE WHEN op = 'D' SEQUENCE BY ts STORED AS SCD TYPE 2";
     * query must then be NULL. A flow named like its target is the
     * target's own flow. NULL = an append flow of query. */
    const char *auto_cdc;
} weir_flow_options;

#define WEIR_FLOW_OPTIONS_VERSION 4
#define WEIR_FLOW_OPTIONS_INIT                                                \
    { WEIR_FLOW_OPTIONS_VERSION, NULL, NULL, NULL, false, NULL, 0, NULL,      \
      NULL, 0, NULL, NULL }

/**
 * Register a standalone flow (Spark's defineFlow, SQL's CREATE FLOW ... AS
 * INSERT INTO target) into a dataset defined before or after it. A target
 * may have several append flows; once-flows must be batch queries.
 * Ownership: opts is copied. Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (name, target or query missing, bad name or
 * version), WEIR_ESQL (query that does not parse), WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_flow(weir_pipeline *pipeline,
                                       const weir_flow_options *opts,
                                       weir_error *err);

/**
 * Register every statement of a pipeline SQL file (Spark's defineSql):
 * CREATE STREAMING TABLE / MATERIALIZED VIEW / TEMPORARY VIEW / VIEW / FLOW,
 * SET and USE. file_name (may be NULL: "<sql>") names the text in error
 * locations and events, and relative paths inside the SQL resolve against
 * the pipeline's root folder. USE and SET apply to the following statements
 * of the same text only. On WEIR_ESQL the valid statements are still
 * registered and the diagnostics list each bad one with its line and
 * column.
 * Ownership: sql_text and file_name are copied. Thread-safety:
 * pipeline-serial.
 * Errors: WEIR_EINVAL (NULL pipeline or text), WEIR_ESQL, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_define_sql(weir_pipeline *pipeline,
                                      const char *sql_text,
                                      const char *file_name, weir_error *err);

/**
 * Spark's pipeline.read(name): a relation reference to dataset `name` for
 * query text given later to this pipeline, e.g.
 * "`spark_catalog`.`default`.`events`", or "STREAM `...`" when streaming is
 * true (to read a streaming table incrementally). Names with one or two
 * parts are qualified with the pipeline's defaults, except the name of a
 * temporary view already defined, which stays one part. The dataset need
 * not exist yet: references are checked when a run starts.
 * Ownership: *out is borrowed until the pipeline is dropped.
 * Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (NULL argument, name that is not 1 to 3 parts),
 * WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_read(weir_pipeline *pipeline, const char *name,
                                bool streaming, const char **out,
                                weir_error *err);

/**
 * Make in dst, in the same order, every definition made in src through the
 * calls above that succeeded (weir_pipeline_define_dataset and its
 * shorthands, weir_pipeline_define_flow, weir_pipeline_define_sql): for
 * instance the definitions weir's Spark Connect endpoint imported from a
 * project's Python files into src, given to another pipeline of the same
 * project without running Python again (weir test gives them to each
 * test's pipeline). What dst read from its spec's SQL files is its own;
 * nothing of the spec is copied.
 * Thread-safety: src is only read, so several pipelines may copy from one
 * src at once (while nothing defines in src); dst is pipeline-serial.
 * Errors: WEIR_EINVAL (NULL or the same pipeline), then those of the
 * definition calls on dst (their diagnostics are dst's); the copy stops
 * at the first failure.
 */
WEIR_API int weir_pipeline_copy_definitions(weir_pipeline *dst,
                                            const weir_pipeline *src,
                                            weir_error *err);

/**
 * Whether name, a table name as the pipeline's SQL writes it (1 to 3
 * parts, backticks allowed; an unqualified one in the pipeline's catalog
 * and database), names one of the datasets defined so far: tables,
 * materialized views, views and sinks. No resolution: only the
 * definitions are read. False for NULL arguments and names that do not
 * parse. Thread-safety: pipeline-serial (it only reads).
 */
WEIR_API bool weir_pipeline_defines(const weir_pipeline *pipeline,
                                    const char *name);

/* --- Events -------------------------------------------------------------- */

typedef enum weir_level {
    WEIR_LEVEL_INFO = 0,
    WEIR_LEVEL_WARN = 1,
    WEIR_LEVEL_ERROR = 2,
    WEIR_LEVEL_METRICS = 3
} weir_level;

/**
 * One event of a run, as stored in the event log (query it afterwards with
 * `SELECT * FROM event_log()`). Every string is borrowed for the duration of
 * the callback only; NULL when not applicable. `details_json` is a JSON
 * object keyed by event type (e.g. {"flow_progress": {...}});
 * `error_json` is NULL or a JSON object with "class" and "message".
 */
typedef struct weir_event {
    const char *id;
    const char *update_id;
    int64_t timestamp_us;   /* microseconds since the Unix epoch, UTC */
    weir_level level;
    const char *event_type; /* flow_progress, update_progress, ... */
    const char *message;    /* Spark's message text */
    const char *flow_name;  /* qualified, as in weir_flow_info.name */
    const char *dataset_name;
    const char *details_json;
    const char *error_json;
    const char *source_path; /* file that defines the flow/dataset */
    unsigned source_line;
} weir_event;

/**
 * The live progress of the update running on a storage: the file of this
 * name in the storage folder (weir_pipeline_storage), written by that
 * update alone while it runs and removed once its record is stored, so a
 * reader can follow it while the update holds the database. One JSON object
 * per line: a header {"weir_progress": 1, "update_id", "pid",
 * "started_at_us"}, then each event as it is stored, with the columns of
 * weir.event_log ("sequence", "timestamp_us", "level", "event_type",
 * "message", "flow_name", "dataset_name", "details", "error", "origin").
 * A last line without its newline is still being written. Trust it only
 * while the process of "pid" holds the storage's lock (docs/ui.md).
 */
#define WEIR_PROGRESS_FILE "weir.progress.jsonl"

/** Receives each event of a run, in order, on the thread running it. */
typedef void (*weir_event_fn)(const weir_event *event, void *payload);

/**
 * A snapshot of a run in progress, reported about ten times a second.
 * Borrowed for the duration of the callback only.
 */
typedef struct weir_progress {
    unsigned flows_total;
    unsigned flows_done;
    unsigned flows_running;
    uint64_t rows_written;   /* so far, all flows */
    double elapsed_seconds;
    const char *running[8]; /* names of up to 8 running flows */
    unsigned n_running;
} weir_progress;

/** Receives progress snapshots on the thread running the update. */
typedef void (*weir_progress_fn)(const weir_progress *progress, void *payload);

/* --- Runs ---------------------------------------------------------------- */

typedef enum weir_run_state {
    WEIR_RUN_COMPLETED = 1,
    WEIR_RUN_FAILED = 2,
    WEIR_RUN_CANCELED = 3
} weir_run_state;

/**
 * What a run does (Spark's startRun arguments). full_refresh_all excludes
 * refresh and full_refresh, and a dataset may not be in both lists
 * (WEIR_EINVAL). Names in the lists have 1 to 3 parts, qualified with the
 * pipeline's defaults; a name that is not a table or sink of the pipeline
 * is ignored with a WARN event. With either list, the datasets not in it
 * are excluded from the update. The arrays are read during the call only.
 */
typedef struct weir_run_options {
    unsigned version; /* WEIR_RUN_OPTIONS_VERSION */
    bool dry;              /* resolve and validate only; write nothing */
    bool full_refresh_all; /* reset and recompute every dataset */
    const char *const *refresh; /* datasets to refresh (others excluded) */
    size_t n_refresh;
    const char *const *full_refresh; /* datasets to reset and recompute */
    size_t n_full_refresh;
    const char *storage; /* this run's storage (folder or file:// URI),
                            instead of the pipeline's; queries keep using
                            the pipeline's storage */
    weir_event_fn on_event; /* NULL = events are only stored */
    void *event_payload;
    weir_progress_fn on_progress; /* NULL = no progress reports */
    void *progress_payload;
    /* When *cancel becomes nonzero the update stops: queued flows are
     * skipped, running ones are interrupted (their transactions roll back)
     * and the run ends CANCELED. May be set from a signal handler or
     * another thread. NULL = not cancellable. */
    const volatile int *cancel;
    /* Version 2: */
    /* > 0: a sample run for fast iteration (`weir run --sample N`): each
     * external input (external table, path read, read_files source, Kafka
     * topic; not range()) reads at most this many rows per query and per
     * streaming batch, and the update writes into the storage's path with
     * "-sample" appended (of storage above when set), never into the real
     * storage, whose external tables it reads (attached read-only). Its
     * sinks never write their destinations either: as with sink_root and
     * local_kafka below, sinks with a path write below the folder
     * "outputs" of the sample storage (or below sink_root when set), and
     * Kafka sinks append to the sample storage's local topics (Kafka
     * sources still read the brokers). 0 = a normal run; negative is
     * WEIR_EINVAL. */
    int64_t sample_rows;
    /* Version 3: */
    /* A folder the sinks with a `path` (files, Delta) write below instead
     * of their destination: the path's parts, relative or absolute (a
     * file:// URI's too; `..` parts kept inside), under this folder, so a
     * test never writes a real destination (weir test gives each test's
     * folder). Kafka sinks: see local_kafka. NULL = as written. */
    const char *sink_root;
    /* Version 4: */
    /* true: no Kafka broker is contacted. Kafka sources read, and Kafka
     * sinks append to, the local topics of the storage: the table
     * weir_kafka.messages of the default catalog, with the Kafka source's
     * columns (key, value, topic, partition, offset, timestamp,
     * timestampType, headers), offsets numbered from 0 per topic and
     * partition. A topic without rows there does not exist yet. weir test
     * sets it: topic fixtures are written there, and sink output is
     * checked there (docs/testing.md). */
    bool local_kafka;
    /* Version 5: */
    /* true: the update also refreshes every table and sink the datasets of
     * refresh and full_refresh read, directly or through views,
     * transitively (a normal refresh, not a reset), so they are
     * computed from the pipeline's inputs; refresh may then name views
     * too (their inputs are refreshed). weir test's default: what a
     * test's expectations read. false = refresh as Spark's. */
    bool refresh_upstream;
} weir_run_options;

#define WEIR_RUN_OPTIONS_VERSION 5
#define WEIR_RUN_OPTIONS_INIT                                                 \
    { WEIR_RUN_OPTIONS_VERSION, false, false, NULL, 0, NULL, 0, NULL, NULL,   \
      NULL, NULL, NULL, NULL, 0, NULL, false, false }

/** The outcome of a run. */
typedef struct weir_run_result {
    weir_run_state state;
    char update_id[40]; /* the update_id of its events */
    unsigned flows_completed, flows_failed, flows_skipped, flows_excluded,
        flows_idle;
    uint64_t rows_written;
} weir_run_result;

/**
 * Spark's startRun: resolve and validate the graph, then (unless opts->dry)
 * run an update: materialize datasets in dependency order, process new data
 * of streaming flows exactly once, recompute materialized views, and record
 * every event in the event log under the storage. Blocks until the update
 * ends. opts may be NULL (a plain update); it is only read during the call.
 * Events and progress are reported through the callbacks in opts on the
 * calling thread; flows themselves run on worker threads.
 *
 * Returns 0 when the update ran, whether it COMPLETED, FAILED (a flow
 * failed: see the events) or was CANCELED: see out->state (out may be NULL).
 * Returns WEIR_EGRAPH when the graph is invalid (weir_pipeline_diagnostics
 * lists every error), WEIR_EINVAL for conflicting or unknown options or a
 * missing storage, WEIR_EBUSY when another update holds the storage or a
 * result or Arrow stream of this pipeline is still open, WEIR_ECORRUPT when
 * stored state is damaged, WEIR_EIO, WEIR_ENOMEM.
 * Thread-safety: pipeline-serial; runs of different pipelines on different
 * storage may proceed at the same time on different threads.
 */
WEIR_API int weir_pipeline_start_run(weir_pipeline *pipeline,
                                     const weir_run_options *opts,
                                     weir_run_result *out, weir_error *err);

/**
 * Record an update that ran elsewhere (on a Spark Connect server: `weir
 * run --remote`) in the event log of storage (a folder or file:// URI,
 * relative to the pipeline's root; NULL = the pipeline's storage), so
 * that event_log() and `weir events` on that storage show it like a local
 * update. The n events are stored in order with their timestamp, level,
 * event type, message, flow and dataset names, details and source; their
 * id and sequence are the log's own. They are recorded under the
 * update_id of the first event when it is a UUID (the id they were
 * delivered with), else under a new one; that id is written to update_id
 * (40 bytes; may be NULL). Nothing else of the storage changes. events and the strings in them are read during the
 * call only.
 * Errors: WEIR_EINVAL (no pipeline, events NULL with n > 0, no storage),
 * WEIR_EBUSY (another process holds the storage, or a result or Arrow
 * stream of this pipeline is open), WEIR_EIO, WEIR_ENOMEM.
 * Thread-safety: pipeline-serial.
 */
WEIR_API int weir_pipeline_record_update(weir_pipeline *pipeline,
                                         const char *storage,
                                         const weir_event *events, size_t n,
                                         char *update_id, weir_error *err);

/* --- Describing the resolved graph --------------------------------------- */

typedef struct weir_column_info {
    const char *name;
    const char *type; /* Spark type name, e.g. "bigint", "array<string>" */
    bool nullable;
    const char *comment; /* NULL if none */
} weir_column_info;

typedef struct weir_dataset_info {
    const char *name; /* resolved identifier, e.g. spark_catalog.default.t */
    weir_dataset_kind kind;
    const weir_column_info *columns; /* resolved schema; n_columns may be 0 */
    size_t n_columns;
    const char *comment;
    const char *format;
    const char *source_path; /* the SQL file; "<name>" for datasets defined
                                through C calls with a query, NULL without */
    unsigned source_line;
    size_t n_expectations;
    const weir_kv *properties; /* table properties (TBLPROPERTIES) */
    size_t n_properties;
} weir_dataset_info;

typedef struct weir_flow_info {
    const char *name;   /* resolved identifier */
    const char *target; /* resolved identifier of the dataset or sink */
    const char *const *inputs; /* datasets of this pipeline it reads */
    size_t n_inputs;
    const char *const *external_inputs; /* tables and files outside it */
    size_t n_external_inputs;
    bool streaming;
    bool once;
    bool implicit; /* the dataset's own flow */
    const char *source_path;
    unsigned source_line;
    int auto_cdc; /* an AUTO CDC flow: its SCD type (1 or 2); 0 = not */
} weir_flow_info;

typedef struct weir_graph_info {
    const weir_dataset_info *datasets; /* in topological order */
    size_t n_datasets;
    const weir_flow_info *flows; /* in topological order */
    size_t n_flows;
} weir_graph_info;

/**
 * Describe the graph as of the last successful resolution (a dry run or a
 * run): datasets with their resolved schemas, flows with their inputs.
 * Ownership: everything in *out is borrowed from the pipeline and valid
 * until the next call that defines, runs or drops.
 * Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (NULL argument, or the graph has not been resolved
 * since the last definition), WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_describe(const weir_pipeline *pipeline,
                                    weir_graph_info *out, weir_error *err);

/* --- Portability to Apache Spark ----------------------------------------- */

/** One construct of the project that open-source Apache Spark 4.1 rejects or
 * runs differently (the list: docs/spark.md). */
typedef struct weir_spark_finding {
    const char *construct; /* what it is, e.g. "read_files",
                              "CONSTRAINT ... EXPECT" (static storage) */
    bool rejected;         /* Spark fails the pipeline on it; false: Spark
                              runs it, with another result */
    const char *portable;  /* the portable spelling, or the Python
                              equivalent; what to do when there is none */
    weir_error at;         /* where (path, line, column, line_text) and what
                              Spark does: error_class is the class Spark
                              raises ("" when it raises none), message says
                              what happens; code is 0 */
} weir_spark_finding;

typedef struct weir_spark_report {
    const weir_spark_finding *findings; /* in spec, then file, order */
    size_t n_findings;                  /* 0: portable */
} weir_spark_report;

/**
 * Check the pipeline against open-source Apache Spark 4.1 as of the last
 * successful resolution (a dry run or a run): its spec, its definitions
 * and the SQL of their queries. Definitions made from Python DataFrames
 * are checked for what they declare (expectations, once flows,
 * import_checkpoint), not for their DataFrame calls, which are Spark's own.
 * Ownership: everything in *out is borrowed from the pipeline and valid
 * until the next call that defines, runs, checks or drops.
 * Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (NULL argument, or the graph has not been resolved
 * since the last definition), WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_check_spark(weir_pipeline *pipeline,
                                       weir_spark_report *out, weir_error *err);

/* --- Queries ------------------------------------------------------------- */

/** A query's result, fully materialized as text. */
typedef struct weir_result weir_result;

/**
 * Run Spark SQL (one or more statements, separated by ';') against the
 * pipeline's catalog in its storage and return the last statement's result
 * with every value as text. Reads and writes are allowed (users create
 * source tables this way); the table function event_log() reads the
 * pipeline's event log. The first query opens the storage and keeps it
 * open, locked, until the pipeline runs or is dropped (with
 * weir_load_options.keep_storage_open, until it is dropped).
 * Ownership: the caller owns *out (NULL on failure) and frees it with
 * weir_result_free before the pipeline runs again or is dropped.
 * Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (NULL argument, pipeline without storage), WEIR_ESQL
 * (the SQL does not parse, or names an unknown table, column or function),
 * WEIR_EENGINE, WEIR_EBUSY (an update of another process or pipeline holds
 * the storage), WEIR_EIO, WEIR_ENOMEM.
 */
WEIR_API int weir_pipeline_query(weir_pipeline *pipeline, const char *sql,
                                 weir_result **out, weir_error *err);

/**
 * Free a result. NULL is a no-op. Thread-safety: pipeline-serial (of the
 * pipeline that made it).
 */
WEIR_API void weir_result_free(weir_result *result);

/**
 * The number of columns of a result (0 for NULL).
 * Thread-safety: a result is immutable: its accessors may be called from
 * any thread, concurrently, until it is freed.
 */
WEIR_API size_t weir_result_column_count(const weir_result *result);

/** The number of rows of a result (0 for NULL). Thread-safety: as above. */
WEIR_API size_t weir_result_row_count(const weir_result *result);

/**
 * A column's name, or NULL when col is out of range. Ownership: borrowed
 * until the result is freed. Thread-safety: as weir_result_column_count.
 */
WEIR_API const char *weir_result_column_name(const weir_result *result,
                                             size_t col);

/**
 * A column's type as a Spark type name ("bigint", "string", ...), or NULL
 * when col is out of range. Ownership: borrowed until the result is freed.
 * Thread-safety: as weir_result_column_count.
 */
WEIR_API const char *weir_result_column_type(const weir_result *result,
                                             size_t col);

/**
 * True when the column holds numbers or booleans (printed unquoted).
 * Thread-safety: as weir_result_column_count.
 */
WEIR_API bool weir_result_column_is_numeric(const weir_result *result,
                                            size_t col);

/**
 * A value as text (Spark's string form), or NULL for SQL NULL and out of
 * range positions. Ownership: borrowed until the result is freed.
 * Thread-safety: as weir_result_column_count.
 */
WEIR_API const char *weir_result_value(const weir_result *result, size_t col,
                                       size_t row);

/**
 * Make the pipeline's queries (weir_pipeline_query, _arrow) cancellable:
 * while one runs, weir calls cancelled(payload) from a thread of its own
 * about twenty times a second; once it returns true the query stops where
 * it is, translating or executing (a statement that writes rolls back),
 * and fails with WEIR_ECANCELED (class OPERATION_CANCELED). cancelled
 * NULL: queries are not cancellable (the default). The callback is called
 * only during queries and must be safe to call from another thread; set
 * it (or another) before each query.
 * Thread-safety: pipeline-serial.
 * Errors: WEIR_EINVAL (NULL pipeline).
 */
WEIR_API int weir_pipeline_set_query_cancel(weir_pipeline *pipeline,
                                            bool (*cancelled)(void *payload),
                                            void *payload);

/* Arrow C Data Interface and C Stream Interface, as specified (ABI-stable)
 * by https://arrow.apache.org/docs/format/CDataInterface.html and
 * https://arrow.apache.org/docs/format/CStreamInterface.html. The guards
 * let this header coexist with Arrow's, nanoarrow's or DuckDB's copies. */
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
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif

/**
 * Run Spark SQL like weir_pipeline_query, once, and hand the last
 * statement's result over as an Arrow C stream: get_schema describes a
 * struct whose children are the columns (DuckDB's Arrow types: int64 "l",
 * utf8 "u", date32 "tdD", ...), and each get_next fills an ArrowArray with
 * the next batch of rows (a struct array), or sets its release to NULL after
 * the last batch. The callbacks return 0 or an errno value (EINVAL, ENOMEM,
 * EIO), with get_last_error describing the failure.
 * Ownership: the caller owns *out and must call out->release before the
 * pipeline runs again or is dropped; every schema and array it produces is
 * owned by the caller too and released through its own release callback
 * (they may outlive the stream). On failure out->release is NULL.
 * Thread-safety: pipeline-serial (the stream counts as part of its
 * pipeline).
 * Errors: as weir_pipeline_query.
 */
WEIR_API int weir_pipeline_query_arrow(weir_pipeline *pipeline,
                                       const char *sql,
                                       struct ArrowArrayStream *out,
                                       weir_error *err);

/* ------------------------------------------------------------------------
 * Tests: pipelines run on fixture data (`weir test`, docs/testing.md)
 * ------------------------------------------------------------------------ */

/**
 * The tests of a project: the definitions read from the `tests/NAME.yml`
 * files beside a spec, and, once run, their results.
 */
typedef struct weir_test_suite weir_test_suite;

typedef enum weir_test_status {
    WEIR_TEST_PASSED = 1,
    WEIR_TEST_FAILED = 2
} weir_test_status;

/**
 * The outcome of one test. Strings are borrowed from the suite (valid
 * until it is freed); NULL when not applicable.
 */
typedef struct weir_test_result {
    size_t index;       /* the test's position in the suite */
    const char *name;   /* as defined (a key of its file) */
    const char *path;   /* its file, relative to the spec's folder */
    unsigned line, column; /* where its definition starts */
    weir_test_status status;
    const char *failure_class; /* e.g. "ROWS_DIFFER", "UNEXPECTED_ERROR" */
    const char *message;       /* one line: what failed, at which step */
    const char *details;       /* several lines (a row diff, rows a query
                                  returned), or NULL */
    unsigned steps_run;
    double seconds;
} weir_test_result;

/**
 * Read the test definitions of the project of spec_path (NULL: search
 * spark-pipeline.yml upward from the current folder, as weir_pipeline_load
 * does): every `tests/NAME.yml` and `tests/NAME.yaml` file beside the spec, in
 * name order, keeping the tests whose name matches one of filters (a
 * glob, a substring of the name, or the file's name without extension;
 * n_filters 0 keeps all). The spec itself is not read.
 * Ownership: the caller owns *out and frees it with weir_test_suite_free.
 * On WEIR_ESPEC (an invalid definition) *out is still set, so that
 * weir_test_suite_diagnostics lists every problem with its file:line:col.
 * Thread-safety: thread-safe.
 * Errors: WEIR_ESPEC, WEIR_ENOTFOUND (no spec), WEIR_EIO, WEIR_EINVAL,
 * WEIR_ENOMEM.
 */
WEIR_API int weir_test_suite_load(weir_test_suite **out,
                                  const char *spec_path,
                                  const char *const *filters,
                                  size_t n_filters, weir_error *err);

/**
 * The problems weir_test_suite_load found. Returns their count and sets
 * *out (may be NULL) to them. Borrowed until the suite is freed.
 */
WEIR_API size_t weir_test_suite_diagnostics(const weir_test_suite *suite,
                                            const weir_error **out);

/** How many tests the suite holds (after filtering; 0 for NULL). */
WEIR_API size_t weir_test_suite_count(const weir_test_suite *suite);

/** Receives each result as soon as its test ends, on the calling thread. */
typedef void (*weir_test_fn)(const weir_test_result *result, void *payload);

typedef struct weir_test_run_options {
    unsigned version;               /* WEIR_TEST_RUN_OPTIONS_VERSION */
    const weir_load_options *load;  /* environment and --conf overrides
                                       (its storage and root_dir are
                                       ignored: each test has its own) */
    unsigned jobs;                  /* tests run at once; 0 = one per core */
    weir_test_fn on_result;         /* NULL = none */
    void *payload;
    /* When *cancel becomes nonzero, running tests stop (their updates are
     * cancelled, their folders removed) and the others do not start;
     * they have no result. May be set from a signal handler. NULL = not
     * cancellable. */
    const volatile int *cancel;
    /* Version 2: */
    /* A pipeline loaded from the same spec whose definitions made through
     * C calls every test's pipeline receives too
     * (weir_pipeline_copy_definitions): the project's Python definitions,
     * imported once. Only read, by every worker. NULL = none: a project
     * with Python definition files then fails each test with
     * PYTHON_NOT_IMPORTED. */
    const weir_pipeline *definitions;
} weir_test_run_options;

#define WEIR_TEST_RUN_OPTIONS_VERSION 2
#define WEIR_TEST_RUN_OPTIONS_INIT                                            \
    { WEIR_TEST_RUN_OPTIONS_VERSION, NULL, 0, NULL, NULL, NULL, NULL }

/**
 * Run every test of the suite, each on its own pipeline loaded from the
 * spec in a new temporary folder (its storage, and its fixture files over
 * links to the project's other files), removed afterwards: the project's
 * own storage is never opened. Up to opts->jobs tests run at once on
 * worker threads; on_result is called on the calling thread. Results are
 * kept in the suite (weir_test_suite_result). Returns 0 when every test
 * ran, whatever its outcome; *n_failed (may be NULL) counts the failures.
 * Thread-safety: one call per suite at a time; the session is only read.
 * Errors: WEIR_EINVAL (NULL suite or session, a suite with definition
 * problems, unknown version; also, found here, a table fixture named like
 * a dataset of the pipeline: TEST_FIXTURE_IS_DATASET at its line, in
 * weir_test_suite_diagnostics, and no test runs), WEIR_EIO (no temporary
 * folder), WEIR_ENOMEM.
 */
WEIR_API int weir_test_suite_run(weir_test_suite *suite,
                                 weir_session *session,
                                 const weir_test_run_options *opts,
                                 size_t *n_failed, weir_error *err);

/**
 * The result of test i after weir_test_suite_run, or NULL when i is out of
 * range or the test has not run. Borrowed until the suite is freed.
 */
WEIR_API const weir_test_result *
weir_test_suite_result(const weir_test_suite *suite, size_t i);

/** Free a suite. NULL is a no-op. */
WEIR_API void weir_test_suite_free(weir_test_suite *suite);

#ifdef __cplusplus
}
#endif

#endif /* WEIR_H */
