/*
 * One update, start to end: open storage, resolve the graph, apply the
 * refresh selection, reset and materialize tables, publish persisted views,
 * then schedule flows on worker threads in dependency order with a
 * concurrency cap, retries with exponential backoff, and downstream
 * skipping; every step is an event (see docs/engine.md).
 */
#include "engine/engine.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "engine/common.h"
#include "engine/exec.h"
#include "sources/files.h"
#include "engine/materialize.h"
#include "engine/mv.h"
#include "engine/relocate.h"
#include "engine/select.h"
#include "events/events.h"
#include "sinks/sink.h"
#include "store/topics.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/map.h"
#include "util/str.h"

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
    bool storage_failed; /* a write or commit failed: start nothing more */
    weir_infer_cache *infer; /* file schemas inferred in this update */
    bool *fresh; /* per dataset: weir_flow_exec.fresh */
    int64_t *fresh_rows; /* per dataset: weir_flow_exec.fresh_rows */
} run_state;

/* ---- events ------------------------------------------------------------- */

/* An event of a flow, at the flow's place in the sources. */
static void flow_event_of(run_state *rs, const weir_gflow *f, weir_level level,
                          const char *event_type, const char *details,
                          const weir_error *error, const char *msg)
{
    weir_event_spec spec = { level, event_type, f->display,
                             rs->g->datasets[f->target].display, details,
                             error, NULL, 0, 0 };
    if (f->origin.src) {
        spec.source_path = f->origin.src->path;
        spec.source_line = f->origin.pos.line;
    }
    weir__eventlog_emit(rs->log, &spec, "%s", msg);
}

static void flow_event(run_state *rs, const weir_gflow *f, weir_level level,
                       const char *details, const weir_error *error,
                       const char *msg)
{
    flow_event_of(rs, f, level, "flow_progress", details, error, msg);
}

static void status_event(run_state *rs, const weir_gflow *f, weir_level level,
                         const char *status, const char *msg_fmt_done)
{
    char details[128];
    snprintf(details, sizeof(details), "{\"flow_progress\": {\"status\": \"%s\"}}",
             status);
    flow_event(rs, f, level, details, NULL, msg_fmt_done);
}

static void emit_status(run_state *rs, const weir_gflow *f, const char *status,
                        bool quoted, weir_level level)
{
    char msg[1024];
    if (quoted)
        snprintf(msg, sizeof(msg), "Flow '%s' is %s.", f->display, status);
    else
        snprintf(msg, sizeof(msg), "Flow %s is %s.", f->display, status);
    status_event(rs, f, level, status, msg);
}

/* How a materialized view was refreshed and why (engine/mv.c). */
static void planning_event(run_state *rs, const weir_gflow *f,
                           const weir_flow_exec *x)
{
    weir_buf d = WEIR_BUF_INIT, msg = WEIR_BUF_INIT;
    weir__mv_planning(&d, &msg, x, &rs->g->datasets[f->target]);
    flow_event_of(rs, f, WEIR_LEVEL_INFO, "planning_information",
                  weir__buf_cstr(&d), NULL, weir__buf_cstr(&msg));
    weir__buf_free(&d);
    weir__buf_free(&msg);
}

static void run_event(run_state *rs, weir_level level, const char *event_type,
                      const char *details, const weir_error *error,
                      const char *msg)
{
    weir_event_spec spec = { level, event_type, NULL, NULL, details, error,
                             NULL, 0, 0 };
    weir__eventlog_emit(rs->log, &spec, "%s", msg);
}

static void flush(run_state *rs)
{
    weir_error e;
    weir__eventlog_flush(rs->log, &e);
}


/* ---- configuration ---------------------------------------------------------- */

/* Seconds for Spark time confs: "5s", "100ms", "2m", "1h", or a number of
 * seconds. */
static double parse_seconds(const char *v, double dflt)
{
    if (!v)
        return dflt;
    char *end;
    double x = strtod(v, &end);
    if (end == v || x < 0)
        return dflt;
    while (*end == ' ')
        end++;
    if (!*end || weir__str_ieq(end, "s") || weir__str_ieq(end, "sec"))
        return x;
    if (weir__str_ieq(end, "ms"))
        return x / 1000.0;
    if (weir__str_ieq(end, "m") || weir__str_ieq(end, "min"))
        return x * 60;
    if (weir__str_ieq(end, "h"))
        return x * 3600;
    return dflt;
}

static long parse_long(const char *v, long dflt)
{
    unsigned long long u;
    if (v && weir__str_parse_u64(v, &u) && u < 1000000)
        return (long)u;
    return dflt;
}

static const char *pipeline_conf(const weir_graph *g, const char *key)
{
    /* Any flow carries the pipeline configuration first; use the first. */
    if (!g->n_flows)
        return NULL;
    const weir_gflow *f = &g->flows[0];
    for (size_t i = 0; i < f->n_conf; i++)
        if (weir__str_ieq(f->conf[i].key, key))
            return f->conf[i].value;
    return NULL;
}

/* A weir.duckdb.* setting: the pipeline configuration's own (checked by
 * weir__spec_check_setting), never a SQL file's SET, which applies to the
 * flows after it while DuckDB is one per update. */
static const char *weir_setting(const weir_graph *g, const char *key)
{
    for (size_t i = 0; i < g->n_conf; i++)
        if (weir__str_ieq(g->conf[i].key, key))
            return g->conf[i].value;
    return NULL;
}

