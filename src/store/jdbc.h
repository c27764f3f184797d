/*
 * The databases read_jdbc(...) reads, attached to a DuckDB instance
 * through DuckDB's official scanners (postgres, mysql, sqlite: loaded on
 * first use, extensions.h), read-only, once per instance and database
 * (docs/databases.md). Credentials go into a DuckDB secret, never into
 * an attached database's path (which duckdb_databases() shows), and no
 * message here holds them.
 */
#ifndef WEIR_STORE_JDBC_H
#define WEIR_STORE_JDBC_H

#include <stddef.h>

#include "sql/sql.h"
#include "store/db.h"
#include "util/error.h"

/* Seconds a connection attempt to a server waits before it fails. */
#define WEIR_JDBC_CONNECT_TIMEOUT 10

/* Attach the database o names to c's instance (once: later calls find
 * it), read-only; its DuckDB catalog name into alias (weir_jdbc_ and a
 * hash of where it is and who connects). A relative SQLite path is
 * resolved against base_dir. Errors: JDBC_CONNECTION_FAILED (WEIR_EIO:
 * unreachable, refused credentials, no such file), naming the database,
 * host and user; DUCKDB_EXTENSION_MISSING. */
int weir__jdbc_attach(weir_conn *c, const weir_jdbc_opts *o,
                      const char *base_dir, char *alias, size_t size,
                      weir_error *err);
/* The same under the DuckDB name `as` (a catalog of the configuration:
 * its name in SQL), once. */
int weir__jdbc_attach_as(weir_conn *c, const weir_jdbc_opts *o,
                         const char *base_dir, const char *as, weir_error *err);

#endif
