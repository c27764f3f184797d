/*
 * One update, start to end: open storage, resolve the graph, apply the
 * refresh selection, reset and materialize tables, publish persisted views,
 * then run the flows (scheduled on worker threads by schedule.c), record
 * the update's outcome; every step is an event (see docs/engine.md). The
 * update's events and configuration are here, for schedule.c too.
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
#include "engine/run.h"
#include "engine/select.h"
#include "events/events.h"
#include "sinks/sink.h"
#include "spec/spec.h"
#include "store/topics.h"
#include "store/watch.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/map.h"
#include "util/str.h"

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

void weir__run_flow_event(run_state *rs, const weir_gflow *f,
                          weir_level level, const char *details,
                          const weir_error *error, const char *msg)
{
    flow_event_of(rs, f, level, "flow_progress", details, error, msg);
}

void weir__run_status_event(run_state *rs, const weir_gflow *f,
                            weir_level level, const char *status,
                            const char *msg_fmt_done)
{
    char details[128];
    snprintf(details, sizeof(details), "{\"flow_progress\": {\"status\": \"%s\"}}",
             status);
    weir__run_flow_event(rs, f, level, details, NULL, msg_fmt_done);
}

void weir__run_emit_status(run_state *rs, const weir_gflow *f,
                           const char *status, bool quoted, weir_level level)
{
    char msg[1024];
    if (quoted)
        snprintf(msg, sizeof(msg), "Flow '%s' is %s.", f->display, status);
    else
        snprintf(msg, sizeof(msg), "Flow %s is %s.", f->display, status);
    weir__run_status_event(rs, f, level, status, msg);
}

void weir__run_planning_event(run_state *rs, const weir_gflow *f,
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

void weir__run_flush(run_state *rs)
{
    weir_error e;
    weir__eventlog_flush(rs->log, &e);
}

/* ---- configuration ---------------------------------------------------------- */

