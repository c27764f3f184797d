/*
 * Scheduling the flows of an update (run.h): a slot for each executed
 * flow and the slots upstream of it, worker threads that execute flows on
 * their own connections, at most rs->cap at a time in dependency order,
 * retries with exponential backoff, downstream skipping, cancel, progress
 * reports.
 */
#include "engine/run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/exec.h"
#include "spec/spec.h"
#include "store/storage.h"
#include "store/watch.h"
#include "util/clock.h"
#include "util/str.h"

/* ---- retries ---------------------------------------------------------------- */

/* Seconds for Spark time confs (spec/settings.c checked the value). */
static double parse_seconds(const char *v, double dflt)
{
    double s;
    return v && weir__spec_setting_seconds(v, &s) ? s : dflt;
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

int weir__run_build_slots(run_state *rs, weir_error *err)
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
        s->max_retries = (int)weir__run_parse_long(
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
        weir__run_emit_status(rs, f, "PLANNING", false, WEIR_LEVEL_INFO);
    weir__run_emit_status(rs, f, "STARTING", false, WEIR_LEVEL_INFO);
    weir__buf_free(&s->exec.details);
    weir__buf_free(&s->exec.imported);
    memset(&s->exec, 0, sizeof(s->exec));
    s->exec.g = rs->g;
    s->exec.f = f;
    s->exec.st = rs->st;
    s->exec.root_dir = rs->opts->root_dir;
    s->exec.sink_root = rs->opts->sink_root;
    s->exec.local_kafka_sinks = rs->opts->local_kafka_sinks;
    s->exec.local_kafka_sources = rs->opts->local_kafka_sources;
    s->exec.input_tables = rs->opts->input_storage != NULL;
    s->exec.update_id = rs->update_id;
    s->exec.infer = rs->infer;
    s->exec.sample_rows = rs->opts->sample_rows;
    s->exec.fresh = rs->fresh;
    s->exec.fresh_rows = rs->fresh_rows;
    s->exec.cancel = rs->watch;
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
    weir__run_emit_status(rs, f, "RUNNING", false, WEIR_LEVEL_INFO);
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
            weir__run_status_event(rs, f, WEIR_LEVEL_WARN, "SKIPPED", msg);
            skip_downstream(rs, i);
            break;
        }
    }
}

/* The flow of slot s finished without an error: IDLE or COMPLETED, with
 * its events. */