static int64_t backoff_us(const weir_gflow *f, int failures)
{
    double min = parse_seconds(
        weir__flow_conf(f, "spark.sql.pipelines.execution.watchdog.minRetryTime",
                        NULL),
        5.0);
    double max = parse_seconds(
        weir__flow_conf(f, "spark.sql.pipelines.execution.watchdog.maxRetryTime",
                        NULL),
        3600.0);
    if (min >= max)
        return (int64_t)(max * 1e6);
    double t = min;
    for (int i = 1; i < failures && t < max; i++)
        t *= 2;
    if (t > max)
        t = max;
    return (int64_t)(t * 1e6);
}

/* ---- dependencies ------------------------------------------------------------ */

/* Executed flows whose output flow f reads, directly or through views. */
static void collect_upstream(run_state *rs, const weir_gflow *f, int *out,
                             size_t *n, char *seen, int depth)
{
    const weir_graph *g = rs->g;
    if (depth > 64)
        return;
    for (size_t i = 0; i < f->n_inputs; i++) {
        int d = f->inputs[i].dataset;
        if (d < 0 || seen[d])
            continue;
        seen[d] = 1;
        const weir_gdataset *ds = &g->datasets[d];
        for (size_t k = 0; k < ds->n_flows; k++) {
            int s = rs->slot_of_flow[ds->flows[k]];
            if (s >= 0)
                out[(*n)++] = s;
            else
                collect_upstream(rs, &g->flows[ds->flows[k]], out, n, seen,
                                 depth + 1);
        }
    }
}

static int build_slots(run_state *rs, weir_error *err)
{
    weir_graph *g = rs->g;
    rs->slot_of_flow = calloc(g->n_flows + 1, sizeof(int));
    rs->slots = calloc(g->n_flows + 1, sizeof(slot));
    if (!rs->slot_of_flow || !rs->slots)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t k = 0; k < g->n_flows; k++) {
        int fi = g->flow_order[k];
        rs->slot_of_flow[fi] = -1;
        weir_dataset_kind kind = g->datasets[g->flows[fi].target].kind;
        if (kind == WEIR_TEMPORARY_VIEW || kind == WEIR_PERSISTED_VIEW)
            continue;
        slot *s = &rs->slots[rs->n_slots];
        s->flow = fi;
        s->max_retries = (int)parse_long(
            weir__flow_conf(&g->flows[fi], "spark.sql.pipelines.maxFlowRetryAttempts",
                            NULL),
            2);
        rs->slot_of_flow[fi] = (int)rs->n_slots++;
    }
    char *seen = malloc(g->n_datasets + 1);
    if (!seen)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        s->upstream = calloc(g->n_flows + 1, sizeof(int));
        if (!s->upstream) {
            free(seen);
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
        memset(seen, 0, g->n_datasets + 1);
        collect_upstream(rs, &g->flows[s->flow], s->upstream, &s->n_upstream,
                         seen, 0);
    }
    free(seen);
    return 0;
}

/* ---- workers ------------------------------------------------------------------ */

static void *worker(void *arg)
{
    void **pair = arg;
    run_state *rs = pair[0];
    slot *s = pair[1];
    free(pair);
    weir_conn *conn = NULL;
    int rc = weir__db_connect(&conn, rs->st->db, &s->exec.err);
    if (!rc) {
        pthread_mutex_lock(&rs->mu);
        s->conn = conn;
        pthread_mutex_unlock(&rs->mu);
        s->exec.conn = conn;
        weir__flow_exec(&s->exec);
    }
    pthread_mutex_lock(&rs->mu);
    s->conn = NULL;
    s->finished = true;
    pthread_cond_signal(&rs->cv);
    pthread_mutex_unlock(&rs->mu);
    weir__conn_close(conn);
    return NULL;
}

static void start_slot(run_state *rs, slot *s)
{
    const weir_gflow *f = &rs->g->flows[s->flow];
    if (!f->streaming)
        emit_status(rs, f, "PLANNING", false, WEIR_LEVEL_INFO);
    emit_status(rs, f, "STARTING", false, WEIR_LEVEL_INFO);
    weir__buf_free(&s->exec.details);
    weir__buf_free(&s->exec.imported);
    memset(&s->exec, 0, sizeof(s->exec));
    s->exec.g = rs->g;
    s->exec.f = f;
    s->exec.st = rs->st;
    s->exec.root_dir = rs->opts->root_dir;
    s->exec.sink_root = rs->opts->sink_root;
    s->exec.local_kafka = rs->opts->local_kafka;
    s->exec.input_tables = rs->opts->input_storage != NULL;
    s->exec.update_id = rs->update_id;
    s->exec.infer = rs->infer;
    s->exec.sample_rows = rs->opts->sample_rows;
    s->exec.fresh = rs->fresh;
    s->exec.fresh_rows = rs->fresh_rows;
    s->finished = false;
    s->started_at = weir__monotonic_us();
    s->state = S_RUNNING;
    s->attempts++;
    rs->running++;
    void **pair = malloc(2 * sizeof(void *));
    if (pair) {
        pair[0] = rs;
        pair[1] = s;
    }
    if (!pair || pthread_create(&s->thread, NULL, worker, pair) != 0) {
        free(pair);
        WEIR_ERR(&s->exec.err, WEIR_ERROR, NULL, "cannot start a worker thread");
        s->finished = true;
        return;
    }
    s->thread_live = true;
    emit_status(rs, f, "RUNNING", false, WEIR_LEVEL_INFO);
}

