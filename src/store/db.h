/*
 * The DuckDB boundary: opening an engine instance (in memory, with the
 * storage's DuckDB files attached), connections, statements and results.
 * Every DuckDB failure becomes a weir_error with code WEIR_EENGINE and
 * DuckDB's message. Together with src/sql's tests this is the only code
 * that includes duckdb.h.
 */
#ifndef WEIR_STORE_DB_H
#define WEIR_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/kv.h"
#include "util/map.h"

/* The schema of weir's state tables in every catalog (src/state), whose
 * statements share the gate (weir__conn_exec_alone). */
#define WEIR_META_SCHEMA "_weir"

typedef struct weir_db weir_db;
typedef struct weir_conn weir_conn;

typedef struct weir_db_config {
    unsigned threads;         /* 0 = DuckDB's default */
    const char *memory_limit; /* NULL = DuckDB's default */
    const char *temp_dir;     /* spill folder; NULL = DuckDB's default */
    bool lazy_macros;         /* create weir's Spark macros on first use,
                                 per connection (store/macros.c) */
    /* The pipeline configuration: its weir.duckdb.threads and
     * weir.duckdb.memory_limit override the two fields above; its object
     * storage settings (spark.hadoop.fs.s3a.*: store/credentials.h) are
     * copied, the secrets created when a statement first names an s3://
     * URL. */
    const weir_kv *conf;
    size_t n_conf;
} weir_db_config;

/* An in-memory DuckDB instance; storage files are attached separately. */
int weir__db_open(weir_db **out, const weir_db_config *cfg, weir_error *err);
void weir__db_close(weir_db *db);
/* Close without DuckDB's checkpoint of the attached files: for an
 * instance whose commit failed to write (storage.c), whose files are left
 * as they are on disk for the next open to replay. */
void weir__db_close_as_is(weir_db *db);
/* Apply cfg's threads, memory limit and object storage settings (those
 * set) to an open instance, as weir__db_open would have; temp_dir is left
 * as it is. */
int weir__db_configure(weir_db *db, const weir_db_config *cfg,
                       weir_error *err);

/* A connection. weir's session setup (Spark null ordering, UTC, the Spark
 * function macros in memory.main) is instance-wide, done by
 * weir__db_open. One connection per thread. */
int weir__db_connect(weir_conn **out, weir_db *db, weir_error *err);
void weir__conn_close(weir_conn *c);

/* The memory limit (bytes) and threads DuckDB runs with, as configured
 * or DuckDB's defaults, read back when the instance was opened or last
 * configured; 0 when DuckDB did not say. */
void weir__conn_budget(const weir_conn *c, uint64_t *memory_limit,
                       unsigned *threads);

/* How many SQL texts c has handed to DuckDB to parse and plan so far
 * (queries, prepares, transactions); weir's fixed cost per flow is
 * largely this count, which tests can hold steady. */
uint64_t weir__conn_statements(const weir_conn *c);
/* The error message of c's last failed statement ("" if none yet); owned
 * by c, valid until its next statement fails or c is closed. */
const char *weir__conn_last_failure(const weir_conn *c);

/* Run SQL (one or more statements) and discard results. rows_changed (may
 * be NULL) receives the count of the last statement. */
int weir__conn_exec(weir_conn *c, const char *sql, int64_t *rows_changed,
                    weir_error *err);
/* Run SQL with no statement naming WEIR_META_SCHEMA running on another
 * connection of c's instance: for statements that commit (db.c, the
 * gate). */
int weir__conn_exec_alone(weir_conn *c, const char *sql, weir_error *err);

/* A fully materialised result, values as text (NULL for SQL NULL). */
typedef struct weir_rows {
    weir_arena arena;
    size_t n_cols, n_rows;
    const char **names;
    const char **types;    /* DuckDB type text, e.g. "BIGINT", "VARCHAR[]" */
    bool *numeric;          /* numbers and booleans */
    const char **values;   /* n_rows * n_cols, row-major */
    int statement_type;    /* DuckDB statement type */
    int64_t rows_changed;
} weir_rows;

/* Run SQL and collect the last statement's result. */
int weir__conn_query(weir_conn *c, const char *sql, weir_rows **out,
                     weir_error *err);
void weir__rows_free(weir_rows *rows);
static inline const char *weir__rows_get(const weir_rows *r, size_t row,
                                         size_t col)
{
    return r->values[row * r->n_cols + col];
}

