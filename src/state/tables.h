/*
 * What weir recorded of the pipeline's tables: _weir.tables in each
 * catalog, one row per table weir created (its name, kind, epoch, table
 * properties, comment, format, partitioning and clustering as of the last
 * update that materialized it). The epoch counts the changes of a table
 * that are not appends (full refresh, recomputation, recreation):
 * streaming readers read it whole again when it moved (sources/table.c).
 * A dataset's row lives in its own catalog, under its display name.
 */
#ifndef WEIR_STATE_TABLES_H
#define WEIR_STATE_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "store/storage.h"
#include "util/arena.h"
#include "util/map.h"

/* One table's row. */
typedef struct weir_table_record {
    int64_t epoch;
    const char *kind;       /* weir__kind_name() of the dataset then */
    const char *partitions; /* partition columns, comma-separated */
    const char *signature;  /* the row's content (weir__tables_put) */
    const char *format;     /* as declared then; "duckdb" when none */
} weir_table_record;

/* The rows of every catalog attached to st, by display name. */
typedef struct weir_table_records {
    weir_arena arena;
    weir_map by_name; /* display name -> weir_table_record */
    weir_rows *rows;
} weir_table_records;

/* Read them all (one query). Free with weir__tables_free, also after a
 * failure. */
int weir__tables_load(weir_table_records *out, weir_storage *st,
                      weir_error *err);
/* d's row, or NULL (borrowed from r). */
const weir_table_record *weir__tables_get(const weir_table_records *r,
                                          const weir_gdataset *d);
void weir__tables_free(weir_table_records *r);

/* Append d's partition columns as a row spells them (comma-separated). */
void weir__tables_put_partitions(weir_buf *b, const weir_gdataset *d);

/* Append "; ..." statements that make d's row say its definition now, at
 * epoch: none when old (d's row, may be NULL) says so already. */
void weir__tables_put(weir_buf *b, const weir_gdataset *d, int64_t epoch,
                      const weir_table_record *old, const char *update_id);

/* Append "; DELETE ..." of d's row (its name matched case-insensitively,
 * as DuckDB matches names). */
void weir__tables_put_forget(weir_buf *b, const weir_gdataset *d);

/* The kind of the row recorded under d's name (case-insensitively),
 * malloc'd in *kind, NULL when there is none; *resettable: its table
 * property pipelines.reset.allowed is not false. */
int weir__tables_recorded_kind(weir_conn *c, const weir_gdataset *d,
                               char **kind, bool *resettable, weir_error *err);

/* d's epoch (0 when it has no row). */
int weir__tables_epoch(weir_conn *c, const weir_gdataset *d, int64_t *out,
                       weir_error *err);
/* A new epoch for d, in the caller's transaction. */
int weir__tables_bump_epoch(weir_conn *c, const weir_gdataset *d,
                            weir_error *err);

/* For the query guard: the kind of the table the pipeline manages at
 * schema.table of the attached catalog alias (or " (its quarantine
 * table)" after the kind of the table whose quarantine table it is),
 * malloc'd in *kind, NULL when none. */
int weir__tables_managed_kind(weir_conn *c, const char *alias,
                              const char *schema, const char *table,
                              char **kind, weir_error *err);
/* The first name (display) of a table the pipeline manages in schema of
 * the attached catalog alias, malloc'd in *name, NULL when none. */
int weir__tables_managed_in_schema(weir_conn *c, const char *alias,
                                   const char *schema, char **name,
                                   weir_error *err);

#endif
