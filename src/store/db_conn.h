/*
 * The fields of a connection (weir_conn, opaque in db.h), for the files
 * of the store module that work on DuckDB's handle directly: db.c and
 * db_append.c. Nothing outside src/store includes this.
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
};

#endif