/* The single value of a one-row, one-column query. *is_null (may be NULL)
 * tells NULL apart; a query returning no row counts as NULL. */
int weir__conn_scalar_i64(weir_conn *c, const char *sql, int64_t *out,
                          bool *is_null, weir_error *err);
int weir__conn_scalar_text(weir_conn *c, const char *sql, char **out,
                           weir_error *err); /* *out malloc'd or NULL */

/* weir__conn_exec, _query and _scalar_i64 of a statement built in sql:
 * a buffer that ran out of memory is WEIR_ENOMEM, not a statement. */
int weir__exec_buf(weir_conn *c, weir_buf *sql, weir_error *err);
int weir__query_buf(weir_conn *c, weir_buf *sql, weir_rows **out,
                    weir_error *err);
int weir__scalar_buf(weir_conn *c, weir_buf *sql, int64_t *out, bool *null,
                     weir_error *err);

/* Output columns of a query without running it. */
typedef struct weir_db_column {
    const char *name;
    const char *type; /* DuckDB type text */
} weir_db_column;

int weir__conn_describe(weir_conn *c, const char *sql, weir_db_column **out,
                        size_t *n_out, weir_arena *arena, weir_error *err);
/* The columns of table (or view) catalog.schema.table (DuckDB names,
 * unquoted: the attached database's alias) by binding a query of it:
 * *exists is false, with no columns and no error, when there is no such
 * table (or catalog or schema). With view not NULL, what exists and is
 * not a table (a view) sets *exists and *view and has no columns (it is
 * not bound); with view NULL, a view's columns are given. Cheaper than
 * filtering duckdb_columns(),
 * which scans every attached catalog and, on its first call in an
 * instance, binds all of DuckDB's system views. */
int weir__conn_table_columns(weir_conn *c, const char *catalog,
                             const char *schema, const char *table,
                             bool *exists, bool *view, weir_db_column **out,
                             size_t *n_out, weir_arena *arena, weir_error *err);

/* Whether catalog.schema.name (as weir__conn_table_columns names it) is a
 * table: one catalog lookup, no query. */
bool weir__conn_is_table(weir_conn *c, const char *catalog, const char *schema,
                         const char *name);

/* Rewrite *rel (a relation in DuckDB SQL, e.g. a read_json call) as a
 * SELECT of its columns sorted by name, the order Spark gives a schema it
 * infers from JSON. A relation that does not bind is left as it is (its
 * error shows when it runs); nonzero only when out of memory. */
int weir__conn_sort_columns(weir_conn *c, weir_buf *rel, weir_error *err);

/* Appending rows to a table through DuckDB's appender (no SQL to parse):
 * values in column order, NULL text for SQL NULL; errors are remembered
 * and reported by weir__appender_close, which flushes (one autocommit
 * transaction when c has none open) and frees the appender. */
typedef struct weir_appender weir_appender;
int weir__appender_open(weir_appender **out, weir_conn *c, const char *catalog,
                        const char *schema, const char *table, weir_error *err);
void weir__appender_text(weir_appender *a, const char *v);
void weir__appender_i64(weir_appender *a, int64_t v);
void weir__appender_timestamp_us(weir_appender *a, int64_t us);
void weir__appender_end_row(weir_appender *a);
int weir__appender_close(weir_appender *a, weir_error *err);

/* A streaming result, a data chunk at a time (the rows are not all held):
 * weir__cursor_next moves to the next chunk (*n_rows 0 at the end; an
 * error of the query, e.g. error() in it, is reported there, and so is a
 * stream that ended early because another statement ran on c: c must
 * outlive the cursor and run nothing else until it is freed). Values of
 * the current chunk by column and row: bytes of a VARCHAR or BLOB column
 * (valid until the next chunk), INTEGER, BIGINT; each returns false for
 * NULL. */
typedef struct weir_db_cursor weir_db_cursor;
int weir__conn_cursor(weir_conn *c, const char *sql, weir_db_cursor **out,
                      weir_error *err);
int weir__cursor_next(weir_db_cursor *k, size_t *n_rows, weir_error *err);
bool weir__cursor_bytes(const weir_db_cursor *k, size_t col, size_t row,
                        const void **p, size_t *len);
bool weir__cursor_i32(const weir_db_cursor *k, size_t col, size_t row,
                      int32_t *out);
