/*
 * weir's Spark-function macros created on first use (see macros.c);
 * private to src/store.
 */
#ifndef WEIR_STORE_MACROS_H
#define WEIR_STORE_MACROS_H

#include <duckdb.h>

typedef struct weir_macros weir_macros;

/* The macros of setup (weir__sql_session_setup's text, which must outlive
 * them), none created yet, with a connection of db of their own. 0,
 * WEIR_ENOMEM or WEIR_EENGINE. */
int weir__macros_new(weir_macros **out, duckdb_database db, const char *setup);
/* Before the instance closes. NULL is fine. */
void weir__macros_free(weir_macros *ms);
/* Create what sql calls (all of them when it may open a transaction),
 * once; thread-safe. NULL ms or sql: nothing. Failures are left for the
 * statement to report (an unknown function). */
void weir__macros_ensure(weir_macros *ms, const char *sql);

#endif
