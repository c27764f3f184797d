/*
 * The registry of tallies of a DuckDB instance and its SQL function (see
 * tally.c); private to src/store. The engine's side is in db.h.
 */
#ifndef WEIR_STORE_TALLY_H
#define WEIR_STORE_TALLY_H

#include <duckdb.h>

#include "store/db.h"

typedef struct weir_tallies weir_tallies;

/* 0 or WEIR_ENOMEM. */
int weir__tallies_new(weir_tallies **out);
/* After the instance that calls into it is closed. NULL is fine. */
void weir__tallies_free(weir_tallies *r);
/* Register __weir_tally on the instance of c, counting into r. 0 or
 * WEIR_EENGINE. */
int weir__tallies_register(weir_tallies *r, duckdb_connection c);
/* A new, empty tally of n_flags flags: 0, WEIR_EINVAL (over 256 flags)
 * or WEIR_ENOMEM. */
int weir__tally_open(weir_tally **out, weir_tallies *r, size_t n_flags);

#endif
