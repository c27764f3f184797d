/*
 * Private to running one update (run.c, schedule.c): its state, a slot
 * for each flow it executes (views have none), and the events and
 * configuration both files use. run.c owns the state, opens and frees it
 * and runs the phases; schedule.c builds the slots and runs their flows
 * on worker threads. A worker writes only its slot: the slot's exec
 * while the flow runs, its conn and finished under rs->mu; the rest is
 * the control thread's.
 */
#ifndef WEIR_ENGINE_RUN_H
#define WEIR_ENGINE_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/exec.h"
#include "engine/select.h"
#include "events/events.h"
#include "sources/files.h"

typedef enum slot_state {
    S_QUEUED,
    S_RUNNING,
    S_RETRY,     /* failed, waiting for its backoff */
    S_COMPLETED,
    S_FAILED,
    S_SKIPPED,
    S_EXCLUDED,
    S_IDLE
} slot_state;

typedef struct slot {
    int flow;
    slot_state state;
    int attempts;
    int max_retries;
    int64_t retry_at;
    int64_t started_at;
    pthread_t thread;
    bool thread_live;
    bool finished; /* set by the worker under the lock */
    weir_conn *conn; /* the worker's connection while it runs */
    weir_flow_exec exec;
    int *upstream; /* slots that must end first */
    size_t n_upstream;
    bool blocked;  /* its table failed to materialize */
    weir_error block_err;
} slot;

typedef struct run_state {
    weir_graph *g;
    const weir_engine_opts *opts;
    const weir_run_options *run;
    weir_storage *st;
    weir_eventlog *log;
    char update_id[40];
    slot *slots;
    size_t n_slots;
    int *slot_of_flow; /* flow index -> slot index or -1 */
    weir_selection sel;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned cap, running;
    int64_t started_at;
    uint64_t rows;
    const char *failed_flow;
    int failed_attempts;
    bool canceled;
    /* Watches run->cancel (store/watch.h) from planning to the end; NULL
     * when the update cannot be cancelled. */
    struct weir_watch *watch;
    bool storage_failed; /* a write or commit failed: start nothing more */
    weir_infer_cache *infer; /* file schemas inferred in this update */
    bool *fresh; /* per dataset: weir_flow_exec.fresh */
    int64_t *fresh_rows; /* per dataset: weir_flow_exec.fresh_rows */
} run_state;

/* Events of a flow of the update, at the flow's place in the sources:
 * of type flow_progress (details: JSON or NULL, error may be NULL); a
 * flow_progress with only a status and a message; a status with the
 * message "Flow <name> is <status>." (quoted: the name in quotes); how a
 * materialized view was refreshed and why (planning_information,
 * engine/mv.c). */
void weir__run_flow_event(run_state *rs, const weir_gflow *f,
                          weir_level level, const char *details,
                          const weir_error *error, const char *msg);
void weir__run_status_event(run_state *rs, const weir_gflow *f,
                            weir_level level, const char *status,
                            const char *msg_fmt_done);
void weir__run_emit_status(run_state *rs, const weir_gflow *f,
                           const char *status, bool quoted, weir_level level);
void weir__run_planning_event(run_state *rs, const weir_gflow *f,
                              const weir_flow_exec *x);
/* Deliver the events queued so far (weir__eventlog_flush), ignoring a
 * storage failure: the update's end syncs the log and reports it.
 * Control thread only. */
void weir__run_flush(run_state *rs);

/* A whole number conf (under 1000000), or dflt when v is NULL or none. */
long weir__run_parse_long(const char *v, long dflt);

/* A slot for each flow of rs->g that is executed (not a view's), in flow
 * order, with the slots each must wait for (schedule.c). */
int weir__run_build_slots(run_state *rs, weir_error *err);
/* Run the queued flows to the end: start those ready, up to rs->cap at a
 * time, retry failures after their backoff, skip the downstream of those
 * that fail, stop on cancel or a failed storage write; events and
 * progress on the way (schedule.c). */
void weir__run_schedule(run_state *rs);

#endif
