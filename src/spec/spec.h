/*
 * The pipeline spec: spark-pipeline.yml / .yaml, read with libyaml into an
 * arena-owned, validated structure that keeps the line and column of every
 * field, and the expansion of its `libraries` globs into the list of files
 * to register. Rules and error classes follow Apache Spark's CLI
 * (docs: ../../docs/spec.md).
 */
#ifndef WEIR_SPEC_H
#define WEIR_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/error.h"

/* A position in the spec file (1-based; 0 when unknown). */
typedef struct weir_spec_pos {
    unsigned line, column;
} weir_spec_pos;

typedef struct weir_spec_conf {
    const char *key;
    const char *value;
    weir_spec_pos pos;
} weir_spec_conf;

typedef struct weir_spec_library {
    const char *include; /* the pattern as written */
    weir_spec_pos pos;
} weir_spec_library;

/* Expectations declared in the spec for a dataset (see docs/spec.md). */
typedef struct weir_spec_expectation {
    const char *dataset;   /* dataset name as written (1 to 3 parts) */
    const char *name;
    const char *condition; /* Spark SQL boolean expression */
    const char *action;    /* "warn", "drop", "fail" or "quarantine" */
    weir_spec_pos pos;
} weir_spec_expectation;

typedef struct weir_spec {
    weir_arena arena; /* owns everything below */
    const char *path; /* absolute path of the spec file */
    const char *dir;  /* absolute folder of the spec file */
    const char *text; /* the file's text (for error snippets) */
    size_t text_len;

    const char *name;
    weir_spec_pos name_pos;
    const char *storage;     /* absolute local path (file:// removed) */
    const char *storage_uri; /* as written */
    weir_spec_pos storage_pos;
    const char *catalog;  /* NULL when absent */
    const char *database; /* `database`, else `schema`; NULL when absent */

    weir_spec_conf *conf;
    size_t n_conf;
    weir_spec_library *libraries;
    size_t n_libraries;
    weir_spec_expectation *expectations;
    size_t n_expectations;
} weir_spec;

/*
 * Find the spec file: in start_dir, then each parent folder, the first one
 * holding spark-pipeline.yml or spark-pipeline.yaml. *out is malloc'd.
 * Errors (class in err->error_class): PIPELINE_SPEC_FILE_NOT_FOUND,
 * MULTIPLE_PIPELINE_SPEC_FILES_FOUND.
 */
int weir__spec_find(char **out, const char *start_dir, weir_error *err);

/*
 * Load and validate the spec at path. On success *out is owned by the
 * caller (weir__spec_free). Every independent problem is appended to diags
 * with its class and file:line:col; the return value is then WEIR_ESPEC
 * (WEIR_ENOTFOUND / WEIR_EIO when the file cannot be read, with err set).
 */
int weir__spec_load(weir_spec **out, const char *path, weir__diags *diags,
                    weir_error *err);

/* The same from text already in memory (used by the fuzz target). */
int weir__spec_parse(weir_spec **out, const char *path, const char *text,
                     size_t len, weir__diags *diags, weir_error *err);

void weir__spec_free(weir_spec *spec);

typedef struct weir_spec_file {
    const char *path;     /* absolute */
    const char *rel_path; /* relative to the spec folder */
    const weir_spec_library *library; /* the entry that matched it */
} weir_spec_file;

/*
 * Expand the libraries into files, in the order Spark would register them
 * (entry by entry; files of one entry sorted by path). Hidden files and
 * __pycache__ are skipped. Files are arena-allocated in spec->arena.
 * Errors: PIPELINE_SPEC_INVALID_GLOB_PATTERN,
 * PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION (added to diags;
 * returns WEIR_ESPEC).
 */
int weir__spec_library_files(weir_spec_file **out, size_t *n_out,
                             weir_spec *spec, weir__diags *diags,
                             weir_error *err);

#endif
