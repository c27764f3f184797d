/*
 * weir's Spark-function macros created on first use (see macros.c);
 * private to src/store.
 */
#ifndef WEIR_STORE_MACROS_H
#define WEIR_STORE_MACROS_H

#include <stdbool.h>

#include <duckdb.h>

typedef struct weir_macros weir_macros;

/* The macros of setup (weir__sql_session_setup's text, which must outlive
 * them). 0 or WEIR_ENOMEM. Read-only afterwards: one set serves every
 * connection of an instance, from any thread. */
int weir__macros_new(weir_macros **out, const char *setup);
/* NULL is fine. */
void weir__macros_free(weir_macros *ms);
/* A connection's record of the macros it has made (NULL ms: NULL; free
 * it with free()). */
bool *weir__macros_made_new(const weir_macros *ms);
/* The connection's transaction rolled back: the macros made in it are
 * gone, so none counts as made (those committed are made again, as
 * CREATE OR REPLACE). */
void weir__macros_forget(const weir_macros *ms, bool *made);
/* Create, as TEMP macros of connection c, what sql calls and c has not
 * made yet (made: c's record). NULL ms, made or sql: nothing. Failures
 * are left for the statement to report (an unknown function). */
void weir__macros_ensure(const weir_macros *ms, duckdb_connection c,
                         bool *made, const char *sql);

#endif