static void slot_completed(run_state *rs, slot *s, const weir_gflow *f,
                           double secs)
{
    weir_flow_exec *x = &s->exec;
    if (x->idle) {
        s->state = S_IDLE;
        char msg[1024];
        snprintf(msg, sizeof(msg), "Flow '%s' is IDLE, waiting for new data.",
                 f->display);
        weir__run_status_event(rs, f, WEIR_LEVEL_INFO, "IDLE", msg);
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
        weir__run_planning_event(rs, f, x);
    if (x->note[0])
        weir__run_flow_event(rs, f, WEIR_LEVEL_INFO, NULL, NULL, x->note);
    if (x->warning[0])
        weir__run_flow_event(rs, f, WEIR_LEVEL_WARN, NULL, NULL,
                             x->warning);
    char msg[1024];
    snprintf(msg, sizeof(msg), "Flow %s has COMPLETED.", f->display);
    weir__run_flow_event(rs, f, WEIR_LEVEL_INFO, weir__buf_cstr(&d), NULL,
                         msg);
    weir__buf_free(&d);
}

/* Errors that the flow's query and the data it read decide alone, so that
 * a retry fails the same way (docs/engine.md, step 6): analysis errors, a
 * FAIL UPDATE expectation, Spark's ANSI data errors. Errors that can pass
 * on retry (a file still being written, a table created meanwhile, memory,
 * I/O, a broker, raise_error(), which may test for data yet to come) are
 * not in the list. */
static bool deterministic_error(const char *cls)
{
    static const char *const EXACT[] = {
        "EXPECTATION_VIOLATION", "ANALYSIS_ERROR", "PARSE_SYNTAX_ERROR",
        "FIELD_NOT_FOUND", "COLUMN_ALREADY_EXISTS", "UNSUPPORTED_SPARK_SQL",
        "UNRESOLVABLE_TABLE_VALUED_FUNCTION", "INCOMPATIBLE_COLUMN_TYPE",
        "NUM_COLUMNS_MISMATCH", "CAST_INVALID_INPUT", "CAST_OVERFLOW",
        "DIVIDE_BY_ZERO", "ARITHMETIC_OVERFLOW", "INVALID_INDEX_OF_ZERO",
        "NUMERIC_VALUE_OUT_OF_RANGE",
    };
    static const char *const PREFIX[] = { "UNRESOLVED_", "DATATYPE_MISMATCH",
                                          "INVALID_ARRAY_INDEX",
                                          "INVALID_CONF_VALUE" };
    for (size_t i = 0; i < sizeof(EXACT) / sizeof(EXACT[0]); i++)
        if (strcmp(cls, EXACT[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof(PREFIX) / sizeof(PREFIX[0]); i++)
        if (weir__str_starts(cls, PREFIX[i]))
            return true;
    return false;
}

/* The flow of slot idx failed: retried after a backoff, or FAILED for
 * good and what reads it skipped. */
static void slot_failed(run_state *rs, size_t idx)
{
    slot *s = &rs->slots[idx];
    const weir_gflow *f = &rs->g->flows[s->flow];
    weir_flow_exec *x = &s->exec;
    /* A failed write of the storage's files (disk full, I/O error) or
     * commit leaves DuckDB's in-memory state unreliable: no retry in this process; the
     * next update recovers from the write-ahead log. */
    bool write_error = weir__storage_write_error(rs->st, x->err.message);
    if (write_error)
        weir__str_copy(x->err.error_class, sizeof(x->err.error_class),
                       "STORAGE_WRITE_FAILED");
    if (write_error || weir__storage_write_failed(rs->st))
        rs->storage_failed = true;
    /* Damaged state, Kafka offsets that are gone, a Spark checkpoint that
     * cannot be imported, streaming sources changed in place (Delta
     * commits a stream cannot follow too) or added or removed, and the errors deterministic_error lists fail the same way
     * every time: not retried. */
    bool damaged = !strcmp(x->err.error_class, "CHECKPOINT_MISSING") ||
                   !strcmp(x->err.error_class, "FILE_MANIFEST_MISSING") ||
                   !strcmp(x->err.error_class, "KAFKA_DATA_LOSS") ||
                   !strncmp(x->err.error_class, "IMPORT_CHECKPOINT_", 18) ||
                   !strcmp(x->err.error_class, "STREAMING_SOURCE_CHANGED") ||
                   !strncmp(x->err.error_class, "DELTA_SOURCE_", 13) ||
                   !strcmp(x->err.error_class, WEIR_SOURCES_CHANGED_CLASS) ||
                   deterministic_error(x->err.error_class);
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
    weir__run_flow_event(rs, f, retry ? WEIR_LEVEL_WARN : WEIR_LEVEL_ERROR,
                         details, &x->err, msg);
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
        weir__run_flow_event(rs, f, WEIR_LEVEL_INFO, weir__buf_cstr(&id), NULL,
                             x->import_note);
        weir__buf_free(&id);
    }
    if (!x->err.code) {
        slot_completed(rs, s, f, secs);
    } else if (rs->canceled || x->err.code == WEIR_ECANCELED) {
        s->state = S_SKIPPED;
        char msg[1024];
        snprintf(msg, sizeof(msg), "Flow '%s' has STOPPED.", f->display);
        weir__run_status_event(rs, f, WEIR_LEVEL_INFO, "STOPPED", msg);
    } else {
        slot_failed(rs, idx);
    }
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
        weir__run_status_event(rs, f, level, "SKIPPED", msg);
    }
}

/* Stop the update: skip what has not started, interrupt what runs (a
 * flow still translating its query sees the update's watch stopped at
 * its next type probe). */
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

void weir__run_schedule(run_state *rs)
{
    int64_t last_progress = 0;
    for (;;) {
        if (!rs->canceled && weir__watch_stopped(rs->watch))
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
        weir__run_flush(rs);
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
