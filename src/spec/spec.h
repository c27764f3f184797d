/*
 * The pipeline spec: spark-pipeline.yml / .yaml, read with libyaml into an
 * arena-owned, validated structure that keeps the line and column of every
 * field, and the expansion of its `libraries` globs into the list of files
 * to register. Rules and error classes follow Apache Spark's CLI; weir adds
 * an `expectations` field (docs: ../../docs/spec.md).
 */
#ifndef WEIR_SPEC_H
#define WEIR_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/error.h"

/* The two file names searched, in Spark's order. */
#define WEIR_SPEC_FILE_YAML "spark-pipeline.yaml"
#define WEIR_SPEC_FILE_YML  "spark-pipeline.yml"

/* At most this many problems are recorded per call; one more entry then
 * says the list was cut (class PIPELINE_SPEC_TOO_MANY_ERRORS). */
#define WEIR_SPEC_MAX_PROBLEMS 100

/* A position in the spec file (1-based; 0 when unknown). */
typedef struct weir_spec_pos {
    unsigned line, column;
} weir_spec_pos;

typedef struct weir_spec_conf {
    const char *key;
    const char *value;
    weir_spec_pos pos;       /* of the key */
    weir_spec_pos value_pos; /* of the value */
} weir_spec_conf;

typedef struct weir_spec_library {
    const char *include; /* the pattern as written */
    const char *pattern; /* as evaluated: a folder pattern gets a last
                            part `*` (Spark's rewrite), a literal path
                            stays as written */
    bool recursive;      /* a folder pattern (folder, slash, `**`): every
                            file under the folder */
    size_t matched;      /* files matched by the last
                            weir__spec_library_files (Spark logs "Found <n>
                            files matching glob '<pattern>'") */
    weir_spec_pos pos;   /* of the include value */
} weir_spec_library;

/* Expectations declared in the spec for a dataset (see docs/spec.md). */
typedef struct weir_spec_expectation {
    const char *dataset;   /* dataset name as written (1 to 3 parts) */
    const char *name;
    const char *condition; /* Spark SQL boolean expression */
    const char *action;    /* "warn", "drop", "fail" or "quarantine" */
    weir_expectation_action on_violation; /* the same as an enum */
    weir_spec_pos pos;           /* of the list item */
    weir_spec_pos dataset_pos;   /* of the dataset key */
    weir_spec_pos condition_pos; /* of the `expect` value */
} weir_spec_expectation;

typedef struct weir_spec {
    weir_arena arena; /* owns everything below */
    const char *path; /* absolute path of the spec file */
    const char *dir;  /* absolute folder of the spec file (symlinks
                         resolved when it exists, as Spark does) */
    const char *text; /* the file's text (for error snippets) */
    size_t text_len;

    const char *name;
    weir_spec_pos name_pos;
    const char *storage;     /* absolute local path (file:// removed) */
    const char *storage_uri; /* as written */
    weir_spec_pos storage_pos;
    /* The file storage_pos is in when an environment set the storage (its
     * path and text), else NULL: the spec. */
    const char *storage_file, *storage_file_text;
    size_t storage_file_len;
    const char *catalog;  /* NULL when absent */
    weir_spec_pos catalog_pos;
    const char *database; /* `database`, else `schema`; NULL when absent */
    weir_spec_pos database_pos;

    weir_spec_conf *conf; /* in file order */
    size_t n_conf;
    weir_spec_library *libraries;
    size_t n_libraries;
    weir_spec_expectation *expectations; /* in file order */
    size_t n_expectations;
} weir_spec;

/*
 * Find the spec file: in start_dir (NULL = the current directory), then
 * each parent folder, the first one holding spark-pipeline.yml or
 * spark-pipeline.yaml. *out is malloc'd and absolute.
 * Errors (class in err->error_class): PIPELINE_SPEC_FILE_NOT_FOUND
 * (WEIR_ENOTFOUND), MULTIPLE_PIPELINE_SPEC_FILES_FOUND (WEIR_ESPEC),
 * WEIR_ENOMEM.
 */
int weir__spec_find(char **out, const char *start_dir, weir_error *err);

/*
 * Check a spec path given explicitly (`--spec`): it must name an existing
 * regular file. Errors: PIPELINE_SPEC_FILE_DOES_NOT_EXIST (WEIR_ENOTFOUND).
 */
int weir__spec_check_path(const char *path, weir_error *err);

/*
 * Load and validate the spec at path. On success *out is owned by the
 * caller (weir__spec_free); on failure *out is NULL. Every independent
 * problem is appended to diags (may be NULL) with its class and
 * file:line:col, err receives the first one, and the return value is
 * WEIR_ESPEC. A path that is not a regular file is WEIR_ENOTFOUND
 * (PIPELINE_SPEC_FILE_DOES_NOT_EXIST), an unreadable one WEIR_EIO; those
 * set err only.
 */
int weir__spec_load(weir_spec **out, const char *path, weir__diags *diags,
                    weir_error *err);

