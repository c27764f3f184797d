/*
 * The event log of an update: events are created on any thread (flow
 * workers included), queued, and delivered by the control thread, which
 * stores them in weir.event_log (batched, one transaction per flush) and
 * hands each to the caller's weir_event_fn. Event kinds, messages and
 * details follow Spark SDP (docs/events.md).
 */
#ifndef WEIR_EVENTS_H
#define WEIR_EVENTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/db.h"
#include "store/storage.h"
#include "util/buf.h"
#include "util/error.h"
#include "weir.h"

typedef struct weir_eventlog weir_eventlog;

/*
 * st: the storage whose weir.duckdb stores the events, on its control
 * connection (NULL = do not persist, as in a dry run); each store waits for
 * the storage's write behind (weir__storage_write_wait) first. Events are
 * numbered after the highest stored sequence.
 * progress_path: where to mirror the update's events as JSON lines while it
 * runs, for `weir ui` (docs/ui.md), or NULL. The file is truncated here,
 * appended as events are stored and removed by weir__eventlog_close; when it
 * cannot be written, a WARN event says so and the log goes on without it.
 */
int weir__eventlog_open(weir_eventlog **out, weir_storage *st,
                        const char *update_id, const char *progress_path,
                        weir_event_fn cb, void *payload, weir_error *err);
void weir__eventlog_close(weir_eventlog *log);

/* The pieces of one event. Strings are copied. */
typedef struct weir_event_spec {
    weir_level level;
    const char *event_type;   /* "flow_progress", "update_progress", ... */
    const char *flow_name;    /* NULL when not about a flow */
    const char *dataset_name;
    const char *details_json; /* a JSON object, or NULL for {} */
    const weir_error *error;  /* NULL when none */
    const char *source_path;
    unsigned source_line;
    int64_t timestamp_us;     /* 0 = now (an event recorded from elsewhere
                                 keeps its own) */
} weir_event_spec;

/* Queue an event with a printf-style message. Thread-safe. */
void weir__eventlog_emit(weir_eventlog *log, const weir_event_spec *spec,
                         const char *fmt, ...) WEIR_PRINTF(3, 4);

/* Deliver queued events: store them, then call the callback for each.
 * Control thread only. A storage failure is returned but the callback
 * still sees every event. */
int weir__eventlog_flush(weir_eventlog *log, weir_error *err);

/* Deliver queued events and store everything not stored yet. */
int weir__eventlog_sync(weir_eventlog *log, weir_error *err);

/* Append an error as the JSON object stored in event_log.error. */
void weir__error_to_json(weir_buf *out, const weir_error *e);

#endif
