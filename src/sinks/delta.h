/*
 * Private to the Delta Lake sink (delta.c, delta_log.c, delta_schema.c):
 * Delta data types and schemas (parsed from DuckDB type text or from a
 * table's schemaString, rendered back as Delta JSON or DuckDB types,
 * merged for additive schema changes) and the transaction log (replay of
 * _delta_log JSON commits, create-exclusive commits).
 */
#ifndef WEIR_SINKS_DELTA_H
#define WEIR_SINKS_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json.h"
#include "util/map.h"
#include "util/vec.h"

/* ---- types and schemas (delta_schema.c) ------------------------------- */

typedef enum weir_dtype_kind {
    WEIR_DT_PRIM,    /* name: boolean, byte, short, integer, long, float,
                        double, string, binary, date, timestamp,
                        timestamp_ntz */
    WEIR_DT_DECIMAL, /* precision, scale */
    WEIR_DT_ARRAY,   /* elem */
    WEIR_DT_MAP,     /* key, value */
    WEIR_DT_STRUCT,  /* fields */
    WEIR_DT_VOID     /* DuckDB's NULL type: fits any column */
} weir_dtype_kind;

typedef struct weir_dtype weir_dtype;

typedef struct weir_dfield {
    const char *name;
    weir_dtype *type;
    bool nullable;
    const char *metadata; /* JSON object text, "{}" when none */
} weir_dfield;

struct weir_dtype {
    weir_dtype_kind kind;
    const char *name;
    int precision, scale;
    weir_dtype *elem, *key, *value;
    bool contains_null; /* ARRAY: containsNull, MAP: valueContainsNull */
    weir_dfield *fields;
    size_t n_fields;
};

typedef struct weir_dschema {
    weir_dfield *fields;
    size_t n;
} weir_dschema;

/* The Delta type of a DuckDB type text (as weir's store renders it, e.g.
 * STRUCT("a" INTEGER, "b" VARCHAR[])). Types Delta has no equivalent for
 * (TIME, INTERVAL, UNION, ...) are DELTA_UNSUPPORTED_DATA_TYPE errors. */
int weir__delta_type_from_duckdb(weir_dtype **out, weir_arena *a,
                                 const char *duck, weir_error *err);
/* Parse a metaData.schemaString. */
int weir__delta_schema_parse(weir_dschema *out, weir_arena *a,
                             const char *schema_string, weir_error *err);
/* Render a schema as schemaString JSON. */
void weir__delta_schema_render(weir_buf *out, const weir_dschema *s);
/* The DuckDB type of a Delta type: physical = as stored in Parquet
 * (timestamp is TIMESTAMP WITH TIME ZONE), else as weir shows it
 * (timestamp is TIMESTAMP, in UTC). VOID renders as VARCHAR. */
void weir__delta_type_duckdb(weir_buf *out, const weir_dtype *t,
                             bool physical);
bool weir__delta_type_eq(const weir_dtype *a, const weir_dtype *b);
/* Index of the field named name (case-insensitive), or -1. */
int weir__delta_schema_find(const weir_dschema *s, const char *name);

/* The table's schema after appending rows of schema `batch`: the table's
 * fields in order, then the batch's new fields (an error unless
 * allow_new). A batch field whose values fit the table's type without
 * loss (narrower integers, decimals, float into double, VOID) takes the
 * table's type; any other type is DELTA_FAILED_TO_MERGE_FIELDS. New VOID
 * fields become strings. *added
 * counts the new fields. `table` may be empty (a new table). */
int weir__delta_schema_merge(weir_dschema *out, size_t *added, weir_arena *a,
                             const weir_dschema *table,
                             const weir_dschema *batch, bool allow_new,
                             weir_error *err);

/* ---- the log (delta_log.c) -------------------------------------------- */

typedef struct weir_delta_add {
    const char *path;        /* as in the log (a relative URI or absolute) */
    const char *file;        /* the file's absolute path, decoded */
    const weir_json *values; /* partitionValues (an object) or NULL */
    int64_t size;
    int64_t version;         /* the commit that added it */
    bool data_change;        /* its dataChange flag (true when absent) */
} weir_delta_add;

/* A remove action with dataChange: a commit that changed or deleted rows
 * (what a streaming reader of the table cannot follow). */
typedef struct weir_delta_removal {
    int64_t version;
    const char *path; /* as in the log */
} weir_delta_removal;

typedef struct weir_delta_log {
    weir_arena arena;
    const char *table;         /* absolute folder */
    int64_t version;           /* latest commit; -1 = no table yet */
    const weir_json *protocol; /* latest protocol action, or NULL */
    const weir_json *metadata; /* latest metaData action, or NULL */
    weir_dschema schema;
    const char **partition_cols;
    size_t n_partition_cols;
    weir_map files; /* decoded path -> weir_delta_add*, NULL once removed */
    weir_map txns;  /* appId -> int64_t* (latest version) */
    WEIR_VEC(weir_delta_add *) adds;        /* every add, in log order */
    WEIR_VEC(weir_delta_removal) removals;  /* every data-changing remove */
    WEIR_VEC(int64_t) add_versions; /* versions with a data-changing add
                                       (ascending, each once) */
} weir_delta_log;

/* Replay the JSON commits of table/_delta_log. A missing or empty log is
 * version -1. Checkpoints (a _last_checkpoint file) and logs that do not
 * start at version 0 are DELTA_CHECKPOINT_NOT_SUPPORTED. */
int weir__delta_log_read(weir_delta_log *out, const char *table,
                         weir_error *err);
void weir__delta_log_free(weir_delta_log *l);
/* Whether weir can read (and, when writing, append to) the table given
 * its protocol. */
int weir__delta_log_check(const weir_delta_log *l, bool writing,
                          weir_error *err);
/* The latest txn version of app_id, or -1. */
int64_t weir__delta_log_txn(const weir_delta_log *l, const char *app_id);
/* Whether some commit added the file at path (relative to the table,
 * decoded), even if a later one removed it. */
bool weir__delta_log_added(const weir_delta_log *l, const char *path);
/* Active data files, sorted by path (arena-owned array). */
int weir__delta_log_active(const weir_delta_log *l, weir_delta_add ***out,
                           size_t *n_out, weir_arena *a, weir_error *err);
/* Whether commit `version` added data (an add with dataChange). */
bool weir__delta_log_version_adds(const weir_delta_log *l, int64_t version);
/* A read of the given data files of l (a parenthesized SELECT with l's
 * latest schema, partition values from the log; no rows when n is 0). */
int weir__delta_render_files(weir_buf *out, const weir_delta_log *l,
                             weir_delta_add **files, size_t n,
                             weir_error *err);
/* Write commit `version` (newline-separated actions) create-exclusive:
 * WEIR_EEXISTS when another writer took that version. */
int weir__delta_log_commit(const char *table, int64_t version,
                           const char *actions, size_t len, weir_error *err);

/* remove actions for every active file of l (delta_dataset.c). */
int weir__delta_put_removes(weir_buf *c, const weir_delta_log *l,
                            int64_t now_ms, weir_arena *a, weir_error *err);

/* A metaData action (one line) for schema and partition columns, keeping
 * the id, name, description, format, configuration and creation time of
 * l's latest metaData when there is one (delta.c). */
void weir__delta_put_metadata(weir_buf *c, const weir_delta_log *l,
                              const weir_dschema *schema,
                              const char *const *parts, size_t n_parts,
                              int64_t now_ms);

#endif