/* The environments file, beside the spec (docs/testing.md). */
#define WEIR_ENV_FILE "weir-environments.yml"

/*
 * Apply the environment named name from the environments file in
 * spec->dir: its storage, catalog, database (or schema) replace the
 * spec's, its configuration is merged over the spec's (same key: the
 * environment wins). Problems are reported as by weir__spec_load, with
 * positions in the environments file: ENVIRONMENTS_FILE_NOT_FOUND,
 * UNKNOWN_ENVIRONMENT, PIPELINE_SPEC_YAML_ERROR, field errors. Returns 0,
 * WEIR_ESPEC or WEIR_ENOMEM.
 */
int weir__spec_apply_environment(weir_spec *spec, const char *name,
                                 weir__diags *diags, weir_error *err);

/*
 * Set one configuration key (a `--conf key=value` override): replaces the
 * value of an existing key, else appends. The pair is checked as a spec's
 * `configuration` entry is; a problem (no position) is WEIR_ESPEC.
 */
int weir__spec_set_conf(weir_spec *spec, const char *key, const char *value,
                        weir__diags *diags, weir_error *err);

/* False when the configuration sets spark.sql.variable.substitute=false. */
bool weir__spec_substitution_on(const weir_spec_conf *conf, size_t n);

/*
 * Substitute `${key}` (and `${spark:key}`, `${sparkconf:key}`,
 * `${hiveconf:key}`, `${hivevar:key}`) in text with the values of conf
 * (the last entry of a key wins), textually over the whole text. *out is
 * malloc'd and NUL-terminated. An unbound variable is UNBOUND_SQL_VARIABLE
 * (WEIR_ESQL) at the `$`'s position in file, every one appended to diags.
 * Returns 0, WEIR_ESQL or WEIR_ENOMEM.
 */
int weir__spec_substitute(char **out, size_t *out_len, const char *text,
                          size_t len, const weir_spec_conf *conf, size_t n,
                          const char *file, weir__diags *diags,
                          weir_error *err);

/* The same from text already in memory (used by the fuzz target). path
 * names the file the text came from (relative paths resolve against the
 * current directory); text need not be NUL-terminated. */
int weir__spec_parse(weir_spec **out, const char *path, const char *text,
                     size_t len, weir__diags *diags, weir_error *err);

/* NULL is a no-op. */
void weir__spec_free(weir_spec *spec);

/*
 * Append to out what open-source Apache Spark 4.1 refuses in the spec
 * (docs/spark.md): a storage that is not an absolute URI with a scheme,
 * the `expectations` field. Strings live in arena. 0 or WEIR_ENOMEM.
 */
int weir__spec_spark_findings(weir__findings *out, weir_arena *arena,
                              const weir_spec *spec);

/*
 * Check one configuration entry against the keys weir reads (its own
 * `weir.duckdb.*` and the Spark keys it acts on, docs/spec.md): 0 when
 * fine (or a key weir does not read), 1 for a bad value, 2 for an unknown
 * weir.duckdb key; then why (n bytes) says what is accepted. The spec
 * loader, SQL files' SET, the graph (a flow's conf), weir_pipeline_create
 * and weir_session_open all use it.
 */
int weir__spec_check_setting(const char *key, const char *value, char *why,
                             size_t n);

/* Bounds of the whole-number settings (counts of flows and retries, of
 * rows). */
#define WEIR_SETTING_MAX_COUNT 999999LL
#define WEIR_SETTING_MAX_ROWS 1000000000000000000LL
/* The value parsers of those settings, for the code that reads them: a
 * duration in seconds ("5s", "100ms", "2m", "1h", a number of seconds); a
 * whole number from 0 to max. False when v is not one. */
bool weir__spec_setting_seconds(const char *v, double *out);
bool weir__spec_setting_count(const char *v, long long max, long long *out);

typedef struct weir_spec_file {
    const char *path;     /* absolute, normalised */
    const char *rel_path; /* relative to the spec folder, as Spark sends it
                             (`.` parts dropped, `..` kept) */
    const weir_spec_library *library; /* the entry that matched it */
} weir_spec_file;

/*
 * Expand the libraries into files, in the order weir registers them
 * (entry by entry; files of one entry sorted by rel_path). A file matched
 * by two entries is listed twice. Hidden files and folders (leading `.`)
 * below a folder pattern and anything under `__pycache__` are skipped;
 * symlinked folders are not descended into. A literal path that does not
 * name a regular file matches nothing (not an error). Sets each library's
 * `matched`. The array lives in spec->arena. Problems (added to diags, return WEIR_ESPEC, *out
 * NULL): PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION for anything but
 * `.sql` and `.py` (Python files are listed; the caller decides what to do
 * with them).
 * (Glob patterns were validated by weir__spec_parse.)
 */
int weir__spec_library_files(weir_spec_file **out, size_t *n_out,
                             weir_spec *spec, weir__diags *diags,
                             weir_error *err);

#endif