long weir__run_parse_long(const char *v, long dflt)
{
    long long n;
    if (v && weir__spec_setting_count(v, WEIR_SETTING_MAX_COUNT, &n))
        return (long)n;
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

/* ---- phases ----------------------------------------------------------------- */

static void queue_flows(run_state *rs)
{
    for (size_t i = 0; i < rs->n_slots; i++) {
        slot *s = &rs->slots[i];
        const weir_gflow *f = &rs->g->flows[s->flow];
        if (rs->sel.flow_selected[s->flow]) {
            s->state = S_QUEUED;
            weir__run_emit_status(rs, f, "QUEUED", false, WEIR_LEVEL_INFO);
        } else {
            s->state = S_EXCLUDED;
            weir__run_emit_status(rs, f, "EXCLUDED", true, WEIR_LEVEL_INFO);
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
    weir__run_flush(rs);
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
            weir__run_status_event(rs, f, WEIR_LEVEL_INFO, "SKIPPED", msg);
            continue;
        }
        if (weir__view_publish(rs->st, g, d, rs->opts->root_dir,
                               rs->sel.reset[di], rs->update_id, &e)) {
            if (failed)
                failed[di] = true;
            snprintf(msg, sizeof(msg), "Flow '%s' has FAILED.", f->display);
            weir__run_flow_event(
                rs, f, WEIR_LEVEL_WARN,
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
    bool local = rs->opts->local_kafka_sinks || rs->opts->local_kafka_sources;
    if (!rc && !rs->run->dry && local && weir__graph_uses_kafka(g))
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
            if (in->dataset >= 0 || !in->ref || in->ref->name.n > 3 ||
                in->source == WEIR_INPUT_JDBC) /* a database catalog's */
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
    weir__watch_end(rs->watch);
    free(rs->fresh);
    free(rs->fresh_rows);
    pthread_mutex_destroy(&rs->mu);
    pthread_cond_destroy(&rs->cv);
}

/* Dry runs: sinks whose format checks its destination (a Kafka broker)
 * are probed, each within a bounded time; a failure is a diagnostic at
 * the sink's definition, and what it makes of the dry run is the rule of
 * analysis (weir_failures): a broker that does not answer, WEIR_EIO;
 * invalid options, WEIR_EGRAPH. */
static int probe_sinks(const weir_graph *g, weir__diags *diags)
{
    weir_failures found = { 0, 0 };
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
        weir__failures_add(&found, e.code == WEIR_EIO);
        if (weir__diags_add(diags, &e))
            return WEIR_ENOMEM;
    }
    return weir__failures_code(&found);
}

/* Open what the update needs: the selection, the storage, its catalogs,
 * the event log; a moved project's file checkpoints follow it. On an
 * error the caller frees rs. */
static int open_update(run_state *rs, weir_error *err)
{
    const weir_engine_opts *opts = rs->opts;
    const weir_run_options *run = rs->run;
    int rc = weir__selection_check(run, err);
    /* Usage errors before anything is opened or written. */
    if (!rc && !run->dry)
        rc = weir__selection_build(&rs->sel, rs->g, run, err);
    if (!rc && !opts->storage && !run->dry)
        rc = WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                      "Storage must be specified to start a run.");
    assert(!opts->held || (!run->dry && opts->held->mode == WEIR_STORAGE_RUN));
    if (!rc && opts->held) {
        rs->st = opts->held;
        rc = weir__db_configure(rs->st->db, &opts->db, err);
    } else if (!rc) {
        rc = weir__storage_open(&rs->st, opts->storage ? opts->storage : "/nonexistent",
                                run->dry ? WEIR_STORAGE_DRY : WEIR_STORAGE_RUN,
                                &opts->db, weir__state_schema(), err);
    }
    if (!rc)
        rc = open_catalogs(rs, err);
    char *progress = NULL;
    if (!rc && !run->dry && rs->st->system_attached &&
        !(progress = weir__path_join(rs->st->root, WEIR_PROGRESS_FILE)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = weir__eventlog_open(&rs->log,
                                 run->dry || !rs->st->system_attached ? NULL
                                                                      : rs->st,
                                 rs->update_id, progress, run->on_event,
                                 run->event_payload, err);
    free(progress);
    if (rc || run->dry)
        return rc;
    char *from = NULL;
    rc = weir__relocate(rs->st, opts->root_dir, &from, err);
    if (from) {
        char msg[2048];
        snprintf(msg, sizeof(msg),
                 "The project moved from %s to %s: the checkpoints of its "
                 "file sources now refer to the new folder.",
                 from, opts->root_dir);
        run_event(rs, WEIR_LEVEL_INFO, "user_action", NULL, NULL, msg);
        free(from);
    }
    return rc;
}

/* The graph failed analysis (rc): a run records the failed update. */
static int analysis_failed(run_state *rs, weir__diags *diags, int rc,
                           weir_error *err)
{
    if (!rs->run->dry && (rc == WEIR_EGRAPH || rc == WEIR_EIO)) {
        record_update(rs, "FAILED", true, NULL);
        weir_error first = diags->len ? diags->items[0] : *err;
        run_event(rs, WEIR_LEVEL_ERROR, "update_progress",
                  "{\"update_progress\": {\"state\": \"FAILED\"}}", &first,
                  "Pipeline execution failed.");
        record_update(rs, "FAILED", false, NULL);
        weir__run_flush(rs);
    }
    return rc;
}

/* The update was cancelled while its graph was resolved: nothing ran,
 * and what the cancel made fail is no finding. */
static void planning_canceled(run_state *rs, weir_run_result *out,
                              weir__diags *diags)
{
    weir__diags_clear(diags);
    record_update(rs, "CANCELED", true, NULL);
    run_event(rs, WEIR_LEVEL_INFO, "update_progress",
              "{\"update_progress\": {\"state\": \"CANCELED\"}}", NULL,
              "Run is CANCELED.");
    record_update(rs, "CANCELED", false, NULL);
    weir__run_flush(rs);
    if (out) {
        out->state = WEIR_RUN_CANCELED;
        snprintf(out->update_id, sizeof(out->update_id), "%s", rs->update_id);
    }
}

static bool run_cancelled(void *payload)
{
    const volatile int *cancel = payload;
    return *cancel != 0;
}

/* Resolve the graph; a cancel stops it at its next type probe (the
 * update's watch also interrupts DuckDB's statement on the connection
 * that plans, then leaves it to the records that follow). */
static int plan(run_state *rs, weir__diags *diags, weir_error *err)
{
    const weir_run_options *run = rs->run;
    rs->infer = weir__infer_cache_new();
    if (!rs->infer)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = run->cancel ? weir__watch_start(&rs->watch, run_cancelled,
                                             (void *)run->cancel, err)
                         : 0;
    if (rc)
        return rc;
    weir__watch_conn(rs->watch, rs->st->conn);
    rc = weir__analyze(rs->g, rs->st, rs->opts->root_dir,
                       rs->opts->input_storage && !run->dry, rs->infer,
                       rs->watch, diags, err);
    weir__watch_conn(rs->watch, NULL);
    return rc;
}

/* The end of a dry run that found nothing wrong. */
static void dry_completed(run_state *rs, weir_run_result *out)
{
    run_event(rs, WEIR_LEVEL_INFO, "update_progress",
              "{\"update_progress\": {\"state\": \"COMPLETED\"}}", NULL,
              "Run is COMPLETED.");
    weir__run_flush(rs);
    if (out) {
        out->state = WEIR_RUN_COMPLETED;
        snprintf(out->update_id, sizeof(out->update_id), "%s", rs->update_id);
    }
}

/* Warnings of the selection: sinks fully refreshed (their data is sent
 * again), and the selection's own. */
static void selection_warnings(run_state *rs)
{
    const weir_graph *g = rs->g;
    for (size_t i = 0; i < g->n_datasets; i++) {
        if (g->datasets[i].kind != WEIR_SINK || !rs->sel.reset[i])
            continue;
        char msg[1024];
        snprintf(msg, sizeof(msg),
                 "Full refresh of sink %s resets its flows' checkpoints but "
                 "does not delete data already written: the sink will "
                 "receive all source data again.",
                 g->datasets[i].display);
        run_event(rs, WEIR_LEVEL_WARN, "user_action", NULL, NULL, msg);
    }
    for (size_t i = 0; i < rs->sel.n_warnings; i++)
        run_event(rs, WEIR_LEVEL_WARN, "user_action", NULL, NULL,
                  rs->sel.warnings[i]);
}

/* The update fails before any flow: the selection resets a dataset that
 * cannot be reset (err gets why). */
static void not_resettable(run_state *rs, weir_run_result *out, weir_error *err)
{
    weir_error e = rs->sel.not_resettable_err;
    run_event(rs, WEIR_LEVEL_ERROR, "update_progress",
              "{\"update_progress\": {\"state\": \"FAILED\"}}", &e,
              "Pipeline execution failed.");
    record_update(rs, "FAILED", false, NULL);
    weir__run_flush(rs);
    if (out) {
        out->state = WEIR_RUN_FAILED;
        snprintf(out->update_id, sizeof(out->update_id), "%s", rs->update_id);
    }
    weir__error_copy(err, &e);
}

/* After the flows: the catalogs' checkpoints start, and the update's end
 * is recorded. The data is committed; the update's record must be too, or
 * the caller hears about it. Frees rs. */
static int end_update(run_state *rs, const weir_run_result *res,
                      weir_error *err)
{
    /* The flows are done with the catalogs: their checkpoints run while
     * the update's record and events are written. */
    if (rs->st != rs->opts->held)
        weir__storage_checkpoint_catalogs(rs->st);
    weir_error e;
    int end_rc = record_update(rs,
                               res->state == WEIR_RUN_FAILED     ? "FAILED"
                               : res->state == WEIR_RUN_CANCELED ? "CANCELED"
                                                                 : "COMPLETED",
                               false, &e);
    int ev_rc = weir__eventlog_sync(rs->log, end_rc ? NULL : &e);
    weir__storage_write_open_script(rs->st, rs->g->default_catalog,
                                    rs->g->default_database, NULL);
    free_state(rs);
    if (!end_rc && !ev_rc)
        return 0;
    if (res->state == WEIR_RUN_COMPLETED)
        weir__error_prefix(&e, "the update's data is committed, but its "
                               "record in the event log could not be "
                               "written: ");
    else
        weir__error_prefix(&e, "the update failed, and its record in the "
                               "event log could not be written either: ");
    weir__error_copy(err, &e);
    return err ? (err->code = WEIR_EIO) : WEIR_EIO;
}

int weir__engine_run(weir_graph *g, const weir_engine_opts *opts,
                     const weir_run_options *run, weir_run_result *out,
                     weir__diags *diags, weir_error *err)
{
    run_state rs;
    memset(&rs, 0, sizeof(rs));
    rs.g = g;
    rs.run = run;
    rs.started_at = weir__monotonic_us();
    pthread_mutex_init(&rs.mu, NULL);
    pthread_cond_init(&rs.cv, NULL);
    weir__uuid(rs.update_id);
    if (out)
        memset(out, 0, sizeof(*out));

    /* The pipeline's configuration (never a SQL file's SET, which applies
     * to the flows after it while DuckDB is one per update): DuckDB's
     * resources (weir.duckdb.*) and object storage settings (store/db.h). */
    weir_engine_opts eopts = *opts;
    eopts.db.conf = g->conf;
    eopts.db.n_conf = g->n_conf;
    rs.opts = &eopts;
    int rc = open_update(&rs, err);
    if (!rc) {
        rc = plan(&rs, diags, err);
        if (rc && weir__watch_stopped(rs.watch)) {
            planning_canceled(&rs, out, diags);
            free_state(&rs);
            return 0;
        }
        if (rc)
            analysis_failed(&rs, diags, rc, err);
    }
    if (!rc && run->dry && (rc = probe_sinks(g, diags)) == 0)
        dry_completed(&rs, out);
    if (rc || run->dry) {
        free_state(&rs);
        return rc;
    }
    rc = record_start(&rs, err);
    if (!rc)
        rc = weir__run_build_slots(&rs, err);
    if (rc) {
        free_state(&rs);
        return rc;
    }
    selection_warnings(&rs);
    if (rs.sel.not_resettable) {
        not_resettable(&rs, out, err);
        free_state(&rs);
        return 0;
    }
    long cap = weir__run_parse_long(
        pipeline_conf(g, "spark.sql.pipelines.execution.maxConcurrentFlows"), 16);
    rs.cap = cap > 0 ? (unsigned)cap : 1;
    queue_flows(&rs);
    weir__run_flush(&rs);
    materialize(&rs);
    weir__run_schedule(&rs);
    weir_run_result res;
    finalize(&rs, &res);
    if (out)
        *out = res;
    return end_update(&rs, &res, err);
}