/* Mark everything downstream of slot `from` SKIPPED. */
static void skip_downstream(run_state *rs, size_t from)
{
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        if (s->state != S_QUEUED && s->state != S_RETRY)
            continue;
        for (size_t k = 0; k < s->n_upstream; k++) {
            if ((size_t)s->upstream[k] != from)
                continue;
            s->state = S_SKIPPED;
            const weir_gflow *f = &rs->g->flows[s->flow];
            char msg[1024];
            snprintf(msg, sizeof(msg),
                     "Flow '%s' SKIPPED due to upstream failure(s).",
                     f->display);
            status_event(rs, f, WEIR_LEVEL_WARN, "SKIPPED", msg);
            skip_downstream(rs, i);
            break;
        }
    }
}

static void finish_slot(run_state *rs, size_t idx)
{
    slot *s = &rs->slots[idx];
    const weir_gflow *f = &rs->g->flows[s->flow];
    if (s->thread_live)
        pthread_join(s->thread, NULL);
    s->thread_live = false;
    rs->running--;
    double secs = (double)(weir__monotonic_us() - s->started_at) / 1e6;
    weir_flow_exec *x = &s->exec;
    if (x->altered && rs->fresh)
        rs->fresh[f->target] = false;
    if (rs->fresh_rows && rs->fresh_rows[f->target] >= 0)
        rs->fresh_rows[f->target] = x->err.code ? -1
                                    : rs->fresh_rows[f->target] +
                                          x->rows_written;
    if (x->imported.len) {
        /* import_checkpoint: what was taken, committed with the flow's
         * first batch (though a later batch of the update failed). */
        weir_buf id = WEIR_BUF_INIT;
        weir__buf_printf(&id, "{\"import_checkpoint\": %s}",
                         weir__buf_cstr(&x->imported));
        flow_event(rs, f, WEIR_LEVEL_INFO, weir__buf_cstr(&id), NULL,
                   x->import_note);
        weir__buf_free(&id);
    }
    if (!x->err.code) {
        if (x->idle) {
            s->state = S_IDLE;
            char msg[1024];
            snprintf(msg, sizeof(msg), "Flow '%s' is IDLE, waiting for new data.",
                     f->display);
            status_event(rs, f, WEIR_LEVEL_INFO, "IDLE", msg);
            return;
        }
        s->state = S_COMPLETED;
        rs->rows += (uint64_t)x->rows_written;
        weir_buf d = WEIR_BUF_INIT;
        weir__buf_printf(&d,
                         "{\"flow_progress\": {\"status\": \"COMPLETED\", "
                         "\"metrics\": {\"num_output_rows\": %lld}, "
                         "\"duration_ms\": %lld, \"no_new_data\": %s",
                         (long long)x->rows_written, (long long)(secs * 1000),
                         x->no_new_data ? "true" : "false");
        weir__buf_puts(&d, weir__buf_cstr(&x->details));
        weir__buf_puts(&d, "}}");
        if (x->technique[0])
            planning_event(rs, f, x);
        if (x->note[0])
            flow_event(rs, f, WEIR_LEVEL_INFO, NULL, NULL, x->note);
        if (x->warning[0])
            flow_event(rs, f, WEIR_LEVEL_WARN, NULL, NULL, x->warning);
        char msg[1024];
        snprintf(msg, sizeof(msg), "Flow %s has COMPLETED.", f->display);
        flow_event(rs, f, WEIR_LEVEL_INFO, weir__buf_cstr(&d), NULL, msg);
        weir__buf_free(&d);
        return;
    }
    if (rs->canceled) {
        s->state = S_SKIPPED;
        char msg[1024];
        snprintf(msg, sizeof(msg), "Flow '%s' has STOPPED.", f->display);
        status_event(rs, f, WEIR_LEVEL_INFO, "STOPPED", msg);
        return;
    }
    /* Failed. */
    /* A failed storage write (disk full, I/O error) or commit leaves
     * DuckDB's in-memory state unreliable: no retry in this process; the
     * next update recovers from the write-ahead log. */
    bool write_error = weir__storage_write_error(x->err.message);
    if (write_error)
        weir__str_copy(x->err.error_class, sizeof(x->err.error_class),
                       "STORAGE_WRITE_FAILED");
    if (write_error || weir__storage_write_failed(rs->st))
        rs->storage_failed = true;
    /* Damaged state, Kafka offsets that are gone, a Spark checkpoint that
     * cannot be imported, and streaming sources changed in place or added
     * or removed fail the same way every time. */
    bool damaged = !strcmp(x->err.error_class, "CHECKPOINT_MISSING") ||
                   !strcmp(x->err.error_class, "FILE_MANIFEST_MISSING") ||
                   !strcmp(x->err.error_class, "KAFKA_DATA_LOSS") ||
                   !strncmp(x->err.error_class, "IMPORT_CHECKPOINT_", 18) ||
                   !strcmp(x->err.error_class, "STREAMING_SOURCE_CHANGED") ||
                   !strcmp(x->err.error_class, WEIR_SOURCES_CHANGED_CLASS);
    bool retry = !rs->storage_failed && !damaged && s->attempts <= s->max_retries;
    /* Retries used up (Spark's message), or not retried at all. */
    bool exhausted = !retry && !damaged && !rs->storage_failed &&
                     s->attempts > s->max_retries;
    char msg[1024];
    if (!strcmp(x->err.error_class, WEIR_SOURCES_CHANGED_CLASS))
        snprintf(msg, sizeof(msg),
                 "Flow '%s' had streaming sources added or removed. Please "
                 "perform a full refresh in order to rebuild '%s' against "
                 "the current set of sources.",
                 f->display, f->display);
    else if (!exhausted || f->streaming == false)
        snprintf(msg, sizeof(msg), "Flow '%s' has FAILED.", f->display);
    else
        snprintf(msg, sizeof(msg),
                 "Flow '%s' has FAILED more than %d times and will not be "
                 "restarted.",
                 f->display, s->max_retries);
    char details[160];
    snprintf(details, sizeof(details),
             "{\"flow_progress\": {\"status\": \"FAILED\", \"attempt\": %d, "
             "\"will_retry\": %s}}",
             s->attempts, retry ? "true" : "false");
    flow_event(rs, f, retry ? WEIR_LEVEL_WARN : WEIR_LEVEL_ERROR, details,
               &x->err, msg);
    if (retry) {
        s->state = S_RETRY;
        s->retry_at = weir__monotonic_us() + backoff_us(f, s->attempts);
        return;
    }
    s->state = S_FAILED;
    if (!rs->failed_flow) {
        rs->failed_flow = f->display;
        rs->failed_attempts = exhausted ? s->max_retries : 0;
    }
    skip_downstream(rs, idx);
}