bool weir__cursor_i64(const weir_db_cursor *k, size_t col, size_t row,
                      int64_t *out);
void weir__cursor_free(weir_db_cursor *k);

/* Counting a statement's rows by boolean flags while it runs, in the
 * statement itself: open a tally, call
 *   __weir_tally(<token>, keep, flag_0, ..., flag_{n-1})
 * once per row in the statement (it returns keep; write it where every row
 * passes, e.g. a column of the SELECT, and filter on that column above
 * it), then read the rows counted, the rows whose keep was false and each
 * flag's false rows (failed: n_flags values). NULL counts as false. The
 * caller owns the tally and closes it (NULL is fine); a statement that
 * names a closed tally fails. */
typedef struct weir_tally weir_tally;
int weir__conn_tally_open(weir_tally **out, weir_conn *c, size_t n_flags,
                          weir_error *err);
int64_t weir__tally_token(const weir_tally *t);
void weir__tally_read(weir_tally *t, int64_t *rows, int64_t *rejected,
                      int64_t *failed);
void weir__tally_close(weir_tally *t);

/* Transactions (commits go through weir__storage_commit). */
int weir__conn_begin(weir_conn *c, weir_error *err);
void weir__conn_rollback(weir_conn *c);

/* Ask a running statement on c to stop (from another thread). */
void weir__conn_interrupt(weir_conn *c);
/* Progress of the running statement: rows processed so far, or -1. */
int64_t weir__conn_progress_rows(weir_conn *c);

/* Arrow export of a query's result (see weir.h): the query runs when the
 * stream is created. */
typedef struct weir_arrow_stream weir_arrow_stream;
struct ArrowSchema;
struct ArrowArray;
int weir__conn_arrow(weir_conn *c, const char *sql, weir_arrow_stream **out,
                     weir_error *err);
int weir__arrow_schema(weir_arrow_stream *s, struct ArrowSchema *out,
                       weir_error *err);
int weir__arrow_next(weir_arrow_stream *s, struct ArrowArray *out,
                     weir_error *err);
void weir__arrow_free(weir_arrow_stream *s);

/* A DuckDB error message as a weir error (WEIR_EENGINE): for DuckDB's
 * binder, catalog, parser, conversion, input, memory and internal errors a
 * Spark error class and weir's own message, never DuckDB's wording (the
 * table of rules is in db_error.c, the only place that reads DuckDB's
 * messages); other messages as they are. what (not NULL) prefixes the
 * message; memory_limit (may be NULL) is the configured
 * weir.duckdb.memory_limit, named in out-of-memory errors. */
int weir__db_error(weir_error *err, const char *what, const char *msg,
                   const char *memory_limit);
/* Whether err (from weir__db_error) is an error in the user's SQL (an
 * unknown table, column or function, a type mismatch) rather than a
 * failure of the engine. */
bool weir__db_error_in_sql(const weir_error *err);

/* DuckDB's extension `name` (httpfs, aws, azure, delta, postgres, mysql,
 * sqlite, tpch; store/extensions.h), loaded into db once from weir's
 * pinned folder; DuckDB loads none by itself. Not installed is
 * DUCKDB_EXTENSION_MISSING, WEIR_EINVAL (exit 2), naming the install
 * command; `what` (may be NULL) says what needs it ("S3 URLs"). */
int weir__db_extension(weir_db *db, const char *name, const char *what,
                       weir_error *err);
/* The extensions the object-store URLs anywhere in text need (httpfs for
 * s3://, gs://, http(s)://; azure for abfss://, az://), loaded as above.
 * Every statement a connection runs is scanned so; a run checks its
 * pipeline's texts up front to fail before any flow starts. */
int weir__db_extensions_for(weir_db *db, const char *text, weir_error *err);

/* Run sql (statements that may hold secrets: CREATE SECRET, ATTACH) on a
 * connection of its own under db's attach lock, unless a database named
 * alias is attached already. On failure (WEIR_EIO, or WEIR_EENGINE when
 * no connection could be made) DuckDB's message is copied to msg for the
 * caller to reword: it is not put in any weir_error here. */
int weir__db_attach_once(weir_db *db, const char *alias, const char *sql,
                         char *msg, size_t size);
/* The instance a connection belongs to. */
weir_db *weir__conn_db(weir_conn *c);

#endif
