/*
 * Keeping DuckDB 1.4 from aborting the process when a failed commit
 * cannot take its bytes back out of the write-ahead log (wal_guard.c says
 * how and why). Private to src/store.
 */
#ifndef WEIR_STORE_WAL_GUARD_H
#define WEIR_STORE_WAL_GUARD_H

#include <stdbool.h>

/* Install the guard once per process (later calls only answer); true when
 * it is in place (DuckDB 1.4 on an ELF platform whose relocations it
 * found). Called before the first DuckDB instance opens. */
bool weir__wal_guard_install(void);

#endif