static bool ready(run_state *rs, const slot *s, int64_t now)
{
    if (s->state == S_RETRY && now < s->retry_at)
        return false;
    if (s->state != S_QUEUED && s->state != S_RETRY)
        return false;
    for (size_t k = 0; k < s->n_upstream; k++) {
        slot_state u = rs->slots[s->upstream[k]].state;
        if (u != S_COMPLETED && u != S_EXCLUDED && u != S_IDLE)
            return false;
    }
    return true;
}

static void report_progress(run_state *rs)
{
    if (!rs->run->on_progress)
        return;
    weir_progress p;
    memset(&p, 0, sizeof(p));
    p.elapsed_seconds = (double)(weir__monotonic_us() - rs->started_at) / 1e6;
    p.rows_written = rs->rows;
    pthread_mutex_lock(&rs->mu);
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        if (s->state == S_EXCLUDED)
            continue;
        p.flows_total++;
        if (s->state == S_RUNNING) {
            p.flows_running++;
            if (p.n_running < 8)
                p.running[p.n_running++] = rs->g->flows[s->flow].display;
            if (s->conn) {
                int64_t r = weir__conn_progress_rows(s->conn);
                if (r > 0)
                    p.rows_written += (uint64_t)r;
            }
        } else if (s->state != S_QUEUED && s->state != S_RETRY) {
            p.flows_done++;
        }
    }
    pthread_mutex_unlock(&rs->mu);
    rs->run->on_progress(&p, rs->run->progress_payload);
}

/* Flows queued or waiting to retry are SKIPPED with an event: "Flow '<name>'
 * <why>". */
static void skip_waiting(run_state *rs, weir_level level, const char *why)
{
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        if (s->state != S_QUEUED && s->state != S_RETRY)
            continue;
        s->state = S_SKIPPED;
        const weir_gflow *f = &rs->g->flows[s->flow];
        char msg[1024];
        snprintf(msg, sizeof(msg), "Flow '%s' %s", f->display, why);
        status_event(rs, f, level, "SKIPPED", msg);
    }
}

/* Stop the update: skip what has not started, interrupt what runs. */
static void cancel_all(run_state *rs)
{
    rs->canceled = true;
    pthread_mutex_lock(&rs->mu);
    for (size_t i = 0; i < rs->n_slots; i++)
        if (rs->slots[i].state == S_RUNNING && rs->slots[i].conn)
            weir__conn_interrupt(rs->slots[i].conn);
    pthread_mutex_unlock(&rs->mu);
    skip_waiting(rs, WEIR_LEVEL_INFO,
                 "has been processed by a previous iteration and will not be "
                 "rerun.");
}

/* After a storage write failed, nothing else starts. */
static void skip_after_storage_failure(run_state *rs)
{
    skip_waiting(rs, WEIR_LEVEL_WARN,
                 "SKIPPED: a commit to the storage failed; the next update "
                 "resumes it.");
}

static void schedule(run_state *rs)
{
    int64_t last_progress = 0;
    for (;;) {
        if (!rs->canceled && rs->run->cancel && *rs->run->cancel)
            cancel_all(rs);
        if (rs->storage_failed)
            skip_after_storage_failure(rs);
        pthread_mutex_lock(&rs->mu);
        for (size_t i = 0; i < rs->n_slots; i++) {
            if (rs->slots[i].state == S_RUNNING && rs->slots[i].finished) {
                pthread_mutex_unlock(&rs->mu);
                finish_slot(rs, i);
                pthread_mutex_lock(&rs->mu);
            }
        }
        pthread_mutex_unlock(&rs->mu);
        int64_t now = weir__monotonic_us();
        bool pending = false;
        for (size_t i = 0; i < rs->n_slots; i++) {
            slot *s = &rs->slots[i];
            if (s->state == S_QUEUED || s->state == S_RETRY ||
                s->state == S_RUNNING)
                pending = true;
            if (s->state == S_QUEUED && s->blocked) {
                /* Its table could not be materialized: fail, no retries. */
                s->max_retries = 0;
                s->attempts = 1;
                s->state = S_RUNNING;
                rs->running++;
                s->exec.err = s->block_err;
                finish_slot(rs, i);
                continue;
            }
            if (rs->running < rs->cap && ready(rs, s, now))
                start_slot(rs, s);
        }
        flush(rs);
        if (now - last_progress > 100000) {
            report_progress(rs);
            last_progress = now;
        }
        if (!pending)
            break;
        pthread_mutex_lock(&rs->mu);
        bool any_finished = false;
        for (size_t i = 0; i < rs->n_slots; i++)
            any_finished |= rs->slots[i].state == S_RUNNING && rs->slots[i].finished;
        if (!any_finished) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&rs->cv, &rs->mu, &ts);
        }
        pthread_mutex_unlock(&rs->mu);
    }
    report_progress(rs);
}

