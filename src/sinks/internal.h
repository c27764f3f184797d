/*
 * Private to src/sinks: the formats the registry lists, helpers the
 * formats share (option checks, deterministic batch file names, durable
 * file moves, JSON output, percent coding) and the folder-of-files
 * machinery behind the parquet, json and csv sinks (folder.c).
 */
#ifndef WEIR_SINKS_INTERNAL_H
#define WEIR_SINKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinks/sink.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/json.h"

extern const weir_sink_format weir__sink_csv;
extern const weir_sink_format weir__sink_delta;
extern const weir_sink_format weir__sink_json;
extern const weir_sink_format weir__sink_kafka;
extern const weir_sink_format weir__sink_parquet;

/* ---- options (files.c) ------------------------------------------------- */

/* Every option key is in known (NULL-terminated, case-insensitive) and
 * `path` is present and not empty; otherwise an error with a Spark-style
 * class naming the option. */
int weir__sink_check_keys(const weir_kv *options, size_t n,
                          const char *format, const char *const *known,
                          weir_error *err);
/* The option, when present, is one of values (case-insensitive). */
int weir__sink_check_choice(const weir_kv *options, size_t n,
                            const char *key, const char *const *values,
                            weir_error *err);
/* The option, when present, is "true" or "false". *out keeps its value
 * when the option is absent. */
int weir__sink_option_bool(const weir_kv *options, size_t n,
                           const char *key, bool *out, weir_error *err);
/* partitionBy: "a, b" or a JSON array ["a","b"] (Spark's encoding);
 * backquotes around names are dropped. *n_out is 0 when absent. */
int weir__sink_partition_cols(const char ***out, size_t *n_out,
                              weir_arena *arena, const weir_kv *options,
                              size_t n, weir_error *err);

/* partitionBy names columns the sink's flows write, and not all of them
 * (the folder formats' check_columns). */
int weir__sink_check_columns(const weir_kv *options, size_t n,
                             const weir_column *columns, size_t n_columns,
                             weir_error *err);

/* ---- names and paths (files.c) ----------------------------------------- */

/* The sink's `path` option made absolute against b->root_dir (malloc'd);
 * with b->redirect_root, the path's parts below that folder instead. */
int weir__sink_target(char **out, const weir_sink_batch *b, weir_error *err);
/* The deterministic name prefix of a batch's files:
 * part-<16 hex of a hash of the staging folder and the state id>-
 * g<generation>-b<batch>. Unique per storage, flow, generation and batch,
 * and across recreations of the storage (a new state id). */
void weir__sink_prefix(char *out, size_t size, const weir_sink_batch *b);
/* A path below stage_dir for this batch with the given suffix, e.g.
 * <stage_dir>/g0-b3<suffix>. */
void weir__sink_stage_path(char *out, size_t size, const weir_sink_batch *b,
                           const char *suffix);

/* ---- durable files (files.c) ------------------------------------------- */

/* fsync a regular file. */
int weir__sink_sync_file(const char *path, weir_error *err);
/* Move src to dst durably: rename, or (across file systems) copy to a
 * hidden temporary name in dst's folder, fsync, rename. Idempotent: when
 * dst already exists with src's exact contents (an interrupted copy), src
 * is only removed; other contents are SINK_FILE_CONFLICT; a missing src
 * with an existing dst is success. dst's folder is created; the caller
 * fsyncs it. */
int weir__sink_move(const char *src, const char *dst, weir_error *err);
/* fsync dir and each parent up to and including top (after creating
 * folders or moving files into them). */
int weir__sink_sync_up(const char *dir, const char *top, weir_error *err);
/* Remove a file; missing is fine. */
int weir__sink_unlink(const char *path, weir_error *err);

/* ---- text (files.c) ------------------------------------------------------ */

/* Write a parsed JSON value back as compact JSON. */
void weir__sink_json_write(weir_buf *out, const weir_json *j);
/* Percent-encode a relative path for a URI (Delta's add.path): unreserved
 * characters, '/' and '=' stay. */
void weir__sink_put_uri_path(weir_buf *out, const char *path);
/* Decode %XX escapes into out; false on a malformed escape. */
bool weir__sink_percent_decode(weir_buf *out, const char *s, size_t len);

/* ---- folders of files: parquet, json, csv (folder.c) -------------------- */

typedef struct weir_folder_format {
    const char *name;            /* "parquet" */
    const char *duck_format;     /* COPY ... (FORMAT <this>) */
    const char *const *options;  /* known keys, NULL-terminated */
    /* Check option values beyond the keys; NULL = nothing more. */
    int (*check)(const weir_kv *options, size_t n, weir_error *err);
    /* Append ", KEY value" COPY options for the format's own options. */
    void (*copy_options)(weir_buf *out, const weir_kv *options,
                         size_t n);
    /* The file name extension, e.g. ".csv.gz". */
    const char *(*extension)(const weir_kv *options, size_t n);
} weir_folder_format;

int weir__folder_validate(const weir_folder_format *f,
                          const weir_kv *options, size_t n,
                          weir_error *err);
int weir__folder_stage(const weir_folder_format *f, weir_conn *conn,
                       const weir_sink_batch *b, const char *sql,
                       int64_t *rows, weir_error *err);
int weir__folder_publish(const weir_folder_format *f, const weir_sink_batch *b,
                         weir_error *err);
int weir__folder_discard(const weir_sink_batch *b, weir_error *err);

/* The compression option mapped to DuckDB's name ("none" and
 * "uncompressed" become "uncompressed"), or NULL when absent. */
const char *weir__sink_compression(const weir_kv *options, size_t n);

#endif
