/*
 * Streaming file sources (STREAM read_files / cloud_files), like Databricks
 * Auto Loader: discovering new files, the source's schema (inferred with
 * schemaHints, or given, stored with the checkpoint in _weir.file_schemas
 * and evolved by schemaEvolutionMode), rescued data for values that do not
 * fit, the _metadata column, and the DuckDB relation that reads a batch.
 * See docs/files.md.
 */
#ifndef WEIR_SOURCES_FILES_H
#define WEIR_SOURCES_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"

typedef enum weir_evolution {
    WEIR_EVOLVE_ADD_NEW_COLUMNS,
    WEIR_EVOLVE_RESCUE,
    WEIR_EVOLVE_FAIL_ON_NEW_COLUMNS,
    WEIR_EVOLVE_NONE
} weir_evolution;

/* The options of a read_files / cloud_files call. */
typedef struct weir_file_opts {
    const char *path;
    const char *format; /* json, csv, parquet, text */
    bool multiline;
    bool header;
    const char *sep, *quote, *escape, *null_value;
    bool recursive;
    const char *glob_filter; /* pathGlobFilter */
    const char *schema;      /* a Spark DDL column list, or NULL */
    const char *hints;       /* schemaHints */
    weir_evolution evolution;
    const char *rescued;     /* rescued data column, "" = none */
    const char *mode;        /* PERMISSIVE, FAILFAST, DROPMALFORMED */
    bool infer_types;
    bool evolution_set;      /* schemaEvolutionMode was given */
    bool allow_overwrites;   /* a changed ingested file is read again */
} weir_file_opts;

int weir__file_opts(weir_file_opts *out, const weir_sql_tvf *call,
                    weir_error *err);

/* Regular files of the source, sorted by path, each real file once (see
 * weir__fs_list); hidden files (leading '.' or '_') skipped. A path that
 * exists is literal; only one that does not is expanded as a glob.
 * Files whose names DuckDB cannot be given (weir__fs_unreadable_name) go
 * to *unreadable when it is not NULL (else they are dropped). *missing is
 * set when the path does not exist (yet). An object storage URL is listed
 * through conn (store/objects.h): a prefix's objects (below it too when
 * recursive), else the object it names, else a glob; an empty prefix is
 * *missing, as S3 has no folders. Objects come with their sizes and
 * times only when stat (a HEAD request each): without, their size and
 * mtime_us are 0, and weir__files_stat gets those a caller needs. */
int weir__files_list(weir_file_list *out, weir_file_list *unreadable,
                     bool *missing, weir_conn *conn, const char *root_dir,
                     const weir_file_opts *o, bool stat, weir_error *err);
/* The sizes and times of l's objects (those with want[i], every one when
 * want is NULL; local files are left as listed), through conn
 * (store/objects.h: an object deleted since it was listed fails the
 * statement). l is sorted by path. */
int weir__files_stat(weir_conn *conn, weir_file_list *l, const bool *want,
                     weir_error *err);

typedef struct weir_file_schema {
    weir_db_column *cols;
    size_t n;
    /* JSON files have keys the fast reader would drop: spellings of a
     * column's name in another case, "" or keys with a NUL (read with the
     * careful reader, which rescues them) */
    bool odd_keys;
} weir_file_schema;

/*
 * Schemas inferred during one update, so that resolution and the flow's
 * first batch sample the same files once (inference reads the sampled
 * files in full). Keyed by the inference query (format, options, files).
 * Thread-safe; owned by the caller of weir__infer_cache_new.
 */
typedef struct weir_infer_cache weir_infer_cache;
weir_infer_cache *weir__infer_cache_new(void);
void weir__infer_cache_free(weir_infer_cache *c);
/* The schema cached for this inference query, copied into arena a; false
 * when there is none (or c is NULL). */
bool weir__infer_cache_get(weir_infer_cache *c, const char *query,
                           weir_file_schema *out, weir_arena *a);
/* Remember s (copied) for query. */
void weir__infer_cache_put(weir_infer_cache *c, const char *query,
                           const weir_file_schema *s);

/* One batch of a file source, planned on the flow's connection. */
typedef struct weir_file_batch {
    weir_file_opts opts;
    weir_file_schema schema; /* what the batch reads, in arena */
    bool store_schema;       /* schema is new: store it with the checkpoint */
    int64_t schema_version;
    bool unknown_fields;     /* rescue mode met fields outside the schema */
    bool folder_missing;     /* the source path does not exist (yet) */
    weir_infer_cache *infer; /* borrowed, may be NULL */
    uint64_t max_record;     /* weir__files_max_record of the connection */
} weir_file_batch;

/*
 * Decide the schema of a batch reading `files` (n > 0): the stored one of
 * this flow, source and generation, else inferred (schemaHints applied) or
 * given; evolved as the options say. state_catalog holds the flow's
 * state (state/file_schemas.h).
 */
int weir__files_plan(weir_file_batch *b, weir_arena *a, weir_conn *conn,
                     const char *state_catalog, const char *flow,
                     int64_t generation, const char *source,
                     const char *const *files, size_t n, weir_error *err);

