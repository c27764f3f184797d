/*
 * A watch over a cancellable piece of work (a query, the planning of an
 * update): a thread of its own asks cancelled(payload) every 50 ms; once
 * it says yes, the watch is stopped for good (the work reads
 * weir__watch_stopped between its steps, e.g. before every type probe)
 * and the connection it names is interrupted at every tick until the
 * watch ends, since DuckDB forgets an interrupt that comes before its
 * statement begins. The one cancel mechanism of weir's callers: queries
 * (api/query_cancel.c) and an update's planning (engine/run.c).
 */
#ifndef WEIR_STORE_WATCH_H
#define WEIR_STORE_WATCH_H

#include <stdbool.h>

#include "store/db.h"

typedef struct weir_watch weir_watch;

/* Start watching; cancelled is asked once before this returns (work
 * cancelled already is stopped from the start), then from the watch's
 * thread, and must be safe to call there. *out is owned by the caller
 * until weir__watch_end. Errors: WEIR_ENOMEM (no memory or thread). */
int weir__watch_start(weir_watch **out, bool (*cancelled)(void *payload),
                      void *payload, weir_error *err);
/* The connection to interrupt once stopped (NULL: none any more). */
void weir__watch_conn(weir_watch *w, weir_conn *conn);
/* Whether the work must stop now. NULL: never. Any thread. */
bool weir__watch_stopped(const weir_watch *w);
/* Join the watch's thread and free it; returns whether it was stopped.
 * NULL: false. */
bool weir__watch_end(weir_watch *w);

#endif
