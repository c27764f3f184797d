/*
 * Parsing pipeline statements (parse_ddl.c), shared with the files that
 * parse their parts: property lists, column definitions and the clauses
 * of CREATE (parse_ddl_clauses.c), and AUTO CDC flows (parse_cdc.c).
 * Internal to src/sql.
 */
#ifndef WEIR_SQL_PARSE_DDL_H
#define WEIR_SQL_PARSE_DDL_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* One statement being parsed into s. */
typedef struct sql_ddl {
    sql_parser p;
    weir_sql_stmt *s;
    const char *what; /* "MATERIALIZED VIEW", ... for messages */
} sql_ddl;

/* WEIR_ENOMEM, with the parser's error set. */
int weir__sql_ddl_oom(sql_ddl *d);

/* ---- parse_ddl_clauses.c ---- */
/* ( key [=] value, ... ) into *out. Spark's checks of the list are
 * deferred errors; tblproperties picks TBLPROPERTIES' wording for keys
 * without values (else that of OPTIONS). */
int weir__sql_ddl_prop_list(sql_ddl *d, weir_sql_property **out, size_t *n,
                            bool tblproperties);
/* One column: its name, its type when typed (a view's columns have none),
 * NOT NULL, COMMENT; column constraints are refused as Spark refuses
 * them. */
int weir__sql_ddl_column_def(sql_ddl *d, bool typed);
/* ( column, ..., CONSTRAINT name EXPECT (..) [ON VIOLATION ..], ... ):
 * columns and expectations. */
int weir__sql_ddl_column_list(sql_ddl *d, bool typed);
/* The clauses of CREATE MATERIALIZED VIEW / STREAMING TABLE (view: of a
 * view), in any order, up to the first that is not one. */
int weir__sql_ddl_clauses(sql_ddl *d, bool view);

/* ---- parse_cdc.c ---- */
/* FROM source and the AUTO CDC clauses, to the end of the statement
 * (at: where the AUTO CDC construct starts, for messages). */
int weir__sql_ddl_cdc(sql_ddl *d, const sql_token *at);

#endif
