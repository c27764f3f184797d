/*
 * Scans: relations that weir produces while a DuckDB query reads them, a
 * data chunk at a time, with nothing stored first (the Kafka source's
 * batch). A caller adds a scan to a connection (its columns and a reader),
 * puts weir__scan_sql()'s text in a query where the relation goes, runs
 * the query, and removes the scan. Each time the query reads the relation
 * (once, or more for a self-join) a reader is opened, filled chunk by
 * chunk, and closed.
 *
 * A reader may split its rows into lanes, filled at once by DuckDB's
 * threads: each lane by one thread from its first row to its last, so the
 * rows of a lane keep their order through the query's pipeline (a Kafka
 * partition is one lane's). While a connection has a scan in lanes its
 * statements do not preserve insertion order otherwise: the rows of
 * different lanes interleave a chunk at a time (an INSERT of them writes a
 * thread's rows in a run of their own).
 *
 * Underneath: one DuckDB table function, __weir_scan(id), registered when
 * the instance opens; an id that is not a live scan is a binder error, so
 * SQL that names the function by hand reads nothing.
 */
#ifndef WEIR_STORE_SCAN_H
#define WEIR_STORE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "util/buf.h"
#include "util/error.h"

/* The rows a reader writes into, one chunk of at most
 * weir__scan_room() rows: set the columns of a row (any order; columns
 * the query does not read are ignored), then weir__scan_end_row(). */
typedef struct weir_scan_chunk weir_scan_chunk;

size_t weir__scan_room(const weir_scan_chunk *ch); /* rows still free */
/* BLOB or VARCHAR (valid UTF-8); NULL v: NULL. */
void weir__scan_col_bytes(weir_scan_chunk *ch, size_t col, const void *v,
                          size_t len);
void weir__scan_col_i32(weir_scan_chunk *ch, size_t col, int32_t v);
void weir__scan_col_i64(weir_scan_chunk *ch, size_t col,
                        int64_t v); /* BIGINT, TIMESTAMP (microseconds) */
void weir__scan_col_null(weir_scan_chunk *ch, size_t col);
void weir__scan_end_row(weir_scan_chunk *ch);

/* What a scan's reader does, from DuckDB's threads (not necessarily the
 * caller's). */
typedef struct weir_scan_ops {
    /* A reader for one read of the relation, in *reader, with its rows in
     * *lanes lanes (1 to max_lanes, the threads DuckDB has). */
    int (*open)(void *payload, size_t max_lanes, void **reader, size_t *lanes,
                weir_error *err);
    /* Write rows of the lane until the chunk is full or the lane ends
     * (*done). A chunk left empty without *done is asked again. Each lane
     * is filled by one thread at a time, different lanes at once. */
    int (*fill)(void *reader, size_t lane, weir_scan_chunk *ch, bool *done,
                weir_error *err);
    /* The read is over (read to its end, stopped early, or failed); no
     * fill runs any more. */
    void (*close)(void *reader);
} weir_scan_ops;

/* Add a scan to connection c: its columns (name and DuckDB type: BLOB,
 * VARCHAR, INTEGER, BIGINT or TIMESTAMP; borrowed, like ops and payload,
 * until removed), read by ops. *id names it in weir__scan_sql. With lanes,
 * its readers may have several, and until the scan is removed the
 * connection does not preserve insertion order across them; without, a
 * reader has one lane whatever it asks. */
int weir__scan_add(weir_conn *c, const weir_db_column *cols, size_t n_cols,
                   const weir_scan_ops *ops, void *payload, bool lanes,
                   int64_t *id, weir_error *err);

/* Remove scan id (0 or an unknown id: nothing). No query of c may be
 * reading it. */
void weir__scan_remove(weir_conn *c, int64_t id);

/* The relation of scan id in a FROM clause: __weir_scan(<id>). */
void weir__scan_sql(weir_buf *out, int64_t id);

/* ---- for store/db.c -------------------------------------------------------
 * An instance's scans: installed (the table function registered through
 * duckdb_connection `duck`) when it opens, owned by DuckDB from then on. */
typedef struct weir_scans weir_scans;
int weir__scans_install(void *duck, weir_scans **out, weir_error *err);
/* The threads DuckDB runs with (0: unknown), for readers' lanes. */
void weir__scans_set_threads(weir_scans *s, unsigned threads);
/* The scans of the instance of c (db.c). */
weir_scans *weir__conn_scans(weir_conn *c);
/* A query of c failed: when one of its scans' readers failed it, that
 * error (with its class) replaces err's and true is returned. */
bool weir__scans_take_error(weir_scans *s, const weir_conn *c,
                            weir_error *err);
/* Has c a scan now (its queries may read one)? */
bool weir__scans_live(weir_scans *s, const weir_conn *c);

#endif