/* ---- phases ----------------------------------------------------------------- */

static void queue_flows(run_state *rs)
{
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        const weir_gflow *f = &rs->g->flows[s->flow];
        if (rs->sel.flow_selected[s->flow]) {
            s->state = S_QUEUED;
            emit_status(rs, f, "QUEUED", false, WEIR_LEVEL_INFO);
        } else {
            s->state = S_EXCLUDED;
            emit_status(rs, f, "EXCLUDED", true, WEIR_LEVEL_INFO);
        }
    }
}

static void block_flows_of(run_state *rs, const weir_gdataset *d,
                           const weir_error *e)
{
    for (size_t k = 0; k < d->n_flows; k++) {
        int si = rs->slot_of_flow[d->flows[k]];
        if (si < 0 || rs->slots[si].state != S_QUEUED)
            continue;
        rs->slots[si].blocked = true;
        rs->slots[si].block_err = *e;
    }
}

static void materialize(run_state *rs)
{
    weir_graph *g = rs->g;
    weir_error *errs = calloc(g->n_datasets + 1, sizeof(*errs));
    rs->fresh = calloc(g->n_datasets + 1, sizeof(*rs->fresh));
    rs->fresh_rows = calloc(g->n_datasets + 1, sizeof(*rs->fresh_rows));
    weir_error e;
    int rc = errs && rs->fresh && rs->fresh_rows
                 ? weir__materialize(rs->st, g, rs->sel.dataset_selected,
                                     rs->sel.reset, rs->update_id, rs->fresh,
                                     errs, &e)
                 : WEIR_ERR(&e, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < g->n_datasets; i++) {
        weir_error *de = errs ? &errs[i] : &e;
        if (!rc && !de->code)
            continue;
        weir_error copy = rc ? e : *de;
        weir__error_prefix(&copy, "Failed to materialize %s: ",
                           g->datasets[i].display);
        block_flows_of(rs, &g->datasets[i], &copy);
    }
    free(errs);
    flush(rs);
    /* Persisted views: published on every update, in dependency order. As
     * in Spark, a view that fails is a FAILED event, the persisted views
     * reading it are SKIPPED, and the update goes on (readers that are
     * tables inline the view's query). */
    bool *failed = calloc(g->n_datasets + 1, sizeof(*failed));
    for (size_t k = 0; k < g->n_datasets; k++) {
        int di = g->dataset_order[k];
        const weir_gdataset *d = &g->datasets[di];
        if (d->kind != WEIR_PERSISTED_VIEW || !d->n_flows)
            continue;
        const weir_gflow *f = &g->flows[d->flows[0]];
        char msg[1024];
        bool upstream = false;
        for (size_t i = 0; failed && i < f->n_inputs && !upstream; i++)
            upstream = f->inputs[i].dataset >= 0 && failed[f->inputs[i].dataset];
        if (upstream) {
            failed[di] = true;
            snprintf(msg, sizeof(msg),
                     "Flow '%s' has been processed by a previous iteration "
                     "and will not be rerun.",
                     f->display);
            status_event(rs, f, WEIR_LEVEL_INFO, "SKIPPED", msg);
            continue;
        }
        if (weir__view_publish(rs->st, g, d, rs->opts->root_dir, &e)) {
            if (failed)
                failed[di] = true;
            snprintf(msg, sizeof(msg), "Flow '%s' has FAILED.", f->display);
            flow_event(rs, f, WEIR_LEVEL_WARN,
                       "{\"flow_progress\": {\"status\": \"FAILED\"}}", &e, msg);
        }
    }
    free(failed);
}

static void finalize(run_state *rs, weir_run_result *res)
{
    weir_run_result r;
    memset(&r, 0, sizeof(r));
    snprintf(r.update_id, sizeof(r.update_id), "%s", rs->update_id);
    unsigned up_to_date = 0;
    for (size_t i = 0; i < rs->n_slots; i++) {
        const slot *s = &rs->slots[i];
        switch (s->state) {
        case S_COMPLETED:
            r.flows_completed++;
            /* Streaming flows (a materialized view with nothing new to
             * refresh is no streaming flow). */
            up_to_date += s->exec.no_new_data && !s->exec.technique[0];
            break;
        case S_FAILED: r.flows_failed++; break;
        case S_SKIPPED: r.flows_skipped++; break;
        case S_EXCLUDED: r.flows_excluded++; break;
        case S_IDLE: r.flows_idle++; break;
        default: break;
        }
    }
    r.rows_written = rs->rows;
    r.state = rs->canceled       ? WEIR_RUN_CANCELED
              : r.flows_failed ? WEIR_RUN_FAILED
                               : WEIR_RUN_COMPLETED;
    char msg[1024], details[512];
    snprintf(msg, sizeof(msg),
             "Update %.8s wrote %llu rows: %u flows completed (%u streaming "
             "flows had no new data), %u failed, %u skipped, %u excluded, %u "
             "idle.",
             rs->update_id, (unsigned long long)r.rows_written,
             r.flows_completed, up_to_date, r.flows_failed, r.flows_skipped,
             r.flows_excluded, r.flows_idle);
    snprintf(details, sizeof(details),
             "{\"update_summary\": {\"rows_written\": %llu, "
             "\"flows_completed\": %u, \"flows_up_to_date\": %u, "
             "\"flows_failed\": %u, \"flows_skipped\": %u, "
             "\"flows_excluded\": %u, \"flows_idle\": %u}}",
             (unsigned long long)r.rows_written, r.flows_completed, up_to_date,
             r.flows_failed, r.flows_skipped, r.flows_excluded, r.flows_idle);
    run_event(rs, WEIR_LEVEL_INFO, "update_summary", details, NULL, msg);
    if (r.state == WEIR_RUN_CANCELED) {
        run_event(rs, WEIR_LEVEL_INFO, "update_progress",
                  "{\"update_progress\": {\"state\": \"CANCELED\"}}", NULL,
                  "Run is CANCELED.");
    } else if (r.state == WEIR_RUN_COMPLETED) {
        run_event(rs, WEIR_LEVEL_INFO, "update_progress",
                  "{\"update_progress\": {\"state\": \"COMPLETED\"}}", NULL,
                  "Run is COMPLETED.");
    } else {
        if (rs->failed_attempts > 0)
            snprintf(msg, sizeof(msg),
                     "Run is FAILED since flow '%s' has failed more than %d "
                     "times.",
                     rs->failed_flow, rs->failed_attempts);
        else
            snprintf(msg, sizeof(msg), "Run is FAILED since flow '%s' has failed.",
                     rs->failed_flow ? rs->failed_flow : "?");
        run_event(rs, WEIR_LEVEL_INFO, "update_progress",
                  "{\"update_progress\": {\"state\": \"FAILED\"}}", NULL, msg);
    }
    *res = r;
}