/* Only the stored schema (a batch without new files); *found says. */
int weir__files_plan_stored(weir_file_batch *b, weir_arena *a, weir_conn *conn,
                            const char *state_catalog, const char *flow,
                            int64_t generation, const char *source, bool *found,
                            weir_error *err);

/*
 * The DuckDB relation reading `files` with b->schema: the fast path (the
 * format's reader with explicit columns) or, with `careful`, the path that
 * rescues malformed records and values that do not fit into the rescued
 * data column. with_metadata adds the _metadata struct (file path, name,
 * size, modification time).
 */
int weir__files_render(weir_buf *out, const weir_file_batch *b,
                       const char *const *files, const uint64_t *sizes,
                       const int64_t *mtimes, size_t n, bool careful,
                       bool with_metadata, weir_error *err);

/* Rewrite a DuckDB CSV error in err (if it is one) to start with the
 * file and the line it is about, "path:line: ...", without the reader's
 * advice and options. */
void weir__files_explain_error(weir_error *err);
/* The same for an error reading files[0..n) (DuckDB's CSV sniffer does
 * not name the file). */
void weir__files_explain_error_in(weir_error *err, const char *const *files,
                                  size_t n);

/* An empty relation with the batch's schema (a source with no new file). */
void weir__files_empty_relation(weir_buf *out, const weir_file_batch *b,
                                bool with_metadata);

/*
 * The schema a streaming file source has for resolution (dry runs too):
 * the stored one when the storage has it (conn may be NULL), else inferred
 * from the files that exist now. An empty typed relation of it goes to out.
 */
int weir__files_analysis_relation(weir_buf *out, weir_conn *conn,
                                  const char *state_catalog, const char *flow,
                                  const char *source, const weir_sql_tvf *call,
                                  const char *root_dir, bool with_metadata,
                                  weir_infer_cache *infer, weir_error *err);

/* True when the query text mentions _metadata (the column is hidden from
 * SELECT * and only added when used). */
bool weir__query_uses_metadata(const weir_sql_query *q);

/* ---- shared by files_schema.c and files_render.c ---- */

/*
 * The longest CSV line or JSON record (in bytes) the readers of a run take:
 * DuckDB reserves buffers of twice this per reading thread (JSON) and per
 * open file (CSV), so it follows the run's memory budget,
 * memory_limit / (8 x threads), from 16 MB (DuckDB's least for JSON) to
 * 256 MB. conn NULL: 16 MB. See docs/files.md.
 */
uint64_t weir__files_max_record(const weir_conn *conn);

/* files as a DuckDB list of path literals (glob characters escaped). */
void weir__files_put_list(weir_buf *b, const char *const *files, size_t n);
/* The CSV options of o as DuckDB read_csv arguments (", header = ..."),
 * lines up to max_record bytes long (or up to the longest of files[0..n),
 * when each is shorter than that). */
void weir__files_csv_options(weir_buf *b, const weir_file_opts *o,
                             uint64_t max_record, const char *const *files,
                             size_t n);
/* The columns of fb's schema cast from text fields of the same names
 * (CAST when strict, else TRY_CAST), then, with a rescued data column, it:
 * values that do not fit, and the fields extra[0..n_extra) (read under
 * those names), with the file's path. Each item ends with ", ". */
void weir__files_csv_typed(weir_buf *b, const weir_file_batch *fb,
                           char *const *extra, size_t n_extra, bool strict);
/* " WHERE ..." leaving out the blank lines of a CSV relation with s's
 * columns. */
void weir__files_csv_skip_blank(weir_buf *b, const weir_file_schema *s);

/*
 * CSV files with a header, split by how they are read (files_csv.c): those
 * whose header is the schema's first columns in order by position, the
 * others by name. The lists point into the caller's files; names: the
 * header names of the by-name files, once each (case-insensitively).
 */
typedef struct weir_csv_split {
    const char **in_order;
    size_t n_in;
    const char **by_name;
    size_t n_by;
    char **names;
    size_t n_names;
} weir_csv_split;

/* Whether DuckDB decompresses the file (it goes by the name: .gz, .gzip,
 * .zst): its bytes are then not its text, so neither its size bounds its
 * records nor its first bytes are its header. */
bool weir__files_compressed(const char *path);

/* Read the header of each file (b->opts.header; else all are in order).
 * 0 or WEIR_ENOMEM; free sp with weir__files_csv_split_free. */
int weir__files_csv_split(weir_csv_split *sp, const weir_file_batch *b,
                          const char *const *files, size_t n, weir_error *err);
void weir__files_csv_split_free(weir_csv_split *sp);
/* The relation reading sp's by-name files with fb's schema: fields as
 * text under their header's names, cast to the columns; values that do not
 * fit and fields the schema lacks go to the rescued data column. */
void weir__files_render_csv_by_name(weir_buf *b, const weir_file_batch *fb,
                                    const weir_csv_split *sp);
/* ", max_line_size = ..., buffer_size = ..." of a read_csv call reading
 * lines up to max_record bytes long. */
void weir__files_csv_line_size(weir_buf *b, uint64_t max_record,
                               const char *const *files, size_t n);

#endif
