/*
 * Updates that ran elsewhere (`weir run --remote`, on a Spark Connect
 * server), recorded in a storage's event log under an update id of their
 * own, so that `weir events` and event_log() show them like local ones.
 * Owns nothing beyond the call: it opens the storage, appends the events
 * and closes it.
 */
#include "engine.h"

#include <string.h>

#include "events/events.h"
#include "state/state.h"
#include "util/clock.h"

int weir__engine_record(const char *storage, const weir_db_config *db,
                        const weir_event *events, size_t n,
                        char update_id[40], weir_error *err)
{
    weir_storage *st = NULL;
    weir_eventlog *log = NULL;
    /* The id the events were delivered with (a UUID: letters, digits and
     * '-'), else a new one. */
    const char *given = n ? events[0].update_id : NULL;
    if (given && given[0] && strlen(given) < 40 &&
        strspn(given, "0123456789abcdefABCDEF-") == strlen(given))
        memcpy(update_id, given, strlen(given) + 1);
    else
        weir__uuid(update_id);
    int rc = weir__storage_open(&st, storage, WEIR_STORAGE_RUN, db,
                                weir__state_schema(), err);
    if (!rc)
        rc = weir__eventlog_open(&log, st, update_id, NULL, NULL, NULL,
                                 err);
    for (size_t i = 0; !rc && i < n; i++) {
        const weir_event *e = &events[i];
        weir_event_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.level = e->level;
        spec.event_type = e->event_type ? e->event_type : "spark_event";
        spec.flow_name = e->flow_name;
        spec.dataset_name = e->dataset_name;
        spec.details_json = e->details_json;
        spec.source_path = e->source_path;
        spec.source_line = e->source_line;
        spec.timestamp_us = e->timestamp_us;
        weir__eventlog_emit(log, &spec, "%s", e->message ? e->message : "");
    }
    if (!rc)
        rc = weir__eventlog_sync(log, err);
    weir__eventlog_close(log);
    weir__storage_close(st);
    return rc;
}