static void put_names(weir_buf *b, const char *key,
                      const char *const *names, size_t n)
{
    weir__buf_printf(b, "\"%s\": [", key);
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__buf_put_json_string(b, names[i]);
    }
    weir__buf_putc(b, ']');
}

/* The refresh selection the update was asked for, as the JSON literal of
 * weir.updates.options (storage.md), or NULL for a plain update. */
static void put_selection(weir_buf *q, const weir_run_options *run)
{
    if (!run->full_refresh_all && !run->n_refresh && !run->n_full_refresh) {
        weir__buf_puts(q, "NULL");
        return;
    }
    weir_buf json = WEIR_BUF_INIT;
    weir__buf_putc(&json, '{');
    if (run->full_refresh_all)
        weir__buf_puts(&json, "\"full_refresh_all\": true");
    if (run->n_refresh)
        put_names(&json, "refresh", run->refresh, run->n_refresh);
    if (run->n_refresh && run->n_full_refresh)
        weir__buf_puts(&json, ", ");
    if (run->n_full_refresh)
        put_names(&json, "full_refresh", run->full_refresh, run->n_full_refresh);
    if (run->n_refresh && run->version >= 5 && run->refresh_upstream)
        weir__buf_puts(&json, ", \"refresh_upstream\": true");
    weir__buf_putc(&json, '}');
    weir__buf_put_sql_string(q, weir__buf_cstr(&json));
    if (json.failed)
        q->failed = true;
    weir__buf_free(&json);
}

/* The update's row in weir.main.updates: at its start (RUNNING, or FAILED
 * when it fails before its flows) or at its end (the final state). */
static void update_record_sql(weir_buf *q, run_state *rs, const char *state,
                              bool start)
{
    if (start) {
        weir__buf_puts(q, "INSERT INTO weir.main.updates VALUES (");
        weir__buf_put_sql_string(q, rs->update_id);
        weir__buf_puts(q, ", ");
        weir__buf_put_sql_string(q, rs->opts->pipeline_name
                                        ? rs->opts->pipeline_name
                                        : "pipeline");
        weir__buf_puts(q, ", now()::TIMESTAMP, NULL, ");
        weir__buf_put_sql_string(q, state);
        weir__buf_puts(q, ", ");
        put_selection(q, rs->run);
        weir__buf_putc(q, ')');
    } else {
        weir__buf_puts(q, "UPDATE weir.main.updates SET ended_at = "
                          "now()::TIMESTAMP, state = ");
        weir__buf_put_sql_string(q, state);
        weir__buf_puts(q, " WHERE update_id = ");
        weir__buf_put_sql_string(q, rs->update_id);
    }
}

static int record_update(run_state *rs, const char *state, bool start,
                         weir_error *err)
{
    if (!rs->st->system_attached || rs->run->dry)
        return 0;
    int rc = weir__storage_write_wait(rs->st, err);
    if (rc)
        return rc;
    weir_buf q = WEIR_BUF_INIT;
    update_record_sql(&q, rs, state, start);
    rc = weir__exec_buf(rs->st->conn, &q, err);
    weir__buf_free(&q);
    return rc;
}

/* The update's RUNNING row, after marking INTERRUPTED those a killed process
 * left RUNNING (this process holds the storage's lock, so none of them is
 * running any more): written behind, while the flows start; their commits
 * wait for it (weir__storage_write_behind). */
static int record_start(run_state *rs, weir_error *err)
{
    if (!rs->st->system_attached)
        return 0;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "UPDATE weir.main.updates SET state = 'INTERRUPTED' "
                       "WHERE state = 'RUNNING'; ");
    update_record_sql(&q, rs, "RUNNING", true);
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__storage_write_behind(rs->st, weir__buf_cstr(&q),
                                                   "the update's record", err);
    weir__buf_free(&q);
    return rc;
}

/* Attach the catalogs the graph uses: its datasets' (created when missing
 * in a run) and those of the external tables it reads. */
