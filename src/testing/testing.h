/*
 * `weir test` in the library: test definitions read from a project's
 * tests/NAME.yml (define.c), fixtures written into a test's temporary folder
 * and storage (fixture.c), row comparison with a readable diff
 * (compare.c), and running tests on a pool of worker threads behind the
 * public weir_test_suite API (run.c). docs/testing.md describes the
 * format. Everything a suite holds lives in its arena.
 */
#ifndef WEIR_TESTING_H
#define WEIR_TESTING_H

#include <stdbool.h>
#include <stddef.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "weir.h"

/* A YAML scalar of a fixture or an expected row, typed as YAML reads it. */
typedef enum weir_tvalue_kind {
    WEIR_TV_NULL,
    WEIR_TV_BOOL,
    WEIR_TV_INT,
    WEIR_TV_FLOAT,
    WEIR_TV_STRING /* strings, dates and timestamps: text as written */
} weir_tvalue_kind;

typedef struct weir_tvalue {
    weir_tvalue_kind kind;
    const char *text; /* NULL for WEIR_TV_NULL */
} weir_tvalue;

/* Rows with named columns; cells row-major (n_rows * n_cols). */
typedef struct weir_trows {
    const char **cols;
    size_t n_cols;
    weir_tvalue *cells;
    size_t n_rows;
} weir_trows;

typedef enum weir_fixture_kind {
    WEIR_FIXTURE_TABLE, /* an external table, created in the storage */
    WEIR_FIXTURE_FILES, /* a path the SQL reads (read_files, path reads) */
    WEIR_FIXTURE_TOPIC  /* a Kafka topic, written to the local topics */
} weir_fixture_kind;

typedef enum weir_fixture_source {
    WEIR_FSRC_ROWS, /* rows given inline */
    WEIR_FSRC_CSV,  /* a CSV file beside the test (with a header) */
    WEIR_FSRC_JSON, /* a JSON-lines file beside the test */
    WEIR_FSRC_SQL   /* a query (VALUES ... or SELECT ...) run in the
                       test's storage */
} weir_fixture_source;

typedef struct weir_fixture {
    weir_fixture_kind kind;
    const char *target;   /* table name as in the SQL, relative path, or
                             topic */
    unsigned line, column; /* of target, in the test file */
    /* tables: the columns of `schema:` (a Spark DDL column list, parsed:
     * never pasted into SQL); n_columns 0 = none given */
    const weir_sql_column *columns;
    size_t n_columns;
    const char *format;   /* files: "json" or "csv" */
    bool replace;         /* tables: replace the rows of earlier steps */
    weir_fixture_source source;
    weir_trows rows;      /* WEIR_FSRC_ROWS */
    const char *file;     /* CSV/JSON: absolute path */
    const char *sql;      /* WEIR_FSRC_SQL */
} weir_fixture;

typedef enum weir_check_kind {
    WEIR_CHECK_ROWS,        /* a dataset holds exactly these rows */
    WEIR_CHECK_EMPTY_QUERY, /* a query returns no rows */
    WEIR_CHECK_METRICS,     /* expectation metrics of the step's update */
    WEIR_CHECK_ERROR        /* the step's update fails with a class */
} weir_check_kind;

typedef struct weir_check {
    weir_check_kind kind;
    unsigned line;         /* where it is defined, for messages */
    const char *dataset;   /* ROWS; METRICS (NULL = any dataset) */
    const char *topic;     /* ROWS of a Kafka topic (dataset NULL) */
    weir_trows rows;       /* ROWS */
    bool ordered;          /* ROWS: order matters */
    const char *sql;       /* EMPTY_QUERY */
    const char *expectation; /* METRICS: expectation name */
    long long passed, failed, dropped; /* METRICS: -1 = not checked */
    const char *error_class; /* ERROR */
    const char *error_contains; /* ERROR: text of the message, or NULL */
} weir_check;

typedef struct weir_step {
    weir_fixture *fixtures;
    size_t n_fixtures;
    const char **refresh, **full_refresh; /* NULL-free arrays */
    size_t n_refresh, n_full_refresh;
    bool full_refresh_all;
    weir_check *checks;
    size_t n_checks;
} weir_step;

typedef struct weir_test {
    const char *name;
    const char *path; /* relative to the spec's folder */
    const char *shown_path; /* as diagnostics name it (relative to the
                               current folder when below it) */
    unsigned line, column;
    weir_step *steps;
    size_t n_steps;
} weir_test;

/* define.c. Read every test file of tests_dir (absolute) into tests (an
 * arena array), keeping the tests matching filters; problems go to diags
 * (each with file:line:col) and return WEIR_ESPEC. rel_base is the folder
 * test paths are shown relative to. */
int weir__tests_load(weir_test **out, size_t *n_out, weir_arena *arena,
                     const char *tests_dir, const char *rel_base,
                     const char *const *filters, size_t n_filters,
                     weir__diags *diags, weir_error *err);

/* fixture.c. The folder a test's pipeline reads relative paths from:
 * root (created) mirrors project_dir with symbolic links, except the
 * paths the test's file fixtures name (and the folders above them),
 * which are real folders. */
int weir__fixture_overlay(const char *root, const char *project_dir,
                          const weir_test *t, weir_error *err);
/* Put fixture number `index` of step `step` (both 0-based) in place:
 * write its file under root, or create / fill its table through pipeline
 * p. `first` is true the first time the test names f's target. */
int weir__fixture_apply(weir_pipeline *p, const char *root,
                        const weir_fixture *f, size_t step, size_t index,
                        bool first, weir_error *err);
/* The columns a topic fixture's rows may have (NULL-terminated), and a
 * topic's messages as a Spark SQL relation (key and value as strings),
 * for expectations. */
extern const char *const weir__topic_columns[];
void weir__topic_relation(weir_buf *b, const char *topic);
/* The query giving the rows of a fixture read from a CSV or JSON file or
 * a query (source CSV, JSON or SQL). */
void weir__fixture_source_query(weir_buf *q, const weir_fixture *f);
/* topic.c. Append a topic fixture's rows to the test storage's local
 * topics (weir_run_options.local_kafka), offsets after the topic's last. */
int weir__fixture_topic(weir_pipeline *p, const weir_fixture *f,
                        weir_error *err);
/* A value as a Spark SQL literal. */
void weir__tvalue_put_sql(weir_buf *b, const weir_tvalue *v);

/* compare.c. Whether an expected YAML value matches a result's text
 * (NULL = SQL NULL): numbers compare as numbers, the rest as text. */
bool weir__tvalue_matches(const weir_tvalue *expected, const char *actual);
/* Compare expected rows with actual (text cells, NULL for SQL NULL, same
 * columns in the same order). Returns the number of differing rows (0 =
 * equal) and, when it is not 0, writes a diff to out: one line per
 * missing, unexpected or changed row. */
size_t weir__rows_diff(weir_buf *out, const weir_trows *expected,
                       const char *const *actual, size_t n_actual_rows,
                       bool ordered);

#endif
