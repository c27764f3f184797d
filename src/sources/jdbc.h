/*
 * read_jdbc(...): a database's table or query as a DuckDB relation with
 * Spark's JDBC column types (jdbc.c, docs/databases.md).
 */
#ifndef WEIR_SOURCES_JDBC_H
#define WEIR_SOURCES_JDBC_H

#include "sql/sql.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/error.h"

/* The batch read of call (its options checked, its database attached on
 * c's instance) appended to out as a parenthesised DuckDB query. A
 * relative SQLite path is resolved against root_dir. Errors name the
 * database and the table: INVALID_JDBC_OPTION, JDBC_CONNECTION_FAILED,
 * JDBC_TABLE_NOT_FOUND, JDBC_READ_FAILED, JDBC_UNSUPPORTED_TYPE, at the
 * call's place in src (may be NULL), its line shown with the password
 * masked. */
int weir__jdbc_render(weir_buf *out, weir_conn *c, const weir_sql_tvf *call,
                      const char *root_dir, const weir_sql_source *src,
                      weir_error *err);

/* Table schema.table of the database catalog `catalog` declared in conf
 * (weir__sql_jdbc_catalog), attached under its SQL name, as the same
 * relation. WEIR_ENOTFOUND (no error set): no such catalog. */
int weir__jdbc_render_catalog(weir_buf *out, weir_conn *c, const weir_kv *conf,
                              size_t n_conf, const char *catalog,
                              const char *schema, const char *table,
                              const char *root_dir, weir_error *err);

#endif