static int open_catalogs(run_state *rs, weir_error *err)
{
    const weir_graph *g = rs->g;
    int rc = 0;
    rs->st->recreate_missing = rs->run->full_refresh_all;
    if (!rs->run->dry)
        rc = weir__storage_use_catalog(rs->st, g->default_catalog,
                                       g->default_database, err);
    if (!rc && !rs->run->dry && rs->opts->local_kafka &&
        weir__graph_uses_kafka(g))
        rc = weir__topics_create(rs->st->conn, g->default_catalog, err);
    /* Each catalog and database once (a statement each), not per dataset. */
    weir_arena a = WEIR_ARENA_INIT;
    weir_map seen = WEIR_MAP_INIT(true);
    for (size_t i = 0; !rc && i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        if (!d->catalog)
            continue;
        const char *key = weir__arena_printf(&a, "%s\x1f%s", d->catalog,
                                             d->database ? d->database : "");
        if (key && weir__map_has(&seen, key))
            continue;
        if (!key || weir__map_put(&seen, key, NULL))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        else
            rc = weir__storage_use_catalog(rs->st, d->catalog, d->database, err);
    }
    weir__map_free(&seen);
    weir__arena_free(&a);
    for (size_t f = 0; !rc && f < g->n_flows; f++) {
        const weir_gflow *fl = &g->flows[f];
        for (size_t i = 0; !rc && i < fl->n_inputs; i++) {
            const weir_input *in = &fl->inputs[i];
            if (in->dataset >= 0 || !in->ref || in->ref->name.n > 3)
                continue;
            const char *cat = in->ref->name.n == 3 ? in->ref->name.parts[0]
                                                   : fl->ctx_catalog;
            if (cat && rs->opts->input_storage && !rs->run->dry)
                rc = weir__storage_attach_input(rs->st, rs->opts->input_storage,
                                                cat, err);
            else if (cat)
                rc = weir__storage_use_catalog(rs->st, cat, NULL, err);
        }
    }
    return rc;
}

static void free_state(run_state *rs)
{
    for (size_t i = 0; i < rs->n_slots; i++) {
        if (rs->slots[i].thread_live)
            pthread_join(rs->slots[i].thread, NULL);
        free(rs->slots[i].upstream);
        weir__buf_free(&rs->slots[i].exec.details);
        weir__buf_free(&rs->slots[i].exec.imported);
    }
    free(rs->slots);
    free(rs->slot_of_flow);
    weir__selection_free(&rs->sel);
    weir__eventlog_close(rs->log);
    /* A failed record of this update does not fail what comes next on a
     * held storage (queries, the next update). */
    if (rs->st)
        weir__storage_write_forget(rs->st);
    if (rs->st != rs->opts->held)
        weir__storage_close(rs->st);
    weir__infer_cache_free(rs->infer);
    free(rs->fresh);
    free(rs->fresh_rows);
    pthread_mutex_destroy(&rs->mu);
    pthread_cond_destroy(&rs->cv);
}

/* Dry runs: sinks whose format checks its destination (a Kafka broker)
 * are probed, each within a bounded time; a failure is a diagnostic at
 * the sink's definition. */
static int probe_sinks(const weir_graph *g, weir__diags *diags)
{
    int rc = 0;
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        const weir_sink_format *fmt =
            d->kind == WEIR_SINK ? weir__sink_format(d->def->format) : NULL;
        weir_error e;
        if (!fmt || !fmt->probe ||
            !fmt->probe(d->def->options, d->def->n_options, &e))
            continue;
        weir__error_prefix(&e, "Sink %s: ", d->display);
        weir__origin_error_at(&e, &d->def->origin);
        if (weir__diags_add(diags, &e))
            return WEIR_ENOMEM;
        rc = WEIR_EGRAPH;
    }
    return rc;
}

