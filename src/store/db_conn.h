/*
 * The fields of a connection (weir_conn, opaque in db.h), and the
 * statement plumbing of db.c, for the files of the store module that work
 * on DuckDB's handle directly: db.c, db_append.c, db_result.c and
 * db_stream.c. Nothing outside src/store includes this.
 */
#ifndef WEIR_STORE_DB_CONN_H
#define WEIR_STORE_DB_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include <duckdb.h>

#include "store/db.h"

struct weir_conn {
    duckdb_connection handle;
    weir_db *db;
    uint64_t statements; /* SQL texts handed to DuckDB (weir__conn_statements) */
    bool *made; /* lazy macros: those this connection made (macros.h) */
    const char *memory_limit; /* the instance's, or NULL */
    char failed[512]; /* the last failed statement's error, or "" */
    bool extension_failed; /* the statement's extension did not load: */
    weir_error extension_error; /* why (weir__conn_query_error) */
};

/* c's DuckDB handle, for one more statement, sql (with lazy macros, the
 * macros it calls are created on c first). Borrowed from c. */
duckdb_connection weir__conn_counted(weir_conn *c, const char *sql);

/* Enters db's gate (db.c) for sql when it names the metadata schema
 * (quoted or not, as weir and its query guard spell it); returns whether
 * it did, the flag weir__db_gate_unshare takes to leave it. */
bool weir__db_gate_share(weir_db *db, const char *sql);
void weir__db_gate_unshare(weir_db *db, bool shared);

/* duckdb_query() of sql on c, inside the gate when sql needs it; the
 * caller destroys *r either way, as with duckdb_query(). */
duckdb_state weir__conn_query_shared(weir_conn *c, const char *sql,
                                     duckdb_result *r);

/* A query of c failed with DuckDB's message msg: sets err to the error of
 * a scan's reader that failed it (with its class), else DuckDB's
 * (weir__db_error), remembers it as c's last failure and returns its
 * code. */
int weir__conn_query_error(weir_conn *c, weir_error *err, const char *msg);
/* A statement of c failed to prepare with DuckDB's message msg: sets err
 * to the extension it needed that did not load, else to DuckDB's error
 * (weir__db_error); returns its code. */
int weir__conn_prepare_error(weir_conn *c, weir_error *err, const char *msg);

#endif