int weir__engine_run(weir_graph *g, const weir_engine_opts *opts,
                     const weir_run_options *run, weir_run_result *out,
                     weir__diags *diags, weir_error *err)
{
    run_state rs;
    memset(&rs, 0, sizeof(rs));
    rs.g = g;
    rs.opts = opts;
    rs.run = run;
    rs.started_at = weir__monotonic_us();
    pthread_mutex_init(&rs.mu, NULL);
    pthread_cond_init(&rs.cv, NULL);
    weir__uuid(rs.update_id);
    if (out)
        memset(out, 0, sizeof(*out));

    /* DuckDB resources from the pipeline's configuration. */
    weir_engine_opts eopts = *opts;
    const char *mem = weir_setting(g, "weir.duckdb.memory_limit");
    const char *thr = weir_setting(g, "weir.duckdb.threads");
    if (mem)
        eopts.db.memory_limit = mem;
    if (thr)
        eopts.db.threads = (unsigned)parse_long(thr, 0);
    opts = &eopts;
    rs.opts = opts;
    int rc = weir__selection_check(run, err);
    /* Usage errors before anything is opened or written. */
    if (!rc && !run->dry)
        rc = weir__selection_build(&rs.sel, g, run, err);
    if (!rc && !opts->storage && !run->dry)
        rc = WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                      "Storage must be specified to start a run.");
    assert(!opts->held || (!run->dry && opts->held->mode == WEIR_STORAGE_RUN));
    if (!rc && opts->held) {
        rs.st = opts->held;
        rc = weir__db_configure(rs.st->db, &opts->db, err);
    } else if (!rc) {
        rc = weir__storage_open(&rs.st, opts->storage ? opts->storage : "/nonexistent",
                                run->dry ? WEIR_STORAGE_DRY : WEIR_STORAGE_RUN,
                                &opts->db, err);
    }
    if (!rc)
        rc = open_catalogs(&rs, err);
    char *progress = NULL;
    if (!rc && !run->dry && rs.st->system_attached &&
        !(progress = weir__path_join(rs.st->root, WEIR_PROGRESS_FILE)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__eventlog_open(&rs.log,
                                 run->dry || !rs.st->system_attached ? NULL
                                                                     : rs.st,
                                 rs.update_id, progress, run->on_event,
                                 run->event_payload, err);
    free(progress);
    if (rc) {
        free_state(&rs);
        return rc;
    }
    if (!run->dry) {
        char *from = NULL;
        rc = weir__relocate(rs.st, opts->root_dir, &from, err);
        if (from) {
            char msg[2048];
            snprintf(msg, sizeof(msg),
                     "The project moved from %s to %s: the checkpoints of its "
                     "file sources now refer to the new folder.",
                     from, opts->root_dir);
            run_event(&rs, WEIR_LEVEL_INFO, "user_action", NULL, NULL, msg);
            free(from);
        }
        if (rc) {
            free_state(&rs);
            return rc;
        }
    }
    rs.infer = weir__infer_cache_new();
    rc = rs.infer ? weir__analyze(g, rs.st, opts->root_dir,
                                   opts->input_storage && !run->dry, rs.infer,
                                   diags, err)
                  : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc) {
        if (!run->dry && rc == WEIR_EGRAPH) {
            record_update(&rs, "FAILED", true, NULL);
            weir_error first = diags->len ? diags->items[0] : *err;
            run_event(&rs, WEIR_LEVEL_ERROR, "update_progress",
                      "{\"update_progress\": {\"state\": \"FAILED\"}}", &first,
                      "Pipeline execution failed.");
            record_update(&rs, "FAILED", false, NULL);
            flush(&rs);
        }
        free_state(&rs);
        return rc;
    }
    if (run->dry && (rc = probe_sinks(g, diags)) != 0) {
        free_state(&rs);
        return rc;
    }
    if (run->dry) {
        run_event(&rs, WEIR_LEVEL_INFO, "update_progress",
                  "{\"update_progress\": {\"state\": \"COMPLETED\"}}", NULL,
                  "Run is COMPLETED.");
        flush(&rs);
        if (out) {
            out->state = WEIR_RUN_COMPLETED;
            snprintf(out->update_id, sizeof(out->update_id), "%s", rs.update_id);
        }
        free_state(&rs);
        return 0;
    }
    rc = record_start(&rs, err);
    if (!rc)
        rc = build_slots(&rs, err);
    if (rc) {
        free_state(&rs);
        return rc;
    }
    for (size_t i = 0; i < g->n_datasets; i++) {
        if (g->datasets[i].kind != WEIR_SINK || !rs.sel.reset[i])
            continue;
        char msg[1024];
        snprintf(msg, sizeof(msg),
                 "Full refresh of sink %s resets its flows' checkpoints but "
                 "does not delete data already written: the sink will "
                 "receive all source data again.",
                 g->datasets[i].display);
        run_event(&rs, WEIR_LEVEL_WARN, "user_action", NULL, NULL, msg);
    }
    for (size_t i = 0; i < rs.sel.n_warnings; i++)
        run_event(&rs, WEIR_LEVEL_WARN, "user_action", NULL, NULL,
                  rs.sel.warnings[i]);
    if (rs.sel.not_resettable) {
        weir_error e = rs.sel.not_resettable_err;
        run_event(&rs, WEIR_LEVEL_ERROR, "update_progress",
                  "{\"update_progress\": {\"state\": \"FAILED\"}}", &e,
                  "Pipeline execution failed.");
        record_update(&rs, "FAILED", false, NULL);
        flush(&rs);
        if (out) {
            out->state = WEIR_RUN_FAILED;
            snprintf(out->update_id, sizeof(out->update_id), "%s", rs.update_id);
        }
        weir__error_copy(err, &e);
        free_state(&rs);
        return 0;
    }
    long cap = parse_long(
        pipeline_conf(g, "spark.sql.pipelines.execution.maxConcurrentFlows"), 16);
    rs.cap = cap > 0 ? (unsigned)cap : 1;
    queue_flows(&rs);
    flush(&rs);
    materialize(&rs);
    schedule(&rs);
    weir_run_result res;
    finalize(&rs, &res);
    if (out)
        *out = res;
    /* The flows are done with the catalogs: their checkpoints run while
     * the update's record and events are written. */
    if (rs.st != opts->held)
        weir__storage_checkpoint_catalogs(rs.st);
    /* The data is committed; the update's record must be too, or the
     * caller hears about it. */
    weir_error e;
    int end_rc = record_update(&rs,
                               res.state == WEIR_RUN_FAILED     ? "FAILED"
                               : res.state == WEIR_RUN_CANCELED ? "CANCELED"
                                                                : "COMPLETED",
                               false, &e);
    int ev_rc = weir__eventlog_sync(rs.log, end_rc ? NULL : &e);
    weir__storage_write_open_script(rs.st, NULL);
    free_state(&rs);
    if (end_rc || ev_rc) {
        if (res.state == WEIR_RUN_COMPLETED)
            weir__error_prefix(&e, "the update's data is committed, but its "
                                   "record in the event log could not be "
                                   "written: ");
        else
            weir__error_prefix(&e, "the update failed, and its record in the "
                                   "event log could not be written either: ");
        weir__error_copy(err, &e);
        return err ? (err->code = WEIR_EIO) : WEIR_EIO;
    }
    return 0;
}
